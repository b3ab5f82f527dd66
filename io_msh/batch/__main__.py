"""Runs the batch tool as a script: ``python io_msh/batch ...`` with the bpy wheel, or
``blender -b --factory-startup -P io_msh/batch/__main__.py -- ...``."""

from __future__ import annotations

import _signal  # the C module: ``signal`` imports enum first, 10 ms without a handler for Ctrl-C
import sys

SIGINT, SIGTERM = _signal.SIGINT, _signal.SIGTERM


class PendingSignal:
    """SIGINT and SIGTERM as the run starts. Before Blender loads, they end the process at once (nothing is
    made yet but the user folder, removed). While it loads, they are held: Blender's start-up (``import bpy``
    loads its add-ons) runs Python code that a KeyboardInterrupt raised inside breaks (a traceback, then a
    segmentation fault, or the signal swallowed); the run takes a held signal over once it can stop cleanly
    (io_msh.batch.results.Interrupt). Either way the exit code is 128 + the signal's number."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.made = ""  # the user folder the run made
        self.blender = False  # Blender is loading, or loaded

    def find_spec(self, name, path=None, target=None):
        """(A finder on sys.meta_path that finds nothing: it notes when ``import bpy`` begins, as the module only
        enters sys.modules once Blender's start-up has ended.)"""
        if name == "bpy":
            self.blender = True
        return None

    def __call__(self, signum, frame) -> None:
        if not self.blender and "bpy" not in sys.modules:
            if self.made:
                import shutil

                shutil.rmtree(self.made, ignore_errors=True)
            import os

            os._exit(128 + signum)
        if self.signum is None:
            self.signum = signum

    def install(self) -> None:
        sys.meta_path.insert(0, self)
        for signum in (SIGINT, SIGTERM):
            _signal.signal(signum, self)


pending = PendingSignal()
if __name__ == "__main__" and "--worker" not in sys.argv:  # a worker runs in a session of its own: its parent
    pending.install()                                        # stops it

import os  # noqa: E402 (after the handler: Ctrl-C from the first moment)
import shutil  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402


def _load_package_and_run() -> int:
    """Run as a script: load the extension folder as a package, then run its copy of the batch tool."""

    root = Path(__file__).resolve().parent.parent.parent  # io_msh/batch/__main__.py -> the extension folder

    made = None  # an isolated user folder, made by the first process of a run (workers inherit it), removed after
    if "BLENDER_USER_RESOURCES" not in os.environ:
        made = pending.made = os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="io_msh_batch_user_")
    try:
        return _run_as_package(root)
    finally:
        if made:
            shutil.rmtree(made, ignore_errors=True)


def _run_as_package(root: Path) -> int:
    import importlib.util

    name = "io_msh_batch_ext"
    spec = importlib.util.spec_from_file_location(name, root / "__init__.py", submodule_search_locations=[str(root)])
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    spec.loader.exec_module(package)
    from importlib import import_module

    return import_module(f"{name}.io_msh.batch.cli").main(sys.argv)


def _exit_with_blender_loaded(code: int) -> None:
    """End a process that has Blender loaded (a worker, or Blender running this script) with ``code``: a -P
    script cannot set Blender's exit code otherwise, and Blender's teardown only frees memory (0.15 s a worker).
    The teardown also removes Blender's session temporary folder (``blender_XXXXXX``), so that is done here."""

    session = Path(sys.modules["bpy"].app.tempdir)
    if session.name.startswith("blender_"):  # not the base folder it falls back to when none could be made
        shutil.rmtree(session, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    try:
        code = _load_package_and_run()
    except KeyboardInterrupt:  # Ctrl-C before the run could take it: no traceback
        code = 128 + (pending.signum or SIGINT)
    except SystemExit as exc:  # SIGTERM while a file was written (core.disk.Terminated): the write was undone
        code = exc.code if isinstance(exc.code, int) else 1
    if pending.signum is not None and code < 128:  # arrived before the run took its signals over, or after
        code = 128 + pending.signum
    if "bpy" in sys.modules:
        _exit_with_blender_loaded(code)
    sys.exit(code)
