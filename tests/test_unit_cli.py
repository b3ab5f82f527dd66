"""``python -m core unit`` (text and --json), and validate / roundtrip of unit files."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fixtures import run_cli as run
from unit_fixtures import write_game

from core.authoring import units
from core.container.nres import Archive
from core.unit.cpt import points_of
from core.unit.ndp import table_of
from core.unit.objects import tag_id

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def game(tmp_path):
    return write_game(tmp_path / "Game")




def test_unit_text_shows_the_tree_each_part_and_its_socket(capsys, game):
    code, out, err = run(capsys, "unit", game / units.UNIT_DAT)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "battle robot (type 0x01008000), 8 components, 16 unit nodes" in lines[0]
    assert lines[1] == "  [0] chassis synth_chassis [BTLU] 'Шасси (sh01)'"
    assert "      model synth_parts.rlb:synth_chassis.msh (4 nodes)" in lines
    assert "    [2] turret e_tur_lt_01 [EXTO] 'Turret L (tl01)' on node 1 Base_TL (e_tur_lt) of component 0" in lines
    assert "      [4] gun e_gun_ll_01 [EXTO] 'Gun LL (gl02)' on node 3 Base_RU_01 (universal_lr) of component 2" \
        in lines
    assert "        [7] ammo clip i_c01_clip [INTO] 'Clip (cl01)' as controller device 0 of component 6" in lines
    assert "        damage 4 rows (hit points 200, 300, 400)" in lines  # a turret's row 0 is skipped
    assert "MISSING" not in out


def test_unit_json_resolves_every_component(capsys, game):
    code, out, _ = run(capsys, "unit", game / units.UNIT_DAT, "--json")
    payload = json.loads(out)
    assert code == 0 and payload["type_name"] == "battle robot" and payload["findings"] == []
    gun = payload["components"][6]
    assert gun["parent"] == 5 and gun["tag"] == "EXTO" and gun["attach"] == 3
    assert gun["files"]["msh"] == [units.PARTS, "e_gun_mc_01.msh"] and gun["model"]["nodes"] == 3
    assert gun["materials"] == ["SYNTH_HULL", "SYNTH_METAL"] and gun["controller"] == {"size": len(units.CONTROLLER)}
    assert gun["socket"] == {"component": 5, "node": 3, "name": "Base_C", "label": "central_mc", "unit_node": 13,
                             "attach": 3}
    assert gun["unit_nodes"] == [14, 15] and gun["missing"] == []
    assert [p["unit_node"] for p in gun["points"]] == [13, 13]          # node 0 is the socket
    assert "unit_node" not in gun["damage"][0] and gun["damage"][1]["unit_node"] == 14
    assert payload["components"][1]["device"] == 0 and payload["components"][1]["unit_nodes"] is None
    assert len(payload["nodes"]) == 16 and payload["nodes"][14] == {
        "index": 14, "component": 6, "part_node": 1, "name": "barrel", "parent": 13}
    fort = json.loads(run(capsys, "unit", game / units.FORT_DAT, "--json", "--game", game)[1])
    assert fort["components"][0]["records"] == ["synth_fort", "synth_fort_base"]


def test_unit_names_what_is_missing_and_exits_1(capsys, game, tmp_path):
    """A missing file of a record is an error (every retail slot resolves); a component naming no record is a
    warning (3 of the 5 708 retail components do): the rest is assembled."""
    parts = Archive.parse((game / units.PARTS).read_bytes())
    parts.remove("e_gun_ll_01.cpt")
    (game / units.PARTS).write_bytes(parts.to_bytes())
    records = Archive.parse((game / units.OBJECTS).read_bytes())
    records.remove("i_eng_m_df")
    (game / units.OBJECTS).write_bytes(records.to_bytes())
    code, out, err = run(capsys, "unit", game / units.UNIT_DAT)
    assert code == 1
    assert "MISSING: record" in out and "MISSING: .cpt" in out
    assert "unit[1]: warning: no record 'i_eng_m_df' in objects.rlb: the part is left out" in out
    assert "unit[3]: error: .cpt: no 'e_gun_ll_01.cpt' in synth_parts.rlb" in err
    assert "refused by the retail profile: 2 errors" in err  # components 3 and 4 name the gun
    lone = tmp_path / "lone" / "u.dat"
    lone.parent.mkdir()
    lone.write_bytes((game / units.UNIT_DAT).read_bytes())
    code, out, err = run(capsys, "unit", lone)
    assert code == 1 and "no objects.rlb in" in err and out.count("MISSING: objects.rlb") == 8


def test_unit_bad_input_exits_cleanly(capsys, game, tmp_path):
    bad = tmp_path / "bad.dat"
    bad.write_bytes(b"NRes" + bytes(120))
    code, _, err = run(capsys, "unit", bad)
    assert code == 1 and "bad magic" in err
    assert run(capsys, "unit", tmp_path / "none.dat")[0] == 2
    assert run(capsys, "unit", game / units.UNIT_DAT, "--game", tmp_path / "nowhere")[0] == 2
    looped = tmp_path / "loop.dat"
    data = bytearray((game / units.UNIT_DAT).read_bytes())
    data[8 + 0x6C:8 + 0x70] = (0x7FFFFFFF).to_bytes(4, "little")
    looped.write_bytes(bytes(data))
    code, _, err = run(capsys, "unit", looped, "--game", game)
    assert code == 1 and "child count 2147483647 runs past the end: 7 components follow" in err


def test_validate_and_roundtrip_take_unit_files(capsys, game, tmp_path):
    parts = Archive.parse((game / units.PARTS).read_bytes())
    for name in ("e_tur_lt_01.cpt", "e_tur_lt_01.ndp"):
        (tmp_path / name).write_bytes(bytes(parts.find(name).data))
    paths = [game / units.UNIT_DAT, game / units.FORT_DAT, game / units.OBJECTS, tmp_path / "e_tur_lt_01.cpt",
             tmp_path / "e_tur_lt_01.ndp"]
    code, out, _ = run(capsys, "validate", *paths)
    assert code == 0 and out.count(": valid: 0 errors, 0 warnings") == 5
    code, out, _ = run(capsys, "roundtrip", *paths)
    assert code == 0 and out.count("identical") == 5
    records = Archive.parse((game / units.OBJECTS).read_bytes())
    records.add("cycle", units._slot("objects.rlb", "CYCLE") + bytes(64), tag_id("FORT"))
    (game / units.OBJECTS).write_bytes(records.to_bytes())
    code, out, err = run(capsys, "validate", game / units.OBJECTS, "--json")
    found = json.loads(out)["files"][0]
    assert code == 1 and any("cycle" in f["message"] for f in found["findings"])
    short = tmp_path / "short.ndp"
    short.write_bytes((5).to_bytes(4, "little") + bytes(10))
    code, _, err = run(capsys, "validate", short)
    assert code == 1 and "short.ndp: ndp: error: count 5 needs 384 bytes, the file has 14" in err
    code, _, err = run(capsys, "roundtrip", short)
    assert code == 1 and "count 5 needs 384 bytes" in err


def test_info_reads_every_kind_of_file_validate_takes(capsys, game, tmp_path):
    """``info`` on a folder reads what ``validate`` reads: a unit shows its tree as ``unit`` prints it, control
    points and damage tables their records, a controller its states as ``clips`` prints them (docs/manual/cli.md)."""
    from core.authoring.controllers import walker_controller

    parts = Archive.parse((game / units.PARTS).read_bytes())
    for name in ("e_tur_lt_01.cpt", "e_tur_lt_01.ndp"):
        (game / name).write_bytes(bytes(parts.find(name).data))
    (game / "walker.ctl").write_bytes(walker_controller().to_bytes())
    code, out, err = run(capsys, "info", game)
    assert code == 0 and err == "", err
    assert "battle robot (type 0x01008000), 8 components, 16 unit nodes" in out
    assert "e_tur_lt_01.cpt: control points, " in out and "e_tur_lt_01.ndp: damage table, " in out
    assert "walker.ctl: 11 states (3 anchors)" in out
    assert out.splitlines()[-1].endswith(": 7 files, 7 read, 0 with problems")
    code, out, _ = run(capsys, "info", game, "--json")
    kinds = {Path(f["path"]).name: f.get("kind") or ("unit" if "components" in f else "controller" if "states" in f
                                                     else None) for f in json.loads(out)["files"]}
    assert kinds["e_tur_lt_01.cpt"] == "control points" and kinds["e_tur_lt_01.ndp"] == "damage table"
    assert kinds[Path(units.UNIT_DAT).name] == "unit" and kinds["walker.ctl"] == "controller"
    (game / "broken.ndp").write_bytes(b"garbage")
    code, out, err = run(capsys, "info", game)
    assert code == 1 and "broken.ndp: ndp: error: count" in err and "Traceback" not in err


def test_unit_command_in_a_real_process(game):
    done = subprocess.run([sys.executable, "-m", "core", "unit", str(game / units.UNIT_DAT), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout)["components"][2]["socket"]["name"] == "Base_TL"


def test_mutated_game_files_give_findings_never_an_internal_error(capsys, game):
    """Byte flips in the parts archive, objects.rlb and the tree: exit 0 or 1 with findings, never a crash."""
    rng = np.random.default_rng(3)
    names = (units.PARTS, units.OBJECTS, units.UNIT_DAT)
    original = {name: (game / name).read_bytes() for name in names}
    for step in range(90):
        for name, data in original.items():
            (game / name).write_bytes(data)
        name = names[step % 3]
        data = bytearray(original[name])
        directory = {units.PARTS: 64 * 60, units.OBJECTS: 64 * 12, units.UNIT_DAT: 0}[name]
        for _ in range(int(rng.integers(1, 10))):
            data[int(rng.integers(16 if directory else 0, len(data) - directory))] = int(rng.integers(0, 256))
        (game / name).write_bytes(bytes(data))
        code, _, err = run(capsys, "unit", game / units.UNIT_DAT, "--json")
        assert code in (0, 1) and "internal error" not in err


def test_points_on_nodes_the_model_lacks_and_short_damage_tables_are_findings(capsys, game):
    parts = Archive.parse((game / units.PARTS).read_bytes())
    parts.replace("e_gun_mc_01.cpt", points_of([("Far", 9, 0, (0, 0, 0), (0, 1, 0))]).to_bytes())
    parts.replace("e_gun_mc_01.ndp", table_of([(0, 1.0, 1.0, "", "")]).to_bytes())
    (game / units.PARTS).write_bytes(parts.to_bytes())
    code, out, err = run(capsys, "unit", game / units.UNIT_DAT)
    assert code == 0  # retail points sit off their mesh too (1 of 2 985): a warning, the unit is shown
    assert ("unit[6]: warning: .cpt: 1 points name a node the model does not have (first 9; 3 nodes): the point "
            "is not placed") in out
    assert "unit[6]: warning: .ndp: 1 rows for a model of 3 nodes" in out
    code, out, err = run(capsys, "unit", "--strict", game / units.UNIT_DAT)
    assert code == 1 and "refused by the strict profile" in err
