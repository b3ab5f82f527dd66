"""A campaign mission's briefing in Blender, through the real operators: Import Parkan Map makes each waypoint's
two Empties (the camera's stand with the waypoint's keys as properties, and where it looks) and a camera that
plays the flythrough as the game does; an untouched export leaves briefing.cfg as it is; a moved Empty or an
edited property rewrites that key's line and nothing else; a waypoint deleted or copied, or a value of the wrong
kind, is refused and nothing is written."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from core.authoring.briefing import synthetic_briefing
from core.authoring.map_game import mission_game_files
from core.briefing.cfg import parse_briefing

MISSION = "MISSIONS/SAMPLE/data.tma"
BRIEFING = "MISSIONS/SAMPLE/briefing.cfg"


@pytest.fixture(scope="module")
def game_files() -> dict[str, bytes]:
    return {**mission_game_files(), BRIEFING: synthetic_briefing()}


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def imported(bpy, root: Path):
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    return next(c for c in bpy.data.collections if "msh_briefing" in c)


def export(bpy, root: Path):
    return bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION))


def at(bpy, obj, seconds: float):
    scene = bpy.context.scene
    frame = 1 + seconds * scene.render.fps / scene.render.fps_base
    scene.frame_set(int(frame), subframe=frame - int(frame))
    bpy.context.view_layer.update()
    return tuple(obj.matrix_world.translation)


def test_the_flythrough_plays_as_the_game_does_and_an_untouched_export_leaves_it(blender, tmp_path, game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    before = snapshot(root)
    top = imported(bpy, root)
    points = parse_briefing(game_files[BRIEFING]).waypoints
    assert len(top["msh_briefing_points"]) == 12
    stand = bpy.data.objects["WayPoint2 camera"]
    assert stand["WaitType"] == "flyaround" and stand["RotateTime"] == 8.0 and stand["WaitForTime"] is True
    camera = bpy.data.objects["briefing camera"]
    assert at(bpy, camera, 7.0) == pytest.approx(points[2].camera, abs=1e-3)  # arrived at waypoint 2
    tx, ty, _ = points[2].target
    radius = math.hypot(points[2].camera[0] - tx, points[2].camera[1] - ty)
    x, y, z = at(bpy, camera, 9.0)  # a quarter into its one-revolution orbit
    assert math.hypot(x - tx, y - ty) == pytest.approx(radius, rel=0.02) and z == pytest.approx(points[2].camera[2])
    assert at(bpy, camera, 19.5) == pytest.approx(points[3].camera, abs=1e-3)  # the jump holds for half its edge
    assert at(bpy, camera, 20.2) == pytest.approx(points[4].camera, abs=1e-3)  # then cuts
    at(bpy, camera, 20.0)
    assert camera["fade"] == pytest.approx(100.0)  # black at the cut
    at(bpy, camera, 0.0)
    assert camera["fade"] == pytest.approx(100.0)  # the briefing opens black
    markers = sorted(m.name for m in bpy.context.scene.timeline_markers)
    assert markers[0] == "WayPoint0 B01_T00" and len(markers) == 6
    assert export(bpy, root) == {"FINISHED"}
    assert snapshot(root) == before


def test_a_moved_stand_and_an_edited_key_rewrite_their_lines_only(blender, tmp_path, game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    imported(bpy, root)
    stand = bpy.data.objects["WayPoint1 camera"]
    stand.location.x += 2.5
    stand["EdgeType"] = "linear"
    bpy.data.objects["WayPoint4 target"].location.z = 7.0
    assert export(bpy, root) == {"FINISHED"}
    old, new = game_files[BRIEFING].split(b"\r\n"), (root / BRIEFING).read_bytes().split(b"\r\n")
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert changed == [(b"    CameraX = 40.000", b"    CameraX = 42.500"),
                       (b'    EdgeType = "spline"', b'    EdgeType = "linear"'),
                       (b"    TargetZ = 0.000", b"    TargetZ = 7.000")]
    assert (root / MISSION).read_bytes() == game_files[MISSION]


@pytest.mark.parametrize("careless", ["delete", "copy", "wrong kind", "property deleted"])
def test_what_the_file_cannot_hold_is_refused_and_nothing_written(blender, tmp_path, game_files, careless):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    top = imported(bpy, root)
    stand = bpy.data.objects["WayPoint3 camera"]
    stand.location.y += 1.0  # an edit that would be written
    words = {"delete": "was deleted", "copy": "copies a briefing waypoint", "wrong kind": "not text",
             "property deleted": "property was deleted"}[careless]
    if careless == "delete":
        bpy.data.objects.remove(bpy.data.objects["WayPoint5 target"])
    elif careless == "copy":
        copy = stand.copy()
        top.children[-1].objects.link(copy)
    elif careless == "wrong kind":
        stand["EdgeType"] = 5
    else:
        del stand["SoundResID"]
    before = snapshot(root)
    with pytest.raises(RuntimeError, match=words):
        export(bpy, root)
    assert snapshot(root) == before


def test_a_briefing_that_does_not_read_is_a_warning_and_left_alone(blender, tmp_path, game_files):
    bpy = blender.bpy
    broken = game_files[BRIEFING].replace(b"end\r\n", b"", 1)
    root = write(tmp_path, {**game_files, BRIEFING: broken})
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert "briefing camera" not in bpy.data.objects
    assert export(bpy, root) == {"FINISHED"} and (root / BRIEFING).read_bytes() == broken


def test_another_programs_change_is_kept_when_nothing_is_edited_and_refused_under_an_edit(blender, tmp_path,
                                                                                           game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    imported(bpy, root)
    other = game_files[BRIEFING].replace(b"B01_T05", b"B01_T99")
    (root / BRIEFING).write_bytes(other)
    assert export(bpy, root) == {"FINISHED"} and (root / BRIEFING).read_bytes() == other
    bpy.data.objects["WayPoint0 camera"]["FadePercent"] = 50
    with pytest.raises(RuntimeError, match="changed"):
        export(bpy, root)
    assert (root / BRIEFING).read_bytes() == other


def test_the_eye_path_is_drawn_as_a_curve_cut_at_a_jump_and_an_untouched_export_leaves_the_files(
        blender, tmp_path, game_files):
    bpy = blender.bpy
    root = write(tmp_path, game_files)
    before = snapshot(root)
    imported(bpy, root)
    points = parse_briefing(game_files[BRIEFING]).waypoints
    path = bpy.data.objects["briefing path"]
    assert path.type == "CURVE" and path.users_collection == bpy.data.objects["briefing camera"].users_collection
    splines = [[tuple(p.co)[:3] for p in spline.points] for spline in path.data.splines]
    assert len(splines) == 2  # the jump from waypoint 3 to 4 cuts the path in two
    assert splines[0][0] == pytest.approx(points[0].camera, abs=1e-4)
    assert splines[0][-1] == pytest.approx(points[3].camera, abs=1e-4)
    assert splines[1][0] == pytest.approx(points[4].camera, abs=1e-4)
    camera = bpy.data.objects["briefing camera"]
    drawn = np.asarray([p for spline in splines for p in spline])
    for seconds in (3.3, 9.0, 25.0):  # wherever the camera is, the path passes there (a frame's step apart)
        eye = np.asarray(at(bpy, camera, seconds))
        assert np.linalg.norm(drawn - eye, axis=1).min() < 1.0
    assert export(bpy, root) == {"FINISHED"}
    assert snapshot(root) == before
