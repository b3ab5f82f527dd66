"""Never refuse what the game ships, for the maps, in Blender (docs/refusing-checks.md, "Maps"): a map holding
what no source measured (a face its own neighbour, an areal of fewer than 3 vertices, an areal its own
neighbour) and a map at the edge of each retail tolerance go through File > Import > Parkan Map with a mission,
with warnings only, and an untouched File > Export > Parkan Map writes every file back byte for byte; beyond a
tolerance the import is refused, naming the file and the stream."""

from pathlib import Path

import numpy as np
import pytest

from core.authoring import map_retail as R
from core.authoring.map_game import mission_game_files
from core.map.landmsh import LandMesh
from core.map.validate import validate_land

MISSION = "MISSIONS/SAMPLE/data.tma"
PASSING = {**{name: (target, data) for name, (target, data) in R.warning_cases().items()},
           **{name: (target, data) for name, (target, data, refused) in R.tolerance_cases().items() if not refused}}
REFUSED = {name: (target, data) for name, (target, data, refused) in R.tolerance_cases().items() if refused}
STREAMS = {"box_beyond": "Res21", "alpha_beyond": "Res14", "water_beyond": "Res3"}


@pytest.fixture(scope="module")
def files():
    return mission_game_files()


def write(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", sorted(PASSING))
def test_the_map_imports_and_an_untouched_export_writes_every_byte(blender, tmp_path, capfd, files, case):
    bpy = blender.bpy
    target, data = PASSING[case]
    root = write(tmp_path, {**files, target: data})
    before = snapshot(root)
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "Traceback" not in out and "Import failed" not in out
    if case in R.warning_cases():
        assert "warning" in out
    assert any(o.get("msh_map_level") == 0 for o in bpy.data.objects)
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    assert snapshot(root) == before


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_beyond_a_tolerance_the_import_is_refused_naming_the_file_and_stream(blender, tmp_path, capfd, files, case):
    bpy = blender.bpy
    target, data = REFUSED[case]
    root = write(tmp_path, {**files, target: data})
    before = snapshot(root)
    capfd.readouterr()
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION))
    message = str(refused.value) + capfd.readouterr().out
    assert "Land.msh" in message and STREAMS[case] in message and "Traceback" not in message
    assert not any(o.get("msh_map_level") == 0 for o in bpy.data.objects)
    assert snapshot(root) == before


@pytest.mark.parametrize("case", sorted(R.warning_cases()))
def test_a_height_edit_of_a_map_with_warnings_is_written_and_keeps_what_it_warned_of(blender, tmp_path, files, case):
    """The warnings do not stand in the way of an edit: the height reaches Land.msh, the face naming itself
    still names itself, a Land.map with a short areal or an areal naming itself is kept byte for byte."""
    bpy = blender.bpy
    target, data = R.warning_cases()[case]
    root = write(tmp_path, {**files, target: data})
    before = snapshot(root)
    assert bpy.ops.import_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    near = next(o for o in bpy.data.objects if o.get("msh_map_level") == 0)
    near.data.vertices[5].co.z += 2.5
    assert bpy.ops.export_scene.parkan_map(filepath=str(root / MISSION)) == {"FINISHED"}
    after = snapshot(root)
    assert [k for k in after if after[k] != before[k]] == [R.LAND_MSH]
    edited = LandMesh.parse(after[R.LAND_MSH])
    original = LandMesh.parse(before[R.LAND_MSH])
    assert edited.positions[5, 2] == pytest.approx(original.positions[5, 2] + 2.5)
    assert np.array_equal(edited.faces["neighbours"], original.faces["neighbours"])
    findings = [(f.severity, f.message) for f in validate_land(edited)]
    assert findings == ([("warning", "face is its own neighbour")] if target == R.LAND_MSH else [])
