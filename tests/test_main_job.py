"""``scripts/main_job.py``: it keeps the user's files and samples every model."""

import subprocess
import sys
from pathlib import Path

import numpy as np
from fixtures import generated
from PIL import Image

from core.authoring.build import build_model
from core.container.nres import Archive

ROOT = Path(__file__).resolve().parent.parent
PICTURE_TOLERANCE = 3.0  # mean difference (of 255) a render may have from the committed picture (Blender versions)


def test_main_job_on_a_two_model_archive_samples_each_and_keeps_the_users_files(tmp_path, sample_rlb):
    archive = Archive.parse(sample_rlb)
    archive.add("second.msh", generated(3, node_count=1))  # one node: sampling nodes 0,1 would fail
    target = tmp_path / "two.rlb"
    target.write_bytes(archive.to_bytes())
    out = tmp_path / "out"
    (out / "main_job").mkdir(parents=True)
    kept = [out / "scene.blend", out / "main_job" / "notes.txt", out / "blend" / "mine.blend"]
    kept[2].parent.mkdir()
    for path in kept:
        path.write_bytes(b"the user's")
    stale = out / "main_job" / "msh" / "old.msh"  # a previous run's output: replaced
    stale.parent.mkdir()
    stale.write_bytes(b"old")
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "main_job.py"), str(target),
                             "--out", str(out / "main_job")], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stdout + result.stderr
    assert all(path.read_bytes() == b"the user's" for path in kept)
    assert not stale.exists()
    assert f"sample {target} --entry '#0' --times 0,10.5,20,40 --nodes 0,1" in result.stdout
    assert f"sample {target} --entry '#3' --times 0,10.5,20,40 --nodes 0" in result.stdout
    assert result.stdout.count("node 0 ") == 2
    for name in ("two_sample", "two_second"):
        assert (out / "main_job" / "blend" / f"{name}.blend").is_file()
        assert f"{name}: " in result.stdout and "round trip byte-identical" in result.stdout
    assert "main job: OK" in result.stdout



def _make_sample():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_sample", ROOT / "scripts" / "make_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bundled_samples_are_what_make_sample_writes(sample_msh, sample_rlb):
    """scripts/make_sample.py is the samples' only source: the files in samples/ must not drift from it (they
    did once, when the writer's slot volume word changed), and samples/ holds nothing else. The samples wear the
    robot look: the plain sample's nodes, animation and materials in new shapes, libraries with painted textures."""
    from core.authoring.synth import WALKER_SHAPES, dress, robot_libraries, sample_model
    from core.msh.model import Model

    samples = ROOT / "samples"
    files = _make_sample().sample_files()
    held = {p.relative_to(samples).as_posix() for p in samples.rglob("*") if p.is_file()}
    assert held == set(files)
    assert [path for path, data in files.items() if (samples / path).read_bytes() != data] == []
    assert (samples / "sample.msh").read_bytes() == build_model(dress(sample_model(), WALKER_SHAPES)).to_bytes()
    shipped, plain = Model.parse((samples / "sample.msh").read_bytes()), Model.parse(sample_msh)
    names = [plain.node_name(i) for i in range(plain.node_count)]
    assert [shipped.node_name(i) for i in range(shipped.node_count)] == names == ["body", "turret", "gun", "antenna",
                                                                               "leg_l", "leg_r"]
    assert [e.name_str for e in Archive.parse((samples / "sample.rlb").read_bytes())] == \
        [e.name_str for e in Archive.parse(sample_rlb)]
    for name, archive in robot_libraries().items():
        assert (samples / name).read_bytes() == archive.to_bytes(), name
    assert {"walker/walker.msh", "walker/walker.ctl", "walker/walker.wea", "tower.rlb",
            "unit/UNITS/SYNTH/synth_unit.dat", "unit/objects.rlb", "unit/synth_parts.rlb"} <= set(files)


def test_make_sample_takes_help_and_check_without_writing():
    samples = ROOT / "samples"
    before = {p: p.stat().st_mtime_ns for p in samples.rglob("*") if p.is_file()}
    script = [sys.executable, str(ROOT / "scripts" / "make_sample.py")]
    shown = subprocess.run([*script, "--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and "usage: make_sample.py" in shown.stdout and "--check" in shown.stdout
    checked = subprocess.run([*script, "--check"], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout
    assert {p: p.stat().st_mtime_ns for p in samples.rglob("*") if p.is_file()} == before


def test_the_feature_tour_imports_pictures_and_exports_back_each_sample(tmp_path):
    """The main job's Blender steps on the feature samples: the unit and the walker back byte for byte, the
    clips made, the pictures written."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "main_job_features.py"), str(tmp_path)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    assert "unit synth_unit.dat: 8 parts imported, 7 mounted on their sockets" in out
    assert "unit synth_unit.dat: exported back with Export Unit, 7 files byte-identical: ok" in out
    assert "walker walker.msh: 3 clips made from walker.ctl: run 2 (" in out and "3 channel sliders" in out
    assert "walker walker.msh: exported back over the timeline, walker.msh and walker.ctl byte-identical: ok" in out
    assert "tower tower.rlb: 7 stages and LODs imported" in out and "FAILED" not in out
    assert "mission data.tma: exported back with Export Parkan Map, 16 files byte-identical: ok" in out
    assert "building synth_hall.dat: its hall way (8 vertices, 10 links) and ground plan (16 corners" in out
    assert "building synth_hall.dat: exported back with Export Unit, 3 files byte-identical: ok" in out
    assert "its sky as the World 'SAMPLE sky' at section 0 keyframe 1 (00:30) (SAMPLE sun, SAMPLE sun counter " \
           "light); its briefing: 6 waypoints" in out
    for name in ("unit_assembled", "walker_mid_stride", "tower_stage_0", "tower_stage_1", "tower_stage_2",
                 "mission_from_above"):
        assert (tmp_path / "thumbnails" / f"{name}.png").stat().st_size > 1000, name
    # the README's first pictures (docs/pictures/) are these thumbnails: refreshed with --pictures docs/pictures
    # whenever a generator changes how a sample looks
    for name in ("walker_mid_stride", "unit_assembled", "mission_from_above"):
        made = np.asarray(Image.open(tmp_path / "thumbnails" / f"{name}.png").convert("RGB"), np.float64)
        kept = np.asarray(Image.open(ROOT / "docs" / "pictures" / f"{name}.png").convert("RGB"), np.float64)
        assert made.shape == kept.shape and np.abs(made - kept).mean() < PICTURE_TOLERANCE, name


def test_the_main_job_reports_every_step_of_the_feature_tour():
    """scripts/main_job.py keeps the tour's lines by the names of its steps: each step the tour runs is kept (a
    step's line, its FAILED too, would otherwise be dropped from the summary)."""
    import ast

    tour = ast.parse((ROOT / "scripts" / "main_job_features.py").read_text())
    ran = next(tuple(e.id for e in node.iter.elts) for node in ast.walk(tour)
               if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == "step")
    job = ast.parse((ROOT / "scripts" / "main_job.py").read_text())
    kept = next(ast.literal_eval(node.value) for node in ast.walk(job)
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "steps"
                and isinstance(node.value, ast.Tuple))
    assert set(ran) == set(kept), (ran, kept)
