"""What a new user meets in the first hour, outside Blender: the command line's ranges, the batch's folders,
the contact sheet's labels, the main job's outputs, the Russian manual against the interface's words."""

from pathlib import Path

import pytest
from fixtures import run_cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("weight", ["2", "-0.5", "1.0001"])
def test_blend_refuses_a_weight_outside_0_to_1(capsys, weight):
    code, out, err = run_cli(capsys, "blend", ROOT / "samples" / "sample.msh", "--node", "0", "--ta", "0",
                             "--tb", "1", f"--weight={weight}")
    assert code == 2 and err.startswith("usage error:") and "outside 0 to 1" in err and out == ""


@pytest.mark.parametrize("weight", ["0", "1", "0.25"])
def test_blend_takes_a_weight_from_0_to_1(capsys, weight):
    code, _, err = run_cli(capsys, "blend", ROOT / "samples" / "sample.msh", "--node", "0", "--ta", "0",
                           "--tb", "1", f"--weight={weight}")
    assert code == 0, err


def test_batch_textures_keeps_the_folders_of_a_game_folder(tmp_path):
    """Three Textures.lib in three folders: three folders of PNGs, as convert and thumbnails keep them, not
    BODY.0.png, BODY.0_2.png, BODY.0_3.png in one."""
    from test_batch import batch

    from core.authoring.synth import sample_libraries

    game = tmp_path / "game"
    library = sample_libraries()["Textures.lib"]
    for folder in ("", "a", "b/c"):
        (game / folder).mkdir(parents=True, exist_ok=True)
        (game / folder / "Textures.lib").write_bytes(library.to_bytes())
    result = batch("textures", str(game), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stdout + result.stderr
    names = sorted(e.name_str for e in library)
    written = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*.png"))
    assert written == sorted(f"{folder}Textures/{name}.png" for folder in ("", "a/", "b/c/") for name in names)


def test_main_job_on_a_file_keeps_the_feature_tours_outputs(tmp_path, monkeypatch):
    """`main.sh FILE` replaces blend/, thumbnails/, msh/, textures/ and leaves an earlier tour's walker/, unit/
    and maps/, which it does not make again."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("main_job", ROOT / "scripts" / "main_job.py")
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    out = tmp_path / "main_job"
    for folder in ("blend", "thumbnails", "msh", "textures", "walker", "unit", "maps"):
        (out / folder).mkdir(parents=True)
        (out / folder / "earlier").write_bytes(b"an earlier run's")
    ran = []
    monkeypatch.setattr(job, "core_steps", lambda target, libraries: 0)
    monkeypatch.setattr(job, "batch", lambda *args: ran.append(args[0]) or 0)
    monkeypatch.setattr(job, "feature_steps", lambda out: pytest.fail("the tour runs only without a file"))
    job.main([str(ROOT / "samples" / "sample.msh"), "--out", str(out)])
    assert ran == ["import", "thumbnails", "textures", "export"]
    assert sorted(p.parent.name for p in out.rglob("earlier")) == ["maps", "unit", "walker"]
