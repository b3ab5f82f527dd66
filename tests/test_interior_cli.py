"""``info``, ``validate`` and ``roundtrip`` know building interiors: a model's hall way (stream 17), the ground
plans of fortif.rlb, and a bare ``.bas`` (the two-ring form and the carried forms)."""

import json

from fixtures import run_cli as run

from core.authoring import interiors as I
from core.interior import bas as B
from core.interior import hallway as H


def _files(tmp_path):
    (tmp_path / "fortif.rlb").write_bytes(I.fortif_archive().to_bytes())
    (tmp_path / "synth_hall.msh").write_bytes(I.building_model().to_bytes())
    for name, data in I.extreme_plans().items():
        (tmp_path / f"{name}.bas").write_bytes(data)
    return tmp_path


def test_info_shows_the_hall_way_and_the_ground_plan(tmp_path, capsys):
    root = _files(tmp_path)
    code, out, err = run(capsys, "info", root / "fortif.rlb")
    assert code == 0, err
    assert ("synth_hall.msh: hall way, 8 vertices on nodes [0, 1, 2], 10 links (8 open, 2 flyers only), "
            "1 creation, 1 control pod, 1 loading, 1 unloading, attr3 0") in out
    assert "synth_hall.bas: ground plan, two rings, 296 bytes: inner 8 corners, outer 8 corners" in out
    code, out, _ = run(capsys, "info", "--json", root / "synth_hall.msh")
    interiors = json.loads(out)["interiors"]
    assert interiors[0]["kind"] == "hall way" and interiors[0]["gates"]["flyers only"] == 2
    code, out, _ = run(capsys, "info", root / "multi_contour.bas")
    assert code == 0 and "ground plan, other (carried as read), 264 bytes: inner 4 corners, inner 4 corners" in out
    code, out, _ = run(capsys, "info", "--json", root / "corners_26.bas")
    assert json.loads(out)["inner"][0]["corners"] == 26


def test_validate_and_roundtrip_know_the_interior_files(tmp_path, capsys):
    root = _files(tmp_path)
    for path in sorted(root.iterdir()):
        code, out, err = run(capsys, "validate", path)
        assert code == 0 and "valid: 0 errors" in out, (path, out, err)
        code, out, err = run(capsys, "roundtrip", path)
        assert code == 0 and "identical" in out, (path, out, err)
    code, out, _ = run(capsys, "validate", root)
    assert code == 0 and "6 files: 6 valid" in out


def test_a_broken_hall_way_and_plan_are_named_with_their_stream_and_index(tmp_path, capsys):
    graph = I.hallway()
    graph.links["start"][4] = 300
    archive = I.fortif_archive()
    archive.replace("synth_hall.msh", I.building_model(graph).to_bytes())
    counted = I.building_model(name="synth_counted")
    counted.stream(17).attr1 = 9
    archive.add("synth_counted.msh", counted.to_bytes())
    archive.add("cut.bas", I.extreme_plans()["traced"][:-7], B.BAS_TYPE_ID)
    (tmp_path / "fortif.rlb").write_bytes(archive.to_bytes())
    code, out, err = run(capsys, "validate", tmp_path / "fortif.rlb")
    assert code == 1
    assert "fortif.rlb:synth_counted.msh: Res17: error: 560 bytes, but attr1 9 vertices" in err, err
    assert "fortif.rlb:synth_hall.msh: Res17[4]: error: link 4 joins vertex 300 to 4" in err, err
    assert "fortif.rlb:cut.bas: bas: error: " in err and "(carried as read)" in err, err
    code, out, err = run(capsys, "roundtrip", tmp_path / "fortif.rlb")
    assert code == 0 and "identical" in out, err  # the tolerant readings carry what they cannot use
    assert H.TYPE_ID == 17
