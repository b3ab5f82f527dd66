"""The map writer's core half: what the map export refuses or writes, without Blender. Non-finite heights and
positions are named (validate, the import and a height edit), an empty Land.msh is refused, a moved vertex's twins
(the same point stored once per cell) move with it, a flat map's header corners follow a raised vertex, and a
mission naming a map that is not there is a warning of ``validate``."""

import numpy as np
import pytest
from fixtures import run_cli as run
from map_fixtures import LAND_MSH, MISSION, write_sample

from core.authoring.maps import MapSpec, sample_map_files, synthetic_land
from core.errors import FormatError
from core.map import landmsh as L
from core.map.edit import edit_heights, twin_groups, with_twins
from core.map.folder import open_map_folder, validate_text_file
from core.map.tma import parse_tma
from core.map.validate import validate_land, validate_mission

FILES = sample_map_files()


@pytest.fixture
def mesh():
    return synthetic_land(MapSpec())[0]


def errors(findings):
    return [f for f in findings if f.is_error]


def test_a_nan_height_is_named_with_its_vertex_not_as_different_boxes(mesh):
    moved = mesh.positions.copy()
    moved[17, 2] = np.nan
    with pytest.raises(FormatError) as caught:
        edit_heights(mesh, moved)
    finding = caught.value.findings[0]
    assert (finding.stream, finding.index) == ("Res3", 17)
    assert "vertex 17" in finding.message and "nan" in finding.message and "not a finite number" in finding.message
    assert "boxes" not in str(caught.value)


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_a_land_msh_with_non_finite_positions_fails_validate_and_the_import(tmp_path, mesh, value):
    mesh.positions[9, 0] = value
    found = errors(validate_land(L.LandMesh.parse(mesh.to_bytes())))
    assert [(f.stream, f.index) for f in found] == [("Res3", 9)] and "not a finite number" in found[0].message
    root = write_sample(tmp_path, {LAND_MSH: mesh.to_bytes()})
    assert any(f.stream == "Res3" and f.is_error for f in open_map_folder((root / LAND_MSH).parent).findings)


@pytest.mark.parametrize("field", ["position", "turns", "scale"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_transforms_in_data_tma_fail_validate(field, value):
    mission = parse_tma(FILES[MISSION])
    getattr(mission.objects[3], field)[1] = value
    found = errors(validate_mission(parse_tma(mission.to_bytes())))
    assert [(f.stream, f.index) for f in found] == [("objects", 3)]
    assert field in found[0].message and "not finite" in found[0].message


def test_an_all_empty_land_msh_fails_validate(mesh):
    for type_id in (L.SQUARES, L.POSITIONS, L.FACES, L.NORMALS, L.UV, L.MICRO_UV, L.ALPHA, L.DRAW_ORDER):
        mesh.streams[type_id] = mesh.streams[type_id][:0]
    mesh.streams[L.CELLS] = mesh.streams[L.CELLS][:0]
    found = errors(validate_land(L.LandMesh.parse(mesh.to_bytes())))
    assert found and found[0].stream == "Land.msh" and "no ground" in found[0].message
    assert "zero-size" not in " ".join(f.message for f in found)


def test_a_moved_vertex_takes_its_twins_along_and_twins_moved_apart_are_refused(mesh):
    groups = twin_groups(mesh.positions)
    sizes = np.bincount(groups)
    shared = int(np.flatnonzero(sizes[groups] == 4)[-1])   # a corner of four cells, away from the lake
    twins = np.flatnonzero(groups == groups[shared])
    raised = mesh.positions.copy()
    raised[shared, 2] += 2.5
    edit = edit_heights(mesh, raised)
    assert sorted(edit.moved) == sorted(twins) and edit.twins == 3
    assert (edit.mesh.positions[twins, 2] == raised[shared, 2]).all()
    assert not errors(validate_land(edit.mesh))
    assert any("twin" in w for w in edit.warnings)
    apart = raised.copy()
    other = int(twins[twins != shared][0])
    apart[other, 2] += 4.0
    with pytest.raises(FormatError) as caught:
        with_twins(mesh, apart)
    message = str(caught.value)
    assert f"vertex {min(shared, other)}" in message and f"vertex {max(shared, other)}" in message
    assert "different heights" in message


def test_raising_a_vertex_of_a_flat_map_raises_the_header_corners(mesh):
    flat = mesh.positions.copy()
    flat[:, 2] = 4.0   # the lake's level everywhere
    flat_mesh = edit_heights(mesh, flat, twins=False).mesh
    assert (flat_mesh.cell_header["corners"][:, 2] == 4.0).all()
    raised = flat_mesh.positions.copy()
    raised[30, 2] = 9.0
    edited = edit_heights(flat_mesh, raised).mesh
    corners = edited.cell_header["corners"][:, 2]
    assert sorted(set(corners.tolist())) == [4.0, 9.0] and (corners == 9.0).sum() == 4
    assert not [f for f in validate_land(edited) if "header corners" in f.message]


def test_a_mission_naming_a_map_that_is_not_there_is_a_warning_of_validate(tmp_path, capsys):
    mission = parse_tma(FILES[MISSION])
    mission.map_path = b"DATA\\MAPS\\NOWHERE\\land"
    root = write_sample(tmp_path, {MISSION: mission.to_bytes()})
    findings = validate_text_file(root / MISSION)
    assert [(f.severity, f.stream) for f in findings] == [("warning", "trailer")]
    assert "NOWHERE" in findings[0].message
    _code, out, err = run(capsys, "validate", root / MISSION)
    assert "NOWHERE" in out + err and "0 findings" not in out
