"""``core.map.edit``: a height edit recomputes what the digest's section 3 lists with the
generator's own formulas (so moving vertices and moving them back gives the file as it was), refuses a move across
(x, y); a placement edit changes only the named fields and keeps LogicalID and ClanID consistent."""

import numpy as np
import pytest

from core.authoring.maps import MapSpec, synthetic_land, synthetic_mission
from core.errors import FormatError
from core.map import landmsh as L
from core.map.edit import Placement, edit_heights, edited_mission, object_bytes, parse_object, twin_groups
from core.map.tma import parse_tma, signed
from core.map.validate import validate_land, validate_mission


@pytest.fixture(scope="module")
def mesh():
    return synthetic_land(MapSpec())[0]


def test_a_height_edit_is_valid_and_undone_by_moving_back(mesh):
    original = mesh.to_bytes()
    raised = mesh.positions.copy()
    twins = twin_groups(mesh.positions)
    water = np.unique(mesh.faces["verts"][(mesh.faces["surface"] & L.SURFACE_WATER) != 0])
    dry = [v for v in (5, 40, 41, 100, 120, 130) if not np.isin(twins[water], twins[v]).any()][:4]
    raised[dry, 2] += 3.0
    edit = edit_heights(mesh, raised)
    # the vertices raised, and their twins (the same point stored for another cell) with them
    assert list(edit.moved) == sorted(np.flatnonzero(np.isin(twins, twins[dry])))
    assert edit.twins == len(edit.moved) - 4 > 0
    assert not [f for f in validate_land(edit.mesh) if f.severity == "error"]
    assert mesh.to_bytes() == original                      # the mesh given is left as it was
    assert edit.mesh.to_bytes() != original
    assert edit_heights(edit.mesh, mesh.positions).mesh.to_bytes() == original


def test_an_edit_that_moves_nothing_writes_the_same_bytes(mesh):
    edit = edit_heights(mesh, mesh.positions.copy())
    assert not len(edit.moved) and edit.mesh.to_bytes() == mesh.to_bytes() and not edit.warnings


def test_raising_the_top_moves_the_header_corners(mesh):
    raised = mesh.positions.copy()
    top = int(np.argmax(raised[:, 2]))
    raised[top, 2] += 10.0
    edit = edit_heights(mesh, raised)
    assert edit.mesh.cell_header["corners"][:, 2].max() == raised[:, 2].max()
    assert not [f for f in validate_land(edit.mesh) if f.severity == "error"]


@pytest.mark.parametrize("change", ["across", "count"])
def test_a_move_across_or_another_vertex_count_is_refused(mesh, change):
    moved = mesh.positions.copy()
    if change == "across":
        moved[12, 0] += 0.5
    else:
        moved = moved[:-1]
    with pytest.raises(FormatError, match="only heights"):
        edit_heights(mesh, moved)


def test_water_moved_apart_fails_validation_and_warns(mesh):
    water = np.unique(mesh.faces["verts"][(mesh.faces["surface"] & L.SURFACE_WATER) != 0])
    moved = mesh.positions.copy()
    moved[water[0], 2] += 1.0
    edit = edit_heights(mesh, moved)
    assert any("water vertices moved" in w for w in edit.warnings)
    assert any(f.severity == "error" and "water" in f.message for f in validate_land(edit.mesh))


def test_placements_as_read_give_the_mission_back(mesh):
    mission = synthetic_mission(mesh)
    version = mission.object_version
    rows = [Placement(object_bytes(o, version), o.position, o.turns, o.clan) for o in mission.objects]
    edited, notes = edited_mission(mission, rows)
    assert edited.to_bytes() == mission.to_bytes() and not notes
    assert parse_object(rows[0].record, version).path == mission.objects[0].path


def test_a_copy_gets_a_logical_id_of_its_own_and_a_clan_move_sets_clan_id(mesh):
    mission = synthetic_mission(mesh)
    version = mission.object_version
    unit = next(o for o in mission.objects if o.kind == 1)
    rows = [Placement(object_bytes(o, version), o.position, o.turns, o.clan) for o in mission.objects]
    rows.append(Placement(object_bytes(unit, version), np.array([1, 2, 3], "<f4"), unit.turns, 2, copy=True))
    rows[0].clan = 2 if mission.objects[0].clan != 2 else 1
    edited, _ = edited_mission(mission, rows)
    data = edited.to_bytes()
    again = parse_tma(data)
    assert not [f for f in validate_mission(again) if f.severity == "error"]
    new = again.objects[-1]
    assert new.logical_id == max(o.logical_id for o in mission.objects) + 1
    props = {p.name: signed(int(p.words["value"])) for p in new.properties}
    assert props[b"LogicalID"] == new.logical_id
    assert new.name.startswith((unit.name or b"").split(b"\0")[0])
    assert {p.name: signed(int(p.words["value"])) for p in again.objects[0].properties}[b"ClanID"] == rows[0].clan
    assert again.objects[0].clan == rows[0].clan
    for a, b in zip(again.objects[1:-1], mission.objects[1:]):
        assert object_bytes(a, version) == object_bytes(b, version)
