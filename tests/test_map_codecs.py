"""The map and mission codecs are lossless (unknown words carried byte for byte,
strings kept raw past a NUL), the generator meets every invariant at the sample's size and at retail size, and
the bundled sample is what the generator writes."""

import struct

import numpy as np
import pytest
from map_fixtures import LAND1, LAND2, LAND_MAP, LAND_MSH, MISSION, SAMPLE

from core.authoring.map_game import mission_game_files, mission_world_files
from core.authoring.maps import MapSpec, sample_map_files, synthetic_areal_map, synthetic_land, synthetic_mission
from core.map import landmsh as L
from core.map.arealmap import ArealMap
from core.map.tma import NOT_INSIDE, parse_tma
from core.map.validate import validate_areal_map, validate_land, validate_mission
from core.map.wea import parse_land_wea

FILES = sample_map_files()
RETAIL = MapSpec(grid=16, cell=200.0, subdivisions=6, level1_step=2, lake=(3, 4), water_level=-1.5)


def test_the_bundled_sample_map_is_what_the_generator_writes():
    """scripts/make_sample.py writes samples/maps from core.authoring.maps (the map and the mission) in its game
    folder (core.authoring.map_game: the libraries, units and scenery the mission names): the files must not
    drift."""
    on_disk = {p.relative_to(SAMPLE).as_posix(): p.read_bytes() for p in SAMPLE.rglob("*") if p.is_file()}
    assert {name: on_disk.get(name) for name in FILES} == FILES
    assert on_disk == {**mission_game_files(robot=True), **mission_world_files()}  # with its sky and briefing
    assert 20_000 < sum(map(len, FILES.values())) < 300_000  # small: tens of KB


@pytest.mark.parametrize("name, codec", [(LAND_MSH, L.LandMesh.parse), (LAND_MAP, ArealMap.parse),
                                         (LAND1, parse_land_wea), (LAND2, parse_land_wea), (MISSION, parse_tma)])
def test_every_file_of_the_sample_reads_and_writes_back_byte_for_byte(name, codec):
    assert codec(FILES[name]).to_bytes() == FILES[name]


def test_the_sample_meets_every_invariant():
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    assert validate_land(mesh) == []
    assert validate_areal_map(ArealMap.parse(FILES[LAND_MAP])) == []
    assert validate_mission(parse_tma(FILES[MISSION])) == []
    summary = mesh.summary()
    assert summary["grid"] == [4, 4] and summary["faces"] == [288, 32] and summary["water_levels"] == [4.0]
    assert summary["streams"] == list(L.STREAM_ORDER)


def test_a_retail_size_map_meets_every_invariant_and_round_trips():
    """16 x 16 grid and 10,000+ faces per level, as the retail maps (03-terrain.md, 4)."""
    mesh, _, _ = synthetic_land(RETAIL)
    assert mesh.summary()["grid"] == [16, 16]
    assert mesh.level_split >= 10_000 and len(mesh.positions) <= 0xFFFF
    assert len(mesh.faces) - mesh.level_split == mesh.level_split // 4      # level 1: every second vertex
    assert validate_land(mesh) == []
    data = mesh.to_bytes()
    assert L.LandMesh.parse(data).to_bytes() == data
    areal_map = synthetic_areal_map(RETAIL)
    assert validate_areal_map(areal_map) == [] and sum(a.is_lake for a in areal_map.areals) == 1
    mission = synthetic_mission(mesh, "BIG", objects=100, kinds=20)
    assert validate_mission(mission) == []
    assert len({o.path for o in mission.objects}) == 20
    assert parse_tma(mission.to_bytes()).to_bytes() == mission.to_bytes()


def test_unresolved_words_of_land_msh_are_carried_byte_for_byte():
    """docs/formats/maps.md: stream 2's 44-byte block and zero words, stream 4's pad byte, stream 11's byte 3 and bit 7,
    face word 3 and an attr2 no source describes are kept as read, and no check refuses them."""
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.cell_header["rest"][:] = np.arange(44)
    mesh.cells["zero"][5] = 0xDEADBEEF
    mesh.cells["tail"][7] = np.arange(20)
    mesh.streams[L.NORMALS][:, 3] = 77
    mesh.streams[L.DRAW_ORDER]["extra"][3] = 9
    mesh.streams[L.DRAW_ORDER]["flags"][4] |= 0x80
    mesh.faces["word3"][11] = 0x1234
    mesh.entry(L.POSITIONS).attr2 = 99
    mesh.entry(L.CELLS).attr3 = 12345
    data = mesh.to_bytes()
    again = L.LandMesh.parse(data)
    assert again.to_bytes() == data
    assert bytes(again.cell_header["rest"]) == bytes(range(44))
    assert again.cells["zero"][5] == 0xDEADBEEF and list(again.cells["tail"][7]) == list(range(20))
    assert (again.streams[L.NORMALS][:, 3] == 77).all() and again.faces["word3"][11] == 0x1234
    assert again.streams[L.DRAW_ORDER]["extra"][3] == 9 and again.entry(L.POSITIONS).attr2 == 99
    assert validate_land(again) == []


def test_a_height_edit_rewrites_only_the_positions():
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    mesh.positions[10, 2] += np.float32(0.5)
    data = mesh.to_bytes()
    before, after = L.LandMesh.parse(FILES[LAND_MSH]), L.LandMesh.parse(data)
    for type_id in L.STREAM_ORDER:
        same = before.entry(type_id).data.tobytes() == after.entry(type_id).data.tobytes()
        assert same == (type_id != L.POSITIONS), type_id
    assert len(data) == len(FILES[LAND_MSH])


def test_mission_strings_keep_their_raw_bytes_and_floats_their_bits():
    mission = parse_tma(FILES[MISSION])
    assert mission.description == b"Synthetic mission\0" + b"\xcd" * 14   # garbage after the NUL kept
    mission.objects[0].name = b"\xc1\xee\xe9\0tail"                       # cp1251 text, a NUL, more bytes
    mission.objects[1].position[:] = np.frombuffer(struct.pack("<3I", 0x7F800001, 0xFFC00123, 0x80000000), "<f4")
    data = mission.to_bytes()
    again = parse_tma(data)
    assert again.to_bytes() == data
    assert again.objects[0].name == b"\xc1\xee\xe9\0tail"
    assert again.objects[1].position.tobytes() == struct.pack("<3I", 0x7F800001, 0xFFC00123, 0x80000000)


@pytest.mark.parametrize("object_version", [1, 2, 5, 8, 9, 10])
def test_mission_fields_are_read_by_the_version_that_introduced_them(object_version):
    """04-missions.md and 8.15: clan index from 3, logical id 4, properties 6, name 7, start flag 8, host 9, scale 10;
    map path and description above 1, lodes above 4."""
    mission = parse_tma(FILES[MISSION])
    mission.object_version = object_version
    data = mission.to_bytes()
    again = parse_tma(data)
    assert again.to_bytes() == data and again.tail == b""
    obj = again.objects[0]
    assert (obj.clan is not None) == (object_version >= 3)
    assert (obj.scale is not None) == (object_version >= 10)
    assert (obj.properties is not None) == (object_version >= 6)
    assert (obj.host == NOT_INSIDE) == (object_version >= 9)
    assert (again.map_path is not None) == (object_version > 1)
    assert (again.lodes is not None) == (object_version > 4)
    assert obj.position.tobytes() == mission.objects[0].position.tobytes()


@pytest.mark.parametrize("clan_version", [1, 3, 5, 6])
def test_clan_fields_are_read_by_the_clan_table_version(clan_version):
    mission = parse_tma(FILES[MISSION])
    mission.clan_version = clan_version
    data = mission.to_bytes()
    again = parse_tma(data)
    assert again.to_bytes() == data
    assert (again.clans[1].relations is not None) == (clan_version > 5)
    assert (again.clans[1].script is not None) == (clan_version > 1)


def test_bytes_after_the_lode_table_are_kept_and_named():
    data = FILES[MISSION] + b"\1\2\3"
    mission = parse_tma(data)
    assert mission.tail == b"\1\2\3" and mission.to_bytes() == data
    assert [(f.stream, f.severity) for f in validate_mission(mission)] == [("trailer", "warning")]


def test_land_wea_lists_stay_byte_for_byte_and_land2_matches_land1():
    text = b"3\n0 B_S0\n1 L33  \n2 L00\n"
    assert parse_land_wea(text).to_bytes() == text
    assert parse_land_wea(FILES[LAND1]).materials[4] == "WATER"
    assert len(parse_land_wea(FILES[LAND2]).materials) == len(parse_land_wea(FILES[LAND1]).materials)


def test_height_at_follows_the_level_0_faces():
    mesh = L.LandMesh.parse(FILES[LAND_MSH])
    assert mesh.height_at(150.0, 150.0) == pytest.approx(4.0)      # the lake cell
    for x, y in [(10.0, 20.0), (333.3, 260.1)]:
        near = np.argmin(np.hypot(mesh.positions[:, 0] - x, mesh.positions[:, 1] - y))
        assert abs(mesh.height_at(x, y) - mesh.positions[near, 2]) < 5.0
    mission = parse_tma(FILES[MISSION])
    for obj in mission.objects:
        assert obj.position[2] == pytest.approx(mesh.height_at(*obj.position[:2]), abs=1e-4)
