"""``info``, ``validate`` and ``roundtrip`` take Land.msh, Land.map, .wea and data.tma;
``python -m core map`` summarises a map (grid, faces per level, materials, water) and a mission (clans, objects
by kind, what is missing)."""

import json

from fixtures import run_cli as run
from map_fixtures import LAND1, LAND_MAP, LAND_MSH, MISSION, SAMPLE, write_sample

from core.authoring.maps import sample_map_files
from core.container.nres import Archive
from core.map import landmsh as L
from core.map.tma import parse_tma


def test_info_describes_each_map_and_mission_file(capsys):
    code, out, err = run(capsys, "info", SAMPLE / LAND_MSH)
    assert code == 0 and err == ""
    assert out.splitlines()[1:] == [
        "  grid 4 x 4 cells of 100 units; 256 vertices; extent x 0..400, y 0..400, z 4..55.5105",
        "  faces: level 0 288, level 1 32; 100 with a second material",
        "  water: 20 faces at z 4"]
    code, out, _ = run(capsys, "info", SAMPLE / LAND_MAP)
    assert code == 0 and "areal map, 16 areals (1 lakes), 64 vertices, lookup grid 128 x 128" in out
    code, out, _ = run(capsys, "info", SAMPLE / LAND1)
    assert code == 0 and "material list, 5 materials" in out and "    4 WATER" in out
    code, out, _ = run(capsys, "info", "--json", SAMPLE / MISSION)
    payload = json.loads(out)
    assert code == 0 and payload["kind"] == "mission" and payload["map"] == "DATA\\MAPS\\SAMPLE\\land"
    assert payload["by_kind"] == {"building": 3, "unit": 3, "vegetation": 3, "rock": 3}
    assert [c["objects"] for c in payload["clans"]] == [0, 3, 3]


def test_validate_and_roundtrip_take_a_folder_of_maps_and_missions(capsys):
    code, out, _ = run(capsys, "validate", SAMPLE)
    assert code == 0 and "16 files: 16 valid, 0 invalid, 0 unreadable" in out
    code, out, _ = run(capsys, "roundtrip", SAMPLE)
    assert code == 0 and "16 files: 16 identical, 0 not" in out
    for name, size in [(LAND_MSH, 20928), (MISSION, 2348)]:
        assert f"{SAMPLE / name}: identical ({size} bytes)" in out


def test_validate_names_the_broken_invariant_of_a_land_msh(tmp_path, capsys):
    mesh = L.LandMesh.parse(sample_map_files()[LAND_MSH])
    mesh.cells["first"][3] += 1
    root = write_sample(tmp_path, {LAND_MSH: mesh.to_bytes()})
    code, out, err = run(capsys, "validate", root / LAND_MSH)
    assert code == 1
    assert f"{root / LAND_MSH}: Res2[3]: error: run does not start where the previous cell's ends" in err
    assert "INVALID: 1 errors" in out


def test_map_summarises_a_mission_its_map_and_what_is_missing(tmp_path, capsys):
    root = write_sample(tmp_path)
    (root / "UNITS/UNITS/SYNTH").mkdir(parents=True)
    (root / "UNITS/UNITS/SYNTH/UNIT_1.DAT").write_bytes(b"")     # found whatever its case
    code, out, err = run(capsys, "map", root / "MISSIONS/SAMPLE")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].endswith("MISSIONS/SAMPLE: mission (versions 1/6/10), map 'DATA\\MAPS\\SAMPLE\\land'")
    assert "      1 Player (player): 3 units and buildings" in lines
    assert "  objects: 12 (3 building, 3 unit, 3 vegetation, 3 rock), 8 distinct files" in lines
    assert "  faces: level 0 288, level 1 32; 100 with a second material" in lines
    assert "  material   4 WATER            microtexture DEFAULT          faces 18/2" in lines
    assert "  water: 20 faces at z 4" in lines
    assert "  areal map: 16 areals (1 lakes), lookup grid 128 x 128" in lines
    missing = next(line for line in lines if line.startswith("  missing: "))
    assert missing.startswith("  missing: 4 objects name files not found") and "unit_1.dat" not in missing
    assert "objects[0]: warning: 'UNITS\\BUILDS\\SYNTH\\build_0.dat' not found" in out
    assert out.count(": warning: 'UNITS") == 4 and "objects[5]: warning: 'UNITS\\UNITS\\SYNTH\\unit_5.dat'" in out
    assert "no objects.rlb" in out


def test_map_json_and_a_map_folder(tmp_path, capsys):
    root = write_sample(tmp_path)
    (root / "DATA/MAPS/SAMPLE/Land.map").unlink()
    code, out, _ = run(capsys, "map", "--json", root / "DATA/MAPS/SAMPLE/Land.msh")
    payload = json.loads(out)
    assert code == 0 and payload["kind"] == "map" and payload["missing"] == ["Land.map"]
    assert payload["land"]["faces"] == [288, 32]
    assert [row["name"] for row in payload["materials"]] == ["B_S0", "L00", "L01", "L02", "WATER"]
    code, out, err = run(capsys, "map", root / "DATA")
    assert code == 2 and "neither data.tma nor Land.msh" in err


def test_map_with_game_option_and_a_mission_whose_map_is_elsewhere(tmp_path, capsys):
    game = write_sample(tmp_path / "game")
    mission = parse_tma(sample_map_files()[MISSION])
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "data.tma").write_bytes(mission.to_bytes())
    code, _, err = run(capsys, "map", tmp_path / "elsewhere" / "data.tma")
    assert code == 1 and "trailer: error: map 'DATA\\MAPS\\SAMPLE\\land'" in err
    code, out, err = run(capsys, "map", "--game", game, tmp_path / "elsewhere" / "data.tma")
    assert code == 0 and "water: 20 faces at z 4" in out


def test_a_game_folder_that_does_not_lead_to_the_map_falls_back_to_the_missions_own_tree(tmp_path, capsys):
    """``--game`` naming a folder of several game trees (as the batch tool's GAME_FOLDER may be: the bundled
    samples): the map is found below the nearest folder above the mission that leads to it, and the objects'
    files are looked up there too; with neither, the error names both places looked in."""
    root = write_sample(tmp_path / "trees" / "maps")
    (root / "UNITS/UNITS/SYNTH").mkdir(parents=True)
    (root / "UNITS/UNITS/SYNTH/UNIT_1.DAT").write_bytes(b"")
    code, out, err = run(capsys, "map", "--game", tmp_path / "trees", root / "MISSIONS/SAMPLE/data.tma")
    assert code == 0 and "water: 20 faces at z 4" in out
    assert "unit_1.dat" not in out.split("  missing: ", 1)[1].splitlines()[0]
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "data.tma").write_bytes((root / "MISSIONS/SAMPLE/data.tma").read_bytes())
    code, _, err = run(capsys, "map", "--game", tmp_path / "trees", tmp_path / "alone" / "data.tma")
    assert code == 1 and (f"no folder holding Land.msh below {tmp_path / 'trees'} or any folder above the "
                          "mission") in err


def test_trees_and_rocks_are_looked_up_in_objects_rlb_whatever_their_case(tmp_path, capsys):
    root = write_sample(tmp_path)
    records = Archive()
    for name in ("tree_02", "STONE_03", "TREE_06"):  # STONE_07 has no record
        records.add(name, b"")
    (root / "objects.rlb").write_bytes(records.to_bytes())
    code, out, err = run(capsys, "map", root / "MISSIONS/SAMPLE")
    assert code == 0 and err == "" and "no objects.rlb" not in out
    assert "objects[7]: warning: 'STONE_07' not found" in out
    assert not [n for n in (2, 3, 6, 10, 11) if f"objects[{n}]: warning:" in out]
