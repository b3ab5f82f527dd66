"""``python -m core`` knows a mission's sky.ske and briefing.cfg: info summarises them, validate names what is
wrong with them (an error for what the game refuses, a warning for the rest), roundtrip gives their bytes back,
and a folder walk takes them with the mission's other files."""

from __future__ import annotations

import json
import struct

from fixtures import run_cli as run

from core.authoring.briefing import synthetic_briefing
from core.authoring.sky import sky_wea, synthetic_sky
from core.sky.ske import write_ske


def mission_folder(tmp_path):
    (tmp_path / "sky.ske").write_bytes(write_ske(synthetic_sky(2, editor_session=True)))
    (tmp_path / "sky.wea").write_bytes(sky_wea())
    (tmp_path / "briefing.cfg").write_bytes(synthetic_briefing())
    return tmp_path


def test_info_summarises_the_sky_and_the_briefing(tmp_path, capsys):
    folder = mission_folder(tmp_path)
    code, out, err = run(capsys, "info", folder / "sky.ske")
    assert code == 0 and err == ""
    assert out.splitlines()[1:] == [f"  section {n}: a day of 0:15, 12 keyframes" for n in (0, 1)]
    code, out, _ = run(capsys, "info", "--json", folder / "briefing.cfg")
    assert code == 0 and json.loads(out) == {"path": str(folder / "briefing.cfg"), "kind": "briefing",
                                             "waypoints": 6, "seconds": 26.0, "findings": []}


def test_validate_and_roundtrip_take_them_in_a_folder(tmp_path, capsys):
    folder = mission_folder(tmp_path)
    code, out, _ = run(capsys, "validate", folder)
    assert code == 0 and "3 files: 3 valid" in out
    for name in ("sky.ske", "briefing.cfg"):
        code, out, _ = run(capsys, "roundtrip", folder / name)
        assert code == 0 and "identical" in out


def test_what_the_game_refuses_is_an_error_naming_the_file(tmp_path, capsys):
    folder = mission_folder(tmp_path)
    sky = (folder / "sky.ske").read_bytes()
    (folder / "sky.ske").write_bytes(sky[:4] + struct.pack("<I", 4) + sky[8:])
    text = (folder / "briefing.cfg").read_bytes().replace(b"RotateTime = 8.000", b"RotateTime = 0")
    (folder / "briefing.cfg").write_bytes(text)
    code, out, err = run(capsys, "validate", folder)
    assert code == 1
    said = out + err
    assert "sky.ske: sky.ske: error: version 4: the game reads version 5 only" in said
    assert "a flyaround with a RotateTime of 0 (the game refuses it)" in said
