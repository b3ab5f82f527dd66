"""Ctrl-C (SIGINT) and SIGTERM to a batch run (``python io_msh/batch/__main__.py COMMAND ...``): at any moment of
its first second (while Python, then Blender, loads; while the inputs are listed; as the first worker starts) it
exits 128 + the signal's number, with no traceback, no segmentation fault, and nothing left behind (its temporary
folders, Blender's session folder, stage folders, workers); and while a writer writes (a worker writing into the
sources, the parent writing an output or the library) no temporary, backup, journal or lock is left.

The moments are seeded; ``IO_MSH_INTERRUPT_SOAK=N`` tries N times as many (``IO_MSH_INTERRUPT_SEED`` picks them;
a soak without it takes a new seed, printed with ``-s``)."""

from __future__ import annotations

import importlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from fixtures import static_model
from test_writers_killed import (
    BATCH,
    CATS,
    LOCK_SUFFIX,
    NEW,
    ROOT,
    TEMPORARY,
    Kit,
    complete_blend,
    processes,
    watching,
    write_game,
)

from core.container.nres import MODEL_TYPE_ID, Archive
from core.disk import JOURNAL_SUFFIX

SOAK = int(os.environ.get("IO_MSH_INTERRUPT_SOAK", "0") or 0)
SEED = int(os.environ.get("IO_MSH_INTERRUPT_SEED") or (time.time_ns() % 2**32 if SOAK else 20261201))
FIRST = 0.1  # seconds: before this, the signal may reach Python's own start-up (site), before the script runs
HANG = "hang:/"  # io_msh.batch.worker's test fault: a worker stalls on every item (each label holds a path)
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds a run's processes through /proc")
TRIED: dict[str, int] = {}


def batch(*args) -> list:
    return [sys.executable, str(BATCH), *args]


class PlainKit(Kit):
    """The runs without the kill test's sitecustomize (which makes Python's own start-up longer)."""

    def env(self, tag: str, config: dict | None) -> dict:
        env = super().env(tag, config)
        if not config:
            env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
        return env


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    kit = PlainKit(tmp_path_factory.mktemp("interrupt"))
    yield kit
    if TRIED:
        print(f"\ninterrupts (seed {SEED}, soak {SOAK}): " + ", ".join(f"{k}: {v}" for k, v in sorted(TRIED.items())))


EDITED_BLEND = """
import os, sys, tempfile
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp())
sys.path[:0] = [sys.argv[1], os.path.join(sys.argv[1], "tests")]
import bpy
from fixtures import load_extension
extension = load_extension()
extension.register()
assert bpy.ops.import_scene.parkan_msh(filepath=sys.argv[2]) == {"FINISHED"}
tank = next(o for o in bpy.data.objects if o.get("msh_model") == "tank.msh")
part = next(o for o in tank.children_recursive if o.type == "MESH")
part.data.vertices[0].co.z += 0.125
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[3], copy=True)
sys.stdout.flush()
os._exit(0)
"""


def edited_blend(kit: Kit, units: Path, blend: Path) -> None:
    """``blend``: the models of ``units`` (units.rlb of NEW: tank and tower) as File > Import > Parkan MSH makes
    them, a vertex of the tank moved (its export writes tank.msh; tower.msh is as it was)."""
    blend.parent.mkdir(parents=True, exist_ok=True)
    made = subprocess.run([sys.executable, "-c", EDITED_BLEND, str(ROOT), str(units), str(blend)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT, env=kit.env(uuid.uuid4().hex, None))
    assert made.returncode == 0 and blend.is_file(), made.stdout + made.stderr


@pytest.fixture(scope="module")
def inputs(kit, tmp_path_factory):
    """A game folder (the sources of NEW, the sample libraries), a .blend of its units.rlb's models (the tank
    edited), and an archive of one model."""
    root = tmp_path_factory.mktemp("inputs")
    write_game(root / "game")
    edited_blend(kit, root / "game" / "units.rlb", root / "blends" / "units.blend")
    archive = Archive()
    archive.add("crate.msh", static_model(2), MODEL_TYPE_ID)
    (root / "crate.rlb").write_bytes(archive.to_bytes())
    for made in kit.temp.iterdir():  # what the script making the .blend left (it ends with os._exit)
        shutil.rmtree(made)
    return root


COMMANDS = {  # the command, given the inputs' folder and an output folder
    "import": lambda i, o: ["import", i / "crate.rlb", "-o", o],
    "export": lambda i, o: ["export", i / "blends", "-o", o],
    "export --into-source": lambda i, o: ["export", i / "blends" / "units.blend", "--into-source"],
    "convert": lambda i, o: ["convert", i / "crate.rlb", "-o", o, "--format", "glb"],
    "thumbnails": lambda i, o: ["thumbnails", i / "crate.rlb", "-o", o, "--size", "16"],
    "textures": lambda i, o: ["textures", i / "game" / "Textures.lib", "-o", o],
    "library": lambda i, o: ["library", i / "game", "-o", o / "Parkan.blend", "--size", "16"],
}


def moments(rng: random.Random) -> list[float]:
    """Where in the first second: spread over it, one at random in each of 3 parts (12 a part in a soak)."""
    parts = 3 * max(1, 4 * SOAK)
    return [FIRST + (n + rng.random()) * (1.0 - FIRST) / parts for n in range(parts)]


def assert_clean_end(kit: Kit, started, signum: int, out: Path) -> None:
    outcome = started.finish(120)
    assert outcome.code == 128 + signum, outcome.text
    assert "Traceback" not in outcome.text and "Segmentation" not in outcome.text, outcome.text
    assert not processes(started.tag)  # the workers were stopped with it
    assert not os.listdir(kit.temp), os.listdir(kit.temp)  # its run folder, the user folder, Blender's session
    assert not os.listdir(out), os.listdir(out)  # no stage folder, no library folder, nothing written


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_signal_in_the_first_second_ends_the_run_cleanly(kit, inputs, tmp_path, monkeypatch, command):
    """Every worker stalls on its item, so that the run is still going at any moment tried; one moment in three
    gets SIGTERM, the others Ctrl-C."""
    monkeypatch.setenv("IO_MSH_BATCH_FAULT", HANG)
    rng = random.Random(f"{SEED}:{command}")
    out = tmp_path / "out"
    out.mkdir()
    for n, delay in enumerate(moments(rng)):
        signum = signal.SIGTERM if n % 3 == 2 else signal.SIGINT
        started = kit.start(batch(*COMMANDS[command](inputs, out)))
        time.sleep(max(0.0, delay - (time.perf_counter() - started.began)))
        started.popen.send_signal(signum)
        assert_clean_end(kit, started, signum, out)
        tried(f"{signal.Signals(signum).name} in the first second")


def tried(key: str) -> None:
    TRIED[key] = TRIED.get(key, 0) + 1


# ------------------------------------------------------------------------------------------------- writing
WRITERS = {  # a writer: its command, the file it is held writing (as it makes its lock) and by which process
    "export --into-source (its worker)": (COMMANDS["export --into-source"], "units.rlb", "worker"),
    "import -o (the parent)": (COMMANDS["import"], "crate_crate.blend", "parent"),
    # (the library itself is written as import's outputs are; its catalogue file after it, within one hold)
    "library (the parent: the catalogue file)": (COMMANDS["library"], CATS, "parent"),
}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_signal_while_a_writer_writes_leaves_no_temporary_or_lock(kit, inputs, tmp_path, writer, signum):
    """The writer is held as it takes its target's lock (its temporaries written): the signal reaches the parent
    then. A worker is asked to stop (SIGTERM) and undoes its write; the parent's own write goes on to its end on
    Ctrl-C (the run stops once its output is whole), and is undone on SIGTERM. Either way every target is whole
    and nothing of the write is left beside it."""
    command, target, role = WRITERS[writer]
    step = f".{target}{LOCK_SUFFIX}.owner.*"
    out = tmp_path / "out"
    out.mkdir()
    if role == "worker":  # the .blend's models were imported from inputs/game: the export writes there
        folder = inputs / "game"
        (folder / "units.rlb").write_bytes(NEW["units.rlb"])  # as imported: the edited tank is written
    else:
        folder = out
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    mark, go = tmp_path / "held", tmp_path / "go"
    pause = {"op": "mkdir", "name": step, "mark": str(mark), "go": str(go), "timeout": 60}
    started = kit.start(batch(*command(inputs, out)), watching(folder, role=role, pauses=[pause]))
    deadline = time.monotonic() + 120
    while not mark.exists() and started.popen.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert mark.exists(), started.finish(10).text
    started.popen.send_signal(signum)
    time.sleep(0.5)
    go.touch()  # a write that goes on ends
    outcome = started.finish(120)
    assert outcome.code == 128 + signum, outcome.text
    assert "Traceback" not in outcome.text, outcome.text
    left = [p.name for p in folder.iterdir() if TEMPORARY.match(p.name) or LOCK_SUFFIX in p.name
            or JOURNAL_SUFFIX in p.name or p.name.startswith((".io_msh_stage.", ".io_msh_library_"))]
    assert not left, left
    assert not os.listdir(kit.temp), os.listdir(kit.temp)
    now = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert all(complete_blend(data) for name, data in now.items() if name.endswith(".blend")), sorted(now)
    assert CATS not in now or b"\nVERSION 1\n" in now[CATS]
    if role == "worker" or signum == signal.SIGTERM:
        assert now.get(target) == before.get(target)  # the write was undone
    else:  # Ctrl-C waits for the parent's write: its output is whole
        assert now.get(target) not in (None, before.get(target)), sorted(now)
    assert {name: data for name, data in now.items() if name != target and name in before} == {
        name: data for name, data in before.items() if name != target}
    tried(f"{signal.Signals(signum).name} while writing")


def test_a_signal_while_a_module_defines_a_class_is_still_an_interrupt():
    """A signal landing while a lazily imported module defines a dataclass (its fields' ``__set_name__``) reaches
    the run as a RuntimeError caused by the KeyboardInterrupt (Python 3.11): the run takes it as the interrupt (it
    printed a traceback and ended with 1); any other error is not."""
    from fixtures import load_extension

    results = importlib.import_module(f"{load_extension().__name__}.io_msh.batch.results")

    class Raises:
        def __set_name__(self, owner, name):
            raise KeyboardInterrupt

    try:
        type("Defined", (), {"field": Raises()})
    except BaseException as exc:  # Python 3.11 (Blender's): a RuntimeError, the interrupt its cause
        caught = exc
    assert isinstance(caught, RuntimeError) and isinstance(caught.__cause__, KeyboardInterrupt)
    assert results.interrupted(caught)
    assert not results.interrupted(RuntimeError("broken"))
    try:
        raise RuntimeError("while importing") from ValueError("another cause")
    except RuntimeError as exc:
        assert not results.interrupted(exc)
