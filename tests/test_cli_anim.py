"""``python -m core sample | blend | rewrite``: the animation commands' contract."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fixtures import triangle_model

from core.animation.sampler import AnimationData, blend, sample
from core.cli import main as cli
from core.msh.model import Model

ROOT = Path(__file__).resolve().parent.parent
I = (32767, 0, 0, 0)  # noqa: E741


@pytest.fixture
def paths(tmp_path, sample_msh, sample_rlb):
    out = {"msh": tmp_path / "sample.msh", "rlb": tmp_path / "sample.rlb", "noncanon": tmp_path / "nc.msh"}
    out["msh"].write_bytes(sample_msh)
    out["rlb"].write_bytes(sample_rlb)
    nodes = [(0, 0xFFFF, 0xFFFF, 0), (0, 0, 0, 3)]
    keys = [(0, 0, 0, 0, *I), (0, 0, 0, 0, *I), (1, 0, 0, 2, 0, 32767, 0, 0), (2, 0, 0, 4, *I)]
    out["noncanon"].write_bytes(triangle_model(nodes, keys, [1, 1, 2, 2, 0xFFFF, 9], 6))
    return {k: str(v) for k, v in out.items()}


def run_json(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_sample_json_contract(capsys, paths, sample_msh):
    out = run_json(capsys, "sample", paths["rlb"], "--times=-1,0.5,10.5,20", "--nodes", "1,2", "--json")
    assert out["frame_count"] == 41
    assert [n["index"] for n in out["nodes"]] == [1, 2]
    turret = out["nodes"][0]
    assert (turret["name"], turret["parent"]) == ("turret", 0)
    assert [s["t"] for s in turret["samples"]] == [-1.0, 0.5, 10.5, 20.0]
    assert [s["branch"] for s in turret["samples"]] == ["fallback", "lerp", "lerp", "k0"]
    data = AnimationData.from_model(Model.parse(sample_msh))
    expected = sample(data, [10.5], [1])
    assert turret["samples"][2]["rot"] == [float(v) for v in expected.rot[0, 0]]
    assert turret["samples"][2]["pos"] == [float(v) for v in expected.pos[0, 0]]
    assert all(np.float32(v) == v for v in turret["samples"][2]["rot"])  # exact float32 values


def test_sample_frames_range_is_half_open_with_fractional_step(capsys, paths):
    out = run_json(capsys, "sample", paths["msh"], "--frames", "0:2:0.5", "--json")
    assert [s["t"] for s in out["nodes"][0]["samples"]] == [0.0, 0.5, 1.0, 1.5]
    assert len(out["nodes"]) == 6 and out["nodes"][0]["parent"] is None


def test_negative_times_parse_in_a_real_process(paths):
    result = subprocess.run([sys.executable, "-m", "core", "sample", paths["msh"], "--times=-1,0.5", "--json"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["nodes"][1]["samples"][0]["branch"] == "fallback"


def test_blend_json(capsys, paths, sample_msh):
    out = run_json(capsys, "blend", paths["msh"], "--node", "1", "--ta", "5", "--tb", "15", "--weight", "0.25",
                   "--json")
    expected = blend(AnimationData.from_model(Model.parse(sample_msh)), 1, 5, 15, 0.25)
    assert out["matrix"] == [float(v) for v in expected.reshape(-1)]
    none = run_json(capsys, "blend", paths["msh"], "--node", "1", "--ta", "5", "--tb", "-1", "--weight", "1",
                    "--json")
    assert none == {"matrix": None}


def test_rewrite_plain_is_lossless_and_canonical_rebuilds_maps(capsys, paths, tmp_path):
    plain, canon = tmp_path / "plain.msh", tmp_path / "canon.msh"
    assert cli.main(["rewrite", paths["noncanon"], str(plain)]) == 0
    assert plain.read_bytes() == Path(paths["noncanon"]).read_bytes()
    assert cli.main(["rewrite", paths["noncanon"], str(canon), "--canonical"]) == 0
    assert Model.parse(canon.read_bytes()).map_words.tolist() == [1, 1, 2, 2, 3, 3]
    times = np.arange(-2, 8, 0.25)
    before = sample(AnimationData.from_model(Model.parse(plain.read_bytes())), times)
    after = sample(AnimationData.from_model(Model.parse(canon.read_bytes())), times)
    assert before.rot.tobytes() == after.rot.tobytes() and before.pos.tobytes() == after.pos.tobytes()


def test_rewrite_of_an_archive_rewrites_its_models(capsys, paths, tmp_path):
    out = tmp_path / "out.rlb"
    assert cli.main(["rewrite", paths["rlb"], str(out), "--canonical"]) == 0
    assert out.read_bytes() == Path(paths["rlb"]).read_bytes()  # the sample is canonical already


def test_rewrite_refuses_bad_data_and_leaves_no_output(capsys, tmp_path):
    bad = tmp_path / "bad.msh"
    bad.write_bytes(triangle_model([(0, 0xFFFF, 0, 9)], [(0, 0, 0, 0, *I)], [0], 1))
    target = tmp_path / "never.msh"
    assert cli.main(["rewrite", str(bad), str(target)]) == 1
    _, err = capsys.readouterr()
    assert "Res1[0]" in err and "Traceback" not in err
    assert not target.exists() and list(tmp_path.iterdir()) == [bad]
