"""``info``, ``validate`` and ``roundtrip`` know effects: a bare ``.exp``, and the FXID effects and explosions of an
archive (each member decoded by its codec; a broken one named with its entry)."""

import json

from fixtures import run_cli as run

from core.authoring import effects as E
from core.effects.fxid import FXID_TYPE_ID


def _files(tmp_path):
    (tmp_path / "effects.rlb").write_bytes(E.effects_archive().to_bytes())
    (tmp_path / "weapon.rlb").write_bytes(E.explosions_archive().to_bytes())
    (tmp_path / "synth_round.exp").write_bytes(E.sample_explosions()["synth_round.exp"])
    return tmp_path


def test_info_shows_an_explosion_and_an_archives_effects(tmp_path, capsys):
    root = _files(tmp_path)
    code, out, err = run(capsys, "info", root / "synth_round.exp")
    assert code == 0 and "explosion, hit kind 2 (whole damage to the struck node), damage 1, radius 2" in out
    assert "slot 11  effects.rlb/synth_exp_sh" in out
    code, out, _ = run(capsys, "info", "--json", root / "synth_round.exp")
    assert code == 0 and json.loads(out)["slots"][0]["member"] == "synth_exp"
    code, out, err = run(capsys, "info", root / "effects.rlb")
    assert code == 0, err
    assert "synth_exp: effect, 9 emitters, time mode 1 (once), 1.5 s, flags 0x16" in out
    assert "type  5 bolt window 0..1  Material.lib/SYNTH_GLOW" in out
    code, out, _ = run(capsys, "info", "--json", root / "weapon.rlb")
    effects = json.loads(out)["effects"]
    assert [e["name"] for e in effects] == list(E.sample_explosions()) and effects[1]["damage"] == 800_000.0


def test_validate_and_roundtrip_know_the_effect_files(tmp_path, capsys):
    root = _files(tmp_path)
    for name in ("effects.rlb", "weapon.rlb", "synth_round.exp"):
        code, out, err = run(capsys, "validate", root / name)
        assert code == 0 and "valid: 0 errors, 0 warnings" in out, (name, out, err)
        code, out, err = run(capsys, "roundtrip", root / name)
        assert code == 0 and "identical" in out, (name, out, err)
    code, out, _ = run(capsys, "validate", root)
    assert code == 0 and "3 files: 3 valid" in out


def test_a_broken_effect_is_named_with_its_entry_and_a_short_explosion_refused(tmp_path, capsys):
    archive = E.effects_archive()
    archive.add("synth_broken", E.every_type_effect() + b"\0\0", FXID_TYPE_ID)
    (tmp_path / "effects.rlb").write_bytes(archive.to_bytes())
    (tmp_path / "short.exp").write_bytes(bytes(100))
    code, out, err = run(capsys, "validate", tmp_path / "effects.rlb")
    assert code == 1 and f"{tmp_path / 'effects.rlb'}:synth_broken: fxid: error: 2 bytes follow" in err
    code, _, err = run(capsys, "validate", tmp_path / "short.exp")
    assert code == 1 and "short.exp: exp: error: 100 bytes: an explosion is 792 bytes" in err
    for command in ("info", "roundtrip"):
        code, _, err = run(capsys, command, tmp_path / "short.exp")
        assert code == 1 and "an explosion is 792 bytes" in err, (command, err)
    code, out, err = run(capsys, "roundtrip", tmp_path / "effects.rlb")
    assert code == 0 and "identical" in out   # a tolerant read keeps the two bytes
