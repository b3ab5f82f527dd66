"""File > Export > Parkan Map stopped while it replaces its files: a real export in a Blender subprocess (heights
and a placement edited, so that Land.msh and data.tma are replaced as one set) whose ``os.replace`` sends the
process a signal after a chosen replacement.

- SIGKILL between two replacements leaves the set half replaced with its journal: the next import puts the set
  back whole (as it was before that export, or all new when every file had been replaced) and removes the
  journal; the next export writes the whole set, and after it nothing of the killed writer stays beside the
  files (its lock taken once stale, its temporaries and backups removed once ORPHAN_AGE old);
- SIGTERM or Ctrl-C (SIGINT) at the same moment: the export undoes what it had replaced (or, after the last
  replacement, has written the whole set) before the process ends, and leaves no temporary, backup, journal or
  lock folder.

The suite kills after the first replacement of a target and after the last; ``MAP_KILL_SOAK=1`` kills after
every ``os.replace`` of the export (its journals' too), for each signal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.authoring.map_game import mission_game_files
from core.disk import JOURNAL_SUFFIX, LOCK_SUFFIX, ORPHAN_AGE
from core.map.edit import twin_groups
from core.map.landmsh import LandMesh
from core.map.tma import parse_tma

ROOT = Path(__file__).resolve().parent.parent
MISSION = "MISSIONS/SAMPLE/data.tma"
LAND = "DATA/MAPS/SAMPLE/Land.msh"
SOAK = os.environ.get("MAP_KILL_SOAK") == "1"
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signals a subprocess")

SCRIPT = r'''
import json, os, signal, sys
config = json.loads(sys.argv[1])
sys.path[:0] = [config["tests"], config["root"]]
import blender_env
blender_env.register()
bpy = blender_env.bpy
assert bpy.ops.import_scene.parkan_map(filepath=config["mission"]) == {"FINISHED"}
ground = next(o for o in bpy.data.objects if o.get("msh_map_level") == 0)
ground.data.vertices[config["vertex"]].co.z += 5.0
placed = sorted((o for o in bpy.data.objects if "msh_map_record" in o), key=lambda o: o.name)
placed[0].location.x += 7.0
real_replace, count = os.replace, [0]
watched = [os.path.realpath(p) for p in config["watch"]]


def replace(source, target, *args, **kwargs):
    result = real_replace(source, target, *args, **kwargs)
    folder = os.path.realpath(os.path.dirname(os.fspath(target)))
    name = os.path.basename(os.fspath(target))
    if folder in watched and (config["every"] or not name.startswith(".")):
        count[0] += 1
        if count[0] == config["nth"]:
            os.kill(os.getpid(), getattr(signal, config["signal"]))
    return result


os.replace = replace
try:
    result = bpy.ops.export_scene.parkan_map(filepath=config["mission"])
    print("EXPORTED", result, count[0], flush=True)
except BaseException as exc:
    print("STOPPED", type(exc).__name__, str(exc).splitlines()[:1], count[0], flush=True)
blender_env.exit_without_teardown(0)
'''


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """The game's files (what a writer leaves beside them is ``leftovers``)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)}


def leftovers(root: Path) -> list[str]:
    """What a writer leaves beside its files: hidden temporaries, backups, journals and lock folders."""
    return sorted(str(p.relative_to(root)) for p in root.rglob(".*"))


def age_locks(root: Path) -> None:
    """A lock left by a killed writer, aged as if LOCK_STALE had passed."""
    old = time.time() - 120
    for lock in root.rglob("*" + LOCK_SUFFIX):
        for path in (lock, *lock.iterdir()):
            os.utime(path, (old, old))


def age(root: Path) -> None:
    old = time.time() - ORPHAN_AGE - 60
    for path in root.rglob(".*"):
        for each in (path, *(path.iterdir() if path.is_dir() else ())):
            os.utime(each, (old, old))


def whole(before: dict[str, bytes], after: dict[str, bytes], said: str) -> bool:
    """The set as it was or as the export writes it (both files new), the other files as they were; whether
    new."""
    new_land, new_mission = after[LAND] != before[LAND], after[MISSION] != before[MISSION]
    assert new_land == new_mission, ("half a set", said)
    assert {k: v for k, v in after.items() if k not in (LAND, MISSION)} == \
        {k: v for k, v in before.items() if k not in (LAND, MISSION)}
    return new_land


def dry_vertex(mesh: LandMesh) -> int:
    groups = twin_groups(mesh.positions)
    return int(np.flatnonzero(np.bincount(groups)[groups] == 1)[-1])


def run_export(root: Path, vertex: int, signal_name: str, nth: int, every: bool) -> str:
    config = {"tests": str(ROOT / "tests"), "root": str(ROOT), "mission": str(root / MISSION), "vertex": vertex,
              "signal": signal_name, "nth": nth, "every": every,
              "watch": [str(root / MISSION).rsplit("/", 1)[0], str(root / LAND).rsplit("/", 1)[0]]}
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(config)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if signal_name == "SIGKILL" and done.returncode != -signal.SIGKILL:
        assert "EXPORTED" in done.stdout, done.stdout + done.stderr
        pytest.skip(f"the export made fewer than {nth} replacements")
    if signal_name == "SIGTERM":  # the signal, deferred while the set was undone, then ends Blender as it would
        assert done.returncode == -signal.SIGTERM or "EXPORTED" in done.stdout, done.stdout + done.stderr
    return done.stdout + done.stderr


def points() -> list[tuple[str, int, bool]]:
    signals = ("SIGKILL", "SIGTERM", "SIGINT")
    if SOAK:  # every os.replace of the export: temporaries onto journals and targets, backups put back
        return [(s, n, True) for s in signals for n in range(1, 7)]
    return [("SIGKILL", 1, False), ("SIGKILL", 2, False), ("SIGTERM", 1, False), ("SIGINT", 1, False)]


@pytest.mark.parametrize(("signal_name", "nth", "every"), points())
def test_a_map_export_stopped_between_its_replacements_leaves_a_whole_set(blender, tmp_path, signal_name, nth,
                                                                           every):
    bpy = blender.bpy
    files = mission_game_files()
    root = write(tmp_path, files)
    before = snapshot(root)
    vertex = dry_vertex(LandMesh.parse(files[LAND]))
    said = run_export(root, vertex, signal_name, nth, every)
    assert "Traceback" not in said or signal_name != "SIGKILL", said
    if signal_name != "SIGKILL":
        # stopped, it undid what it had replaced (or, stopped after its last replacement, had written the whole
        # set) and tidied up before ending
        assert leftovers(root) == [], (said, leftovers(root))
        whole(before, snapshot(root), said)
        return
    age_locks(root)
    # the next import finds the set half replaced (or whole) and puts it back before reading it
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    after = snapshot(root)
    assert not list(root.rglob("*" + JOURNAL_SUFFIX)), leftovers(root)
    new_land = whole(before, after, said)
    # what a writer killed before its journal leaves (its lock, temporaries, backups) is no part of the set: the
    # next write removes it once it is ORPHAN_AGE old (and takes the lock once stale)
    age(root)
    # the next export of the same edits writes the whole set
    ground = next(o for o in bpy.data.objects if o.get("msh_map_level") == 0)
    if not new_land:
        ground.data.vertices[vertex].co.z += 5.0
        sorted((o for o in bpy.data.objects if "msh_map_record" in o), key=lambda o: o.name)[0].location.x += 7.0
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    final = snapshot(root)
    assert LandMesh.parse(final[LAND]).positions[vertex, 2] == \
        np.float32(LandMesh.parse(before[LAND]).positions[vertex, 2] + 5.0)
    moved = parse_tma(final[MISSION]).objects
    assert [o.position[0] for o in moved] != [o.position[0] for o in parse_tma(before[MISSION]).objects]
    assert leftovers(root) == [] and not list(root.rglob("*" + JOURNAL_SUFFIX))
