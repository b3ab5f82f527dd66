"""``scripts/main_job.py`` (issue 19, items 3 and 7): it keeps the user's files and samples every model."""

import subprocess
import sys
from pathlib import Path

from fixtures import generated

from core.container.nres import Archive

ROOT = Path(__file__).resolve().parent.parent


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
    assert f"sample {target} --entry #0 --times 0,10.5,20,40 --nodes 0,1" in result.stdout
    assert f"sample {target} --entry #3 --times 0,10.5,20,40 --nodes 0" in result.stdout
    assert result.stdout.count("node 0 ") == 2
    for name in ("two_sample", "two_second"):
        assert (out / "main_job" / "blend" / f"{name}.blend").is_file()
        assert f"{name}: " in result.stdout and "round trip byte-identical" in result.stdout
    assert "main job: OK" in result.stdout



def test_the_bundled_samples_are_what_make_sample_writes(sample_msh, sample_rlb):
    """scripts/make_sample.py is the samples' only source: the files in samples/ must not drift from it (they
    did once, when the writer's slot volume word changed)."""
    from core.authoring.synth import sample_libraries

    samples = Path(__file__).resolve().parent.parent / "samples"
    assert (samples / "sample.msh").read_bytes() == sample_msh
    assert (samples / "sample.rlb").read_bytes() == sample_rlb
    for name, archive in sample_libraries().items():
        assert (samples / name).read_bytes() == archive.to_bytes(), name
