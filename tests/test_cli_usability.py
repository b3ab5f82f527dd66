"""``python -m core`` as a new user meets it: --version, help on every argument with its
default and without markup, folders for validate/roundtrip/info, texture formats by extension, a missing
output folder named."""

import argparse
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from fixtures import generated
from fixtures import run_cli as run

from core.appearance.texm import parse_texm
from core.authoring.synth import sample_libraries
from core.cli import main as cli

ROOT = Path(__file__).resolve().parent.parent




def test_version_is_the_extensions():
    result = subprocess.run([sys.executable, "-m", "core", "--version"], cwd=ROOT, capture_output=True, text=True)
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    assert result.returncode == 0 and result.stdout.strip() == f"python -m core (io_msh) {manifest['version']}"


def parsers():
    """The top parser and every command's parser."""
    top = cli.build_parser()
    out = [("", top)]
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            out += sorted(action.choices.items())
    return out


@pytest.mark.parametrize("name,parser", parsers(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_argument_has_help_with_its_default_and_no_markup(name, parser):
    text = parser.format_help()
    assert not re.search(r"`|\*\*|``", text), text
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        assert action.help, f"{name} {action.option_strings or action.dest}: no help"
        shown = parser._get_formatter()._get_help_string(action)
        if action.option_strings and action.default not in (None, argparse.SUPPRESS) and action.default is not False:
            assert "default" in shown, f"{name} {action.option_strings}: default not shown"
    if name == "texture":
        assert "(default: 0)" in text  # --mip


@pytest.fixture
def game(tmp_path, sample_msh, sample_rlb):
    """A folder tree: models, an archive, libraries, a file the tool does not read, and a bad model deep down."""
    (tmp_path / "units" / "deep").mkdir(parents=True)
    (tmp_path / "a.msh").write_bytes(sample_msh)
    (tmp_path / "units" / "tank.rlb").write_bytes(sample_rlb)
    (tmp_path / "units" / "deep" / "b.MSH").write_bytes(generated(3, node_count=3))
    (tmp_path / "units" / "deep" / "bad.msh").write_bytes(b"not an nres file")
    (tmp_path / "readme.txt").write_text("not a game file")
    for name, archive in sample_libraries().items():
        (tmp_path / name).write_bytes(archive.to_bytes())
    return tmp_path


def test_validate_takes_a_folder_recursively_with_a_summary(capsys, game):
    code, out, err = run(capsys, "validate", game)
    assert code == 1  # bad.msh
    assert "bad.msh: NRes: error: bad magic" in err and "readme.txt" not in out + err
    for name in ("a.msh", "tank.rlb", "b.MSH", "Material.lib", "Textures.lib", "LightMap.lib"):
        assert re.search(rf"{re.escape(name)}: valid: 0 errors", out), name
    assert out.strip().splitlines()[-1] == "7 files: 6 valid, 1 invalid, 0 unreadable"
    code, out, _ = run(capsys, "validate", game / "units" / "tank.rlb")
    assert code == 0 and "files:" not in out  # one file: no summary line, as before


def test_roundtrip_takes_a_folder_recursively_with_a_summary(capsys, game):
    code, out, err = run(capsys, "roundtrip", game)
    assert code == 1 and "bad.msh" in err
    assert out.count(": identical (") == 6
    assert out.strip().splitlines()[-1] == "7 files: 6 identical, 1 not"


def test_info_takes_a_folder_recursively_with_a_summary(capsys, game):
    code, out, err = run(capsys, "info", game)
    assert code == 1 and "bad.msh: NRes: error: bad magic" in err
    assert "a.msh: model" in out and "tank.rlb: archive" in out and "b.MSH: model" in out
    assert out.strip().splitlines()[-1] == f"{game}: 7 files, 6 read, 1 with problems"
    code, out, err = run(capsys, "info", game, "--json")
    payload = json.loads(out)  # one document for the folder
    assert code == 1 and payload["path"] == str(game) and len(payload["files"]) == 6
    assert {Path(f["path"]).name for f in payload["files"]} >= {"a.msh", "tank.rlb", "b.MSH", "Textures.lib"}
    assert err.strip().splitlines()[-1] == f"{game}: 7 files, 6 read, 1 with problems"


@pytest.mark.parametrize("suffix,mode", [(".png", "RGBA"), (".tga", "RGBA"), (".bmp", "RGB"), (".TIF", "RGBA"),
                                         (".jpg", "RGB")])
def test_texture_writes_the_format_its_extension_names(capsys, tmp_path, suffix, mode):
    from PIL import Image

    libraries = sample_libraries()
    (tmp_path / "Textures.lib").write_bytes(libraries["Textures.lib"].to_bytes())
    expected = parse_texm(libraries["Textures.lib"].find("BODY.0").data).decode(0)
    out = tmp_path / f"body{suffix}"
    code, _, _ = run(capsys, "texture", tmp_path / "Textures.lib", "BODY.0", "-o", out)
    assert code == 0
    with Image.open(out) as picture:
        fmt = Image.registered_extensions()[suffix.lower()]
        assert picture.format == fmt and picture.mode == mode
        if suffix != ".jpg":  # lossless: the texture's pixels (BMP as Pillow reads it back: no alpha)
            assert np.array_equal(np.asarray(picture), expected[..., :len(mode)])


def test_texture_refuses_an_extension_it_cannot_write(capsys, tmp_path):
    (tmp_path / "Textures.lib").write_bytes(sample_libraries()["Textures.lib"].to_bytes())
    for name in ("body.xyz", "body"):
        code, _, err = run(capsys, "texture", tmp_path / "Textures.lib", "BODY.0", "-o", tmp_path / name)
        assert code == 2 and f"-o {tmp_path / name}: cannot write" in err and ".png" in err
        assert not (tmp_path / name).exists()


def test_an_output_folder_that_does_not_exist_is_named(capsys, tmp_path, sample_rlb):
    (tmp_path / "a.rlb").write_bytes(sample_rlb)
    missing = tmp_path / "no" / "such"
    (tmp_path / "Textures.lib").write_bytes(sample_libraries()["Textures.lib"].to_bytes())
    for args in (("extract", tmp_path / "a.rlb", "#0", "-o", missing / "x.msh"),
                 ("rewrite", tmp_path / "a.rlb", missing / "b.rlb"),
                 ("texture", tmp_path / "Textures.lib", "BODY.0", "-o", missing / "body.tga")):
        code, _, err = run(capsys, *args)
        assert code == 2 and f"no folder {missing}" in err and ".tmp" not in err
    assert not (tmp_path / "no").exists()
