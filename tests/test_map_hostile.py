"""Hostile maps and missions (counts that lie, runs past the end, cycles in
adjacency, huge counts, a mission naming a missing map) give a FormatError or a finding naming the file, the
stream and the index, in bounded time and memory; a sweep of mutated bytes raises nothing but FormatError."""

import contextlib
import struct
import time
import tracemalloc

import numpy as np
import pytest
from fixtures import run_cli as run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from map_fixtures import LAND_MAP, LAND_MSH, MISSION, decode_everything, write_sample

from core.authoring.maps import sample_map_files
from core.errors import FormatError
from core.map import landmsh as L
from core.map.arealmap import ArealMap
from core.map.folder import open_mission, resolve_map
from core.map.tma import parse_tma
from core.map.validate import validate_areal_map, validate_land

FILES = sample_map_files()
HUGE = 0xFFFFFFFF


def bounded(call, seconds: float = 1.0, megabytes: float = 16.0):
    """Run ``call``; assert it took less than ``seconds`` and allocated less than ``megabytes`` at its peak."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        return call()
    finally:
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert elapsed < seconds and peak < megabytes * 2**20, (elapsed, peak)


def _tma_with_word(offset: int, value: int) -> bytes:
    data = bytearray(FILES[MISSION])
    data[offset:offset + 4] = struct.pack("<I", value)
    return bytes(data)


@pytest.mark.parametrize("offset, stream, index, words", [
    (4, "routes", None, "route count 4294967295 needs at least"),        # the route count
    (12, "routes", 0, "point count 4294967295 needs at least"),          # route 0's point count
    (56, "clans", None, "clan count 4294967295 needs at least"),         # the clan count
    (60, "clans", 0, "name (4294967295 bytes) needs 4294967295 bytes"),  # clan 0's name length
])
def test_a_mission_count_that_lies_is_refused_at_once_naming_the_part_and_record(offset, stream, index, words):
    with pytest.raises(FormatError) as caught:
        bounded(lambda: parse_tma(_tma_with_word(offset, HUGE), "data.tma"))
    finding = caught.value.findings[0]
    assert (finding.stream, finding.index) == (stream, index) and words in finding.message
    assert str(caught.value).startswith("data.tma: ")


def test_an_object_count_and_a_property_count_that_lie():
    mission = parse_tma(FILES[MISSION])
    data = mission.to_bytes()
    count_at = data.index(struct.pack("<II", 10, len(mission.objects))) + 4
    with pytest.raises(FormatError) as caught:
        bounded(lambda: parse_tma(_tma_with_word(count_at, HUGE), "data.tma"))
    assert caught.value.findings[0].stream == "objects" and "object count 4294967295" in str(caught.value)
    mission.objects[2].properties[0].name = b"X" * 3
    data = bytearray(mission.to_bytes())
    at = data.index(b"\3\0\0\0XXX")
    data[at:at + 4] = struct.pack("<I", 1 << 30)
    with pytest.raises(FormatError) as caught:
        bounded(lambda: parse_tma(bytes(data), "data.tma"))
    assert (caught.value.findings[0].stream, caught.value.findings[0].index) == ("objects", 2)


def test_huge_areal_counts_are_refused_before_any_work():
    areal_map = ArealMap.parse(FILES[LAND_MAP])
    areal_map.archive.entries[0].attr1 = HUGE
    data = areal_map.archive.to_bytes()
    with pytest.raises(FormatError, match=r"Land.map: ArealMap: error: 4294967295 areals \(attr1\) needs"):
        bounded(lambda: ArealMap.parse(data, "Land.map"))
    areal_map = ArealMap.parse(FILES[LAND_MAP])
    areal_map.areals[6].header["vertex_count"] = 0x40000000
    with pytest.raises(FormatError) as caught:
        bounded(lambda: ArealMap.parse(areal_map.to_bytes(), "Land.map"))
    assert caught.value.findings[0].index == 6 and "polygon of 1073741824 vertices" in str(caught.value)
    areal_map = ArealMap.parse(FILES[LAND_MAP])
    areal_map.across = 1 << 20
    with pytest.raises(FormatError, match="lookup grid"):
        bounded(lambda: ArealMap.parse(areal_map.to_bytes(), "Land.map"))


def test_bytes_left_after_the_areal_grid_are_refused_as_the_game_refuses_them():
    data = ArealMap.parse(FILES[LAND_MAP]).payload() + b"\0\0"
    from core.map.arealmap import parse_payload
    with pytest.raises(FormatError, match="2 bytes after the lookup grid"):
        parse_payload(data, 16, "Land.map")


def test_runs_past_the_end_and_cells_that_lie_are_findings_not_crashes():
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.cells["count"][-1] = 0xFFFF                 # the last run reaches past the last face
    findings = bounded(lambda: validate_land(L.LandMesh.parse(mesh.to_bytes())))
    assert [(f.stream, f.index) for f in findings if f.is_error] == [("Res2", None)]
    assert "runs cover" in findings[0].message
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.streams[L.CELLS] = mesh.cells[:5]           # fewer cells than two levels need
    findings = validate_land(L.LandMesh.parse(mesh.to_bytes()))
    assert any(f.stream == "Res2" and "2 x 16 squares expected" in f.message for f in findings)


def test_a_stream_that_is_not_whole_records_is_refused_naming_it():
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.entry(L.FACES).data = bytes(mesh.entry(L.FACES).data)[:-3]
    with pytest.raises(FormatError, match=r"Land.msh: Res21: error: .* not a whole number of 28-byte records"):
        L.LandMesh.parse(mesh.archive.to_bytes(), "Land.msh")
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.archive.entries = [e for e in mesh.archive.entries if e.type_id != L.MICRO_UV]
    with pytest.raises(FormatError, match=r"required stream Res18 \(microtexture UV\) is missing"):
        L.LandMesh.parse(mesh.archive.to_bytes(), "Land.msh")


def test_cycles_in_adjacency_are_named():
    """Faces naming each other round a cycle (f -> g -> h -> f) with no way back: not mutual, named, bounded."""
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    faces = mesh.faces
    for f, g in ((0, 1), (1, 2), (2, 0)):
        faces["neighbours"][f] = [g, L.NONE, L.NONE]
        faces["edges"][f] = 0 | 3 << 2 | 3 << 4
    findings = bounded(lambda: validate_land(L.LandMesh.parse(mesh.to_bytes())))
    assert any(f.stream == "Res21" and f.index == 0 and "not mutual" in f.message for f in findings), findings
    areal_map = ArealMap.parse(FILES[LAND_MAP])
    for a, b in ((0, 1), (1, 2), (2, 0)):
        areal_map.areals[a].links[0] = [b, 0]
    findings = bounded(lambda: validate_areal_map(ArealMap.parse(areal_map.to_bytes())))
    assert findings and findings[0].stream == "ArealMap"


def test_a_huge_face_count_is_bounded_by_the_u16_indices():
    """A Land.msh of 65535 faces all naming vertex 65535 (none exists): one finding, quickly."""
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    faces = np.zeros(0xFFFF, L.FACE)
    faces["verts"] = 0xFFFF
    faces["neighbours"] = 0xFFFF
    mesh.streams[L.FACES] = faces
    findings = bounded(lambda: validate_land(L.LandMesh.parse(mesh.to_bytes())), seconds=3, megabytes=64)
    assert any(f.stream == "Res21" and f.index == 0 and "vertex index out of range" in f.message for f in findings)


def test_a_mission_naming_a_missing_map(tmp_path, capsys):
    root = write_sample(tmp_path)
    mission_path = root / MISSION
    mission = parse_tma(FILES[MISSION])
    mission.map_path = b"DATA\\MAPS\\NOWHERE\\land"
    mission_path.write_bytes(mission.to_bytes())
    with pytest.raises(FormatError) as caught:
        resolve_map(mission_path, mission)
    assert caught.value.findings[0].stream == "trailer"
    assert str(caught.value).startswith(f"{mission_path}: trailer: error: map 'DATA\\MAPS\\NOWHERE\\land'")
    assert [f.stream for f in open_mission(mission_path).findings if f.is_error] == ["trailer"]
    code, out, err = run(capsys, "map", mission_path)
    assert code == 1 and "trailer: error: map 'DATA\\MAPS\\NOWHERE\\land': no folder holding Land.msh" in err
    assert "mission (versions 1/6/10)" in out


@pytest.mark.parametrize("name", [LAND_MSH, LAND_MAP, MISSION])
def test_the_cli_gives_exit_1_and_a_named_error_for_a_hostile_file(tmp_path, capsys, name):
    data = bytearray(FILES[name])
    if name == MISSION:
        data[4:8] = struct.pack("<I", HUGE)
        expected = "routes: error: route count 4294967295"
    elif name == LAND_MAP:
        mesh_like = ArealMap.parse(FILES[name])
        mesh_like.archive.entries[0].attr1 = HUGE
        data = bytearray(mesh_like.archive.to_bytes())
        expected = "ArealMap: error: 4294967295 areals"
    else:
        mesh = L.LandMesh.parse(FILES[name])
        mesh.entry(L.POSITIONS).data = bytes(mesh.entry(L.POSITIONS).data)[:-1]
        data = bytearray(mesh.archive.to_bytes())
        expected = "Res3: error: 3071 bytes is not a whole number of 12-byte records"
    root = write_sample(tmp_path, {name: bytes(data)})
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    for command in ("validate", "roundtrip", "info", "map"):
        code, out, err = run(capsys, command, root / name)
        assert code == 1, (command, out, err)
        assert expected in err, (command, out, err)
        assert str(root / name) in err or command == "map", (command, err)   # map names the mission or folder
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before   # nothing written


@settings(derandomize=True, max_examples=250, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_bytes_give_only_format_errors_in_bounded_time(data):
    name = data.draw(st.sampled_from(sorted(FILES)))
    blob = bytearray(FILES[name])
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(blob) - 4))
        if data.draw(st.booleans()):
            blob[at] = data.draw(st.integers(0, 255))
        else:
            word = data.draw(st.sampled_from([0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, HUGE]))
            blob[at:at + 4] = struct.pack("<I", word)
    if data.draw(st.booleans()):
        blob = blob[:data.draw(st.integers(0, len(blob)))]
    start = time.perf_counter()
    with contextlib.suppress(FormatError):
        decode_everything(name, bytes(blob))
    assert time.perf_counter() - start < 2.0
