"""``python -m core``: the command-line contract (exit codes, messages, JSON)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fixtures import generated, nres, triangle_model
from fixtures import run_cli as run

from core.cli import main as cli
from core.cli import roundtrip
from core.container.nres import Archive
from core.msh.model import Model

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def files(tmp_path, sample_msh, sample_rlb):
    paths = {"msh": tmp_path / "sample.msh", "rlb": tmp_path / "sample.rlb"}
    paths["msh"].write_bytes(sample_msh)
    paths["rlb"].write_bytes(sample_rlb)
    two = Archive.parse(sample_rlb)
    two.add("Second.MSH", generated(2, node_count=3))
    paths["two"] = tmp_path / "two.rlb"
    paths["two"].write_bytes(two.to_bytes())
    bad_model = triangle_model([(0, 0xFFFF, 0xFFFF, 7)], [(0, 0, 0, 0, 32767, 0, 0, 0)], [], 1)
    paths["bad"] = tmp_path / "bad.msh"
    paths["bad"].write_bytes(bad_model)
    paths["garbage"] = tmp_path / "garbage.msh"
    paths["garbage"].write_bytes(b"not an nres file at all")
    return {k: str(v) for k, v in paths.items()}




def test_module_entry_point_runs_from_the_repository_root(files):
    result = subprocess.run([sys.executable, "-m", "core", "validate", files["msh"]], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "valid: 0 errors" in result.stdout


def test_bad_data_exits_1_without_traceback_in_a_real_process(files):
    result = subprocess.run([sys.executable, "-m", "core", "info", files["garbage"]], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{files['garbage']}: NRes: error: bad magic")


def test_info_of_a_model(capsys, files):
    code, out, _ = run(capsys, "info", files["msh"], "--json")
    assert code == 0
    info = json.loads(out)
    assert info["kind"] == "model"
    model = info["models"][0]
    assert (model["node_count"], model["frame_count"], model["slot_count"]) == (6, 41, 6)
    assert model["nodes"][1] == {"index": 1, "name": "turret", "parent": 0, "map_start": 41,
                                 "fallback_key": 15, "key_count": 5, "flags": 0}
    assert model["nodes"][2]["map_start"] is None
    code, out, _ = run(capsys, "info", files["msh"])
    assert "6 nodes" in out and "turret" in out


def test_info_of_an_archive_and_entry_choice(capsys, files):
    code, out, _ = run(capsys, "info", files["rlb"], "--json")
    info = json.loads(out)
    assert info["kind"] == "archive" and next(e["name"] for e in info["entries"]) == "sample.msh"
    assert len(info["models"]) == 1
    code, out, _ = run(capsys, "info", files["two"], "--entry", "second.msh", "--json")
    assert code == 0 and json.loads(out)["models"][0]["node_count"] == 3
    code, out, err = run(capsys, "info", files["two"], "--entry", "nothere.msh")
    assert code == 2 and "no model named 'nothere.msh'" in err


def test_validate_exit_codes(capsys, files, tmp_path):
    assert run(capsys, "validate", files["msh"], files["rlb"], files["two"])[0] == 0
    code, _out, err = run(capsys, "validate", files["msh"], files["bad"])
    assert code == 1
    assert f"{files['bad']}: Res1[0]: error: fallback key 7 is out of range (1 keys)" in err
    assert run(capsys, "validate", str(tmp_path / "missing.msh"))[0] == 2
    assert run(capsys, "validate", files["garbage"])[0] == 1


def test_validate_json_and_strict(capsys, files, tmp_path):
    code, out, _ = run(capsys, "validate", files["bad"], "--json")
    result = json.loads(out)["files"][0]
    assert code == 1 and result["valid"] is False and result["errors"] == 1
    assert result["findings"][0]["stream"] == "Res1" and result["findings"][0]["index"] == 0
    warned = tmp_path / "warned.msh"
    warned.write_bytes(triangle_model([(0, 0xFFFF, 0xFFFF, 0)], [(0, 0, 0, 0, 32767, 0, 0, 0)] * 2, [], 1))
    assert run(capsys, "validate", str(warned))[0] == 0
    assert run(capsys, "validate", str(warned), "--strict")[0] == 1


def test_validate_names_the_nested_model(capsys, files, tmp_path):
    archive = Archive.parse(Path(files["rlb"]).read_bytes())
    archive.add("broken.msh", Path(files["bad"]).read_bytes())
    path = tmp_path / "with_bad.rlb"
    path.write_bytes(archive.to_bytes())
    code, _, err = run(capsys, "validate", str(path))
    assert code == 1
    assert f"{path}:broken.msh: Res1[0]: error: fallback key 7" in err


def test_roundtrip(capsys, files):
    code, out, _ = run(capsys, "roundtrip", files["msh"], files["rlb"], files["two"])
    assert code == 0 and out.count("identical") == 3
    assert run(capsys, "roundtrip", files["garbage"])[0] == 1


def test_roundtrip_names_the_first_difference_and_its_stream(capsys, files, monkeypatch):
    original = roundtrip.rewritten

    def flip_a_key_byte(container):
        data = bytearray(original(container))
        model = Model.parse(bytes(Archive.parse(bytes(data)).find("sample.msh").data))
        keys_at = data.find(bytes(model.data(8))[:24])
        data[keys_at + 5] ^= 0xFF
        return bytes(data)

    monkeypatch.setattr(roundtrip, "rewritten", flip_a_key_byte)
    code, _, err = run(capsys, "roundtrip", files["rlb"])
    assert code == 1
    assert "DIFFERS at byte" in err and "stream Res8" in err and "entry 'sample.msh'" in err


def test_describe_offset_inside_a_nested_model(sample_rlb):
    archive = Archive.parse(sample_rlb)
    model_entry = archive.find("sample.msh")
    start = sample_rlb.find(bytes(model_entry.data))
    inner = Model.parse(bytes(model_entry.data))
    res8 = bytes(inner.data(8))
    offset = start + bytes(model_entry.data).find(res8) + 30
    text = roundtrip.describe_offset(sample_rlb, offset)
    assert "entry 'sample.msh'" in text and "stream Res8" in text and "+30" in text
    assert roundtrip.describe_offset(sample_rlb, 3) == "NRes header at +3"
    assert roundtrip.describe_offset(sample_rlb, len(sample_rlb) - 1).startswith("directory record 2")


def test_list_and_extract(capsys, files, tmp_path, sample_msh):
    _code, out, _ = run(capsys, "list", files["rlb"], "--json")
    entries = json.loads(out)["entries"]
    assert [e["type_name"] for e in entries] == ["MESH", "WEAR", "Texm"]
    target = tmp_path / "out.msh"
    assert run(capsys, "extract", files["rlb"], "SAMPLE.MSH", "-o", str(target))[0] == 0
    assert target.read_bytes() == sample_msh
    assert run(capsys, "extract", files["rlb"], "none", "-o", str(target))[0] == 2


def test_usage_errors_exit_2(capsys, files):
    with pytest.raises(SystemExit) as info:
        cli.main(["info"])
    assert info.value.code == 2
    code, _, err = run(capsys, "sample", files["two"], "--times", "0")
    assert code == 2 and "holds 2 models (sample.msh, Second.MSH); choose one with --entry" in err
    code, _, err = run(capsys, "sample", files["msh"], "--times", "0", "--nodes", "9")
    assert code == 2 and "node 9 does not exist" in err
    code, _, err = run(capsys, "sample", files["msh"], "--frames", "0:5:-1")
    assert code == 2 and "step must be positive" in err
    code, _, err = run(capsys, "info", files["msh"] + ".missing")
    assert code == 2 and "No such file" in err


def test_archive_without_models_reports_it(capsys, tmp_path):
    from core.appearance.texm import encode_texm
    from core.authoring.synth import checker

    path = tmp_path / "textures.rlb"
    path.write_bytes(nres([(0x6D786554, "a.tex", encode_texm(checker(4, (0, 0, 0, 255), (9, 9, 9, 255))).to_bytes(),
                            0, 0, 0)]))
    code, out, _ = run(capsys, "info", str(path), "--json")
    assert code == 0 and json.loads(out)["models"] == []
    assert json.loads(out)["textures"] == [{"name": "a.tex", "width": 4, "height": 4, "format": 8888, "mips": 3,
                                            "flags4": 0, "flags5": 0, "unk6": 0, "rects": None}]
    assert run(capsys, "validate", str(path))[0] == 0
    path.write_bytes(nres([(0x6D786554, "a.tex", b"1234", 0, 0, 0)]))
    code, out, _ = run(capsys, "info", str(path), "--json")
    assert code == 0 and "a Texm header needs 32" in json.loads(out)["textures"][0]["error"]
    code, _, err = run(capsys, "validate", str(path))
    assert code == 1 and "a.tex: Texm: error:" in err


def test_texture_writes_a_png_of_any_mip_level_and_info_lists_textures_and_materials(capsys, tmp_path):
    from PIL import Image

    from core.appearance.texm import parse_texm
    from core.authoring.synth import sample_libraries

    libraries = sample_libraries()
    for name, archive in libraries.items():
        (tmp_path / name).write_bytes(archive.to_bytes())
    textures = str(tmp_path / "Textures.lib")
    expected = parse_texm(libraries["Textures.lib"].find("BODY.0").data)
    for mip in (0, 2):
        code, out, _ = run(capsys, "texture", textures, "body.0", "-o", str(tmp_path / f"body{mip}.png"),
                           "--mip", str(mip))
        assert code == 0 and f"mip {mip}" in out
        with Image.open(tmp_path / f"body{mip}.png") as png:
            assert png.mode == "RGBA" and np.array_equal(np.asarray(png), expected.decode(mip))
    assert run(capsys, "texture", textures, "BODY.0", "-o", str(tmp_path / "x.png"), "--mip", "5")[0] == 2
    code, _, err = run(capsys, "texture", textures, "NOPE.0", "-o", str(tmp_path / "x.png"))
    assert code == 2 and "no texture named 'NOPE.0'" in err and not (tmp_path / "x.png").exists()
    code, out, _ = run(capsys, "info", textures, "--json")
    body = json.loads(out)["textures"][0]
    assert (body["name"], body["width"], body["format"], body["mips"], body["rects"]) == (
        "BODY.0", 16, 8888, 5, [[0, 8, 0, 8], [8, 8, 0, 16]])
    code, out, _ = run(capsys, "info", str(tmp_path / "Material.lib"), "--json")
    glass = next(m for m in json.loads(out)["materials"] if m["name"] == "GLASS")
    assert glass["blend"] == "BLEND" and glass["phases"][0]["texture"] == "GLASS.0"
    assert glass["phases"][0]["diffuse"][3] == pytest.approx(0.5)
    code, out, _ = run(capsys, "info", str(tmp_path / "Material.lib"))
    assert "material GLOW: add, 1 phases, textures GLASS.0" in out
