"""Runs the batch tool as a script: ``python io_msh/batch ...`` with the bpy wheel, or
``blender -b --factory-startup -P io_msh/batch/__main__.py -- ...``."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path


def _load_package_and_run() -> int:
    """Run as a script: load the extension folder as a package, then run its copy of the batch tool."""

    root = Path(__file__).resolve().parent.parent.parent  # io_msh/batch/__main__.py -> the extension folder

    made = None  # an isolated user folder, made by the first process of a run (workers inherit it), removed after
    if "BLENDER_USER_RESOURCES" not in os.environ:
        made = os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="io_msh_batch_user_")
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
        code = 130
    if "bpy" in sys.modules:
        _exit_with_blender_loaded(code)
    sys.exit(code)
