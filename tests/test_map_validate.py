"""``validate`` checks the invariants that hold on every retail map (docs/formats/maps.md,
"Maps and missions"), and says which one fails where (stream and first record). Each test breaks one invariant
of the sample."""

import numpy as np
import pytest
from map_fixtures import LAND1, LAND2, LAND_MAP, LAND_MSH, MISSION, write_sample

from core.authoring.maps import sample_map_files
from core.map import landmsh as L
from core.map.arealmap import ArealMap
from core.map.folder import open_map_folder
from core.map.tma import parse_tma
from core.map.validate import validate_areal_map, validate_land, validate_mission

FILES = sample_map_files()


def land_findings(edit, keep_counts: bool = False):
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    edit(mesh)
    data = mesh.to_bytes()
    return [(f.stream, f.index, f.severity, f.message) for f in validate_land(L.LandMesh.parse(data))]


def one(findings, stream, index, words):
    """The findings hold one for ``stream``[``index``] whose message holds ``words``."""
    hits = [f for f in findings if f[0] == stream and f[1] == index and words in f[3]]
    assert hits, findings
    return hits[0]


def _runs(mesh):
    mesh.cells["first"][3] += 1


def _box(mesh):
    face = mesh.faces[40]
    mesh.positions[face["verts"][0], 0] += 60.0   # the vertex leaves its cell


def _square(mesh):
    mesh.streams[L.SQUARES]["cells"][5, 1] = 7


def _square_head(mesh):
    mesh.streams[L.SQUARES]["head"][2, 1] = 0


def _mutual(mesh):
    f = 20
    e = int(np.flatnonzero(mesh.faces["neighbours"][f] != L.NONE)[0])
    mesh.faces["neighbours"][f, e] = 25 if mesh.faces["neighbours"][f, e] != 25 else 26


def _edge_code(mesh):
    mesh.faces["edges"][12] = 0x3F  # all "none" although it has neighbours


def _draw_twice(mesh):
    draw = mesh.streams[L.DRAW_ORDER]
    draw["face"][1] = draw["face"][0]


def _draw_other_cell(mesh):
    draw = mesh.streams[L.DRAW_ORDER]
    draw["face"][0], draw["face"][100] = draw["face"][100], draw["face"][0]


def _batch(mesh):
    mesh.streams[L.DRAW_ORDER]["flags"][0] &= ~L.DRAW_BATCH


def _level1(mesh):
    """A level-1 face moves to a new vertex at the same place: same geometry, but no level-0 face uses it."""
    split = mesh.level_split
    old = mesh.faces["verts"][split, 0]
    for type_id in L.PER_VERTEX:
        mesh.streams[type_id] = np.concatenate([mesh.streams[type_id], mesh.streams[type_id][old:old + 1]])
    mesh.faces["verts"][split, 0] = len(mesh.positions) - 1


def _slot0(mesh):
    mesh.faces["material"][50] = (mesh.faces["material"][50] & 0xFF00) | 0


def _second_flag(mesh):
    mesh.faces["flags"][60] ^= L.FLAG_SECOND


def _water_flags(mesh):
    water = np.flatnonzero(mesh.water_faces())
    mesh.faces["flags"][water[0]] = L.FLAG_BASE


def _water_plane(mesh):
    water = np.flatnonzero(mesh.water_faces())
    mesh.positions[mesh.faces["verts"][water[3], 1], 2] += 0.25


def _alpha(mesh):
    two = (mesh.faces["material"] >> 8) != L.NO_SECOND
    untouched = np.setdiff1d(np.arange(len(mesh.positions)), mesh.faces["verts"][two].ravel())
    mesh.streams[L.ALPHA][untouched[4]] = 0.5


def _index(mesh):
    mesh.faces["verts"][70, 2] = len(mesh.positions) + 3


@pytest.mark.parametrize("edit, stream, index, words", [
    (_runs, "Res2", 3, "run does not start where the previous cell's ends"),
    (_box, "Res21", None, "outside its cell's box"),
    (_square, "Res1", 5, "level-0 cell i and level-1 cell squares + i"),
    (_square_head, "Res1", 2, "header is not 0, 0xFFFF, 0, 0"),
    (_mutual, "Res21", None, "not mutual"),
    (_edge_code, "Res21", 12, "edge code (word 13)"),
    (_draw_twice, "Res11", None, "not a permutation"),
    (_draw_other_cell, "Res11", 0, "outside its cell's run"),
    (_batch, "Res11", 0, "batch bit 0x10"),
    (_level1, "Res21", None, "level-1 face uses a vertex no level-0 face uses"),
    (_slot0, "Res21", 50, "Land1 slot 0"),
    (_second_flag, "Res21", 60, "flag 0x004"),
    (_water_flags, "Res21", None, "water"),
    (_water_plane, "Res3", None, "one water level"),
    (_alpha, "Res14", None, "alpha is not 1.0"),
    (_index, "Res21", 70, "vertex index out of range"),
])
def test_each_broken_invariant_is_named_with_its_stream_and_record(edit, stream, index, words):
    findings = land_findings(edit)
    hits = [f for f in findings if f[0] == stream and words in f[3]]
    assert hits, findings
    assert hits[0][2] == "error" or "used by no face" in hits[0][3]
    if index is not None:
        assert hits[0][1] == index, hits


def test_a_count_that_lies_is_named_with_the_stream():
    """attr1 = element count on every stream (03-terrain.md, 4); attr3 = stride (fp)."""
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.entry(L.POSITIONS).attr1 += 5
    mesh.entry(L.FACES).attr3 = 30
    findings = validate_land(L.LandMesh.parse(mesh.archive.to_bytes()))
    messages = {(f.stream, f.message) for f in findings}
    assert ("Res3", f"attr1 says {len(mesh.positions) + 5} records, the stream holds {len(mesh.positions)}") \
        in messages
    assert ("Res21", "attr3 (stride) is 30, records are 28 bytes") in messages


def test_a_per_vertex_stream_of_another_length_and_a_grid_that_does_not_divide():
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.streams[L.UV] = mesh.streams[L.UV][:-2]
    mesh.entry(L.SQUARES).attr2 = 3
    findings = {(f.stream, f.message) for f in validate_land(L.LandMesh.parse(mesh.to_bytes()))}
    assert ("Res5", "254 records for 256 vertices (one per vertex)") in findings
    assert ("Res1", "16 squares do not make rows of attr2 = 3 cells") in findings


def test_an_unused_vertex_is_a_warning():
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    for type_id in L.PER_VERTEX:
        mesh.streams[type_id] = np.concatenate([mesh.streams[type_id], mesh.streams[type_id][:1]])
    mesh.streams[L.POSITIONS][-1] = mesh.positions[0]
    findings = validate_land(L.LandMesh.parse(mesh.to_bytes()))
    assert [(f.stream, f.index, f.severity) for f in findings] == [("Res3", 256, "warning")]


def _areal_findings(edit):
    areal_map = ArealMap.parse(FILES[LAND_MAP])
    edit(areal_map)
    return [(f.stream, f.index, f.message) for f in validate_areal_map(ArealMap.parse(areal_map.to_bytes()))]


def test_areal_map_links_must_be_mutual_and_the_grid_in_range():
    def twin(m):
        m.areals[5].links[1] = [7, 0]       # areal 7's edge 0 does not lead back to 5

    def grid(m):
        m.cell(100)[0] = 16                 # 16 areals: index 16 names none

    def itself(m):
        m.areals[2].links[0] = [2, 0]

    def nowhere(m):
        m.areals[9].links[3] = [40, 0]

    assert _areal_findings(twin)[0][:2] == ("ArealMap", 5) and "link back" in _areal_findings(twin)[0][2]
    assert _areal_findings(grid) == [("ArealMap grid", 100, "lookup cell names an areal out of range (16 areals)")]
    assert ("ArealMap", 2, "areal is its own neighbour") in _areal_findings(itself)
    assert _areal_findings(nowhere)[0][:2] == ("ArealMap", 9)


def test_mission_owner_and_marker_are_checked():
    mission = parse_tma(FILES[MISSION])
    mission.objects[0].clan = 9
    mission.objects[3].marker = 5
    findings = {(f.stream, f.index, f.severity) for f in validate_mission(parse_tma(mission.to_bytes()))}
    assert findings == {("objects", 0, "error"), ("objects", 3, "error")}


def test_the_map_folder_checks_materials_against_land1_and_land2_against_land1(tmp_path):
    land1 = b"4\r\n0 B_S0\r\n1 L00\r\n2 L01\r\n3 L02\r\n"     # the sample's faces wear slot 4 (WATER)
    write_sample(tmp_path, {LAND1: land1})
    result = open_map_folder(tmp_path / "DATA/MAPS/SAMPLE")
    messages = [f.format() for f in result.findings]
    assert any(m.startswith("Land.msh: Res21[") and "material index beyond Land1.wea (4 rows)" in m
               for m in messages), messages
    assert any(m.startswith("Land2.wea: error: 5 rows, Land1.wea has 4") for m in messages), messages
    assert open_map_folder(write_sample(tmp_path / "b") / "DATA/MAPS/SAMPLE").findings == []
    assert FILES[LAND2]


def test_a_neighbour_in_the_other_level_or_elsewhere_is_a_warning():
    """Edges pair within a level and across the same two positions: what the sources imply, not what they
    measured, so these two are warnings."""
    def cross(mesh):
        split = mesh.level_split
        for f, g in ((0, split), (split, 0)):
            mesh.faces["neighbours"][f, 0] = g
            mesh.faces["edges"][f] = mesh.faces["edges"][f] & ~3
    findings = land_findings(cross)
    assert ("Res21", 0, "warning", "neighbour lies in the other level (2 records)") in findings
    assert any(f[:3] == ("Res21", 0, "warning") and "share the edge's two positions" in f[3] for f in findings)
