"""The batch tool on whole folders: --skip-existing, --models, export back into the .rlb a
model came from (--into-source), and the export's key, tolerance and frame-range options."""

import shutil

import numpy as np
import pytest
from fixtures import generated, static_model
from test_batch import batch, progress

from core.container.nres import MODEL_TYPE_ID, Archive
from core.files import open_container, validate_container
from core.msh.model import Model

WEAR_TYPE = int.from_bytes(b"WEAR", "little")


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("game")
    archive = Archive()
    archive.add("tank.msh", generated(61, node_count=4, frame_count=10), MODEL_TYPE_ID)
    archive.add("tower.msh", static_model(3), MODEL_TYPE_ID)
    archive.add("tank.wea", b"3\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n2 GREEN\r\n", WEAR_TYPE)
    (folder / "units.rlb").write_bytes(archive.to_bytes())
    (folder / "a.msh").write_bytes(generated(60, node_count=5, frame_count=12))
    return folder


def entry_bytes(path, name):
    return bytes(open_container(path).archive.find(name).data)


def test_skip_existing_converts_only_what_is_missing(game, tmp_path):
    out = tmp_path / "out"
    first = batch("import", str(game), "-o", str(out), "--jobs", "2")
    assert first.returncode == 0, first.stdout + first.stderr
    blends = sorted(p.name for p in out.glob("*.blend"))
    assert blends == ["a.blend", "units_tank.blend", "units_tower.blend"]
    stamps = {p.name: p.stat().st_mtime_ns for p in out.glob("*.blend")}
    again = batch("import", str(game), "-o", str(out), "--skip-existing")
    assert again.returncode == 0 and "nothing to do: all 3 outputs exist (--skip-existing)" in again.stdout
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.blend")} == stamps
    (out / "units_tower.blend").unlink()
    third = batch("import", str(game), "-o", str(out), "--skip-existing")
    assert third.returncode == 0, third.stdout
    ok, failed = progress(third)
    assert ok == {f"{game / 'units.rlb'}:tower.msh"} and not failed
    assert f"skipped {game / 'a.msh'}: {out / 'a.blend'} exists (--skip-existing)" in third.stdout
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.blend") if p.name != "units_tower.blend"} == {
        k: v for k, v in stamps.items() if k != "units_tower.blend"}
    assert (out / "units_tower.blend").is_file()


def test_models_patterns_choose_archive_entries_and_export_roots(game, tmp_path):
    out = tmp_path / "blend"
    result = batch("import", str(game / "units.rlb"), str(game / "a.msh"), "-o", str(out), "--models", "TOW*")
    assert result.returncode == 0, result.stdout
    # The patterns choose among an archive's models (as the dialog's Models filter); a bare .msh is itself.
    assert sorted(p.name for p in out.glob("*.blend")) == ["a.blend", "units_tower.blend"]
    msh = tmp_path / "msh"
    result = batch("export", str(out), "-o", str(msh), "--models", "a.*")
    assert result.returncode == 0, result.stdout
    assert sorted(p.name for p in msh.glob("*.msh")) == ["a.msh"]
    assert "nothing exported: no model matches --models 'a.*'" in result.stdout


@pytest.fixture(scope="module")
def edited_once(game, tmp_path_factory):
    """The archive copied, its models imported by the batch, one node of the tank keyed at every frame 0..9 with a
    1 mm zig-zag in its .blend: made once for the module (a batch import is a Blender process); returns the
    copy, the .blend folder and the original archive bytes."""
    import blender_env

    blender_env.register()
    blender_env.clean_scene()
    bpy = blender_env.bpy
    folder = tmp_path_factory.mktemp("edited")
    source = folder / "units.rlb"
    shutil.copy(game / "units.rlb", source)
    blends = folder / "blend"
    result = batch("import", str(source), "-o", str(blends), "--animation", "KEYS")
    assert result.returncode == 0, result.stdout
    bpy.ops.wm.open_mainfile(filepath=str(blends / "units_tank.blend"))
    armature = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    bone = armature.pose.bones[1]
    for frame in range(10):
        bpy.context.scene.frame_set(frame)
        bone.location.x += 0.001 if frame % 2 else -0.001
        bone.keyframe_insert("location", frame=frame)
    bpy.ops.wm.save_as_mainfile(filepath=str(blends / "units_tank.blend"))
    blender_env.clean_scene()
    return source, blends, source.read_bytes()


@pytest.fixture
def edited(edited_once, blender):
    """``edited_once`` with the archive as it was before any test exported into it (the .blend files name it)."""
    source, blends, before = edited_once
    source.write_bytes(before)
    return source, blends, before


def test_export_into_source_replaces_the_entries_atomically(edited, game):
    source, blends, before = edited
    result = batch("export", str(blends), "--into-source", "--jobs", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(f"-> {source}") == 2
    archive = open_container(source).archive
    assert [e.name_str for e in archive.entries] == ["tank.msh", "tower.msh", "tank.wea"]
    assert not any(f.is_error for f in validate_container(open_container(source)))
    # The untouched tower is written back byte for byte; the tank carries the edit.
    assert entry_bytes(source, "tower.msh") == entry_bytes(game / "units.rlb", "tower.msh")
    assert entry_bytes(source, "tank.wea") == entry_bytes(game / "units.rlb", "tank.wea")
    assert entry_bytes(source, "tank.msh") != entry_bytes(game / "units.rlb", "tank.msh")
    assert sorted(p.name for p in source.parent.iterdir()) == ["blend", "units.rlb"]  # no temporary left
    assert source.read_bytes() != before


def test_export_into_source_with_warnings_as_errors_leaves_the_archive(edited):
    source, blends, before = edited
    result = batch("export", str(blends / "units_tank.blend"), "--into-source", "--warnings-as-errors",
                   "--frame-range", "CUSTOM", "--end-frame", "2")  # the keys at frames 3..9 are lost: a warning
    assert result.returncode == 1, result.stdout
    assert "treated as errors (--warnings-as-errors)" in result.stdout and "left as it was" in result.stdout
    assert "keyframe(s) lie outside the exported frames 0..2" in result.stdout
    assert source.read_bytes() == before
    assert sorted(p.name for p in source.parent.iterdir()) == ["blend", "units.rlb"]


def test_export_options_reach_the_exporter(edited, tmp_path):
    _source, blends, _ = edited
    counts = {}
    for name, options in (("default", []),
                          ("coarse", ["--position-tolerance", "10", "--rotation-tolerance", "180"]),
                          ("short", ["--frame-range", "CUSTOM", "--end-frame", "5"])):
        out = tmp_path / name
        result = batch("export", str(blends / "units_tank.blend"), "-o", str(out), *options)
        assert result.returncode == 0, result.stdout + result.stderr
        model = Model.parse((out / "units_tank.msh").read_bytes())
        counts[name] = (len(model.keys), model.frame_count)
    # Frames 0..5 of the edited nodes are written; nodes left unchanged keep their tracks, so the frame count
    # stays and the short export has fewer keys.
    assert counts["short"][1] == counts["default"][1] == 10 and counts["short"][0] < counts["default"][0]
    # The zig-zag needs a key per frame within 0.1 mm; a 10 m tolerance drops them.
    assert counts["coarse"][0] < counts["default"][0]
    assert np.all(np.array([c[0] for c in counts.values()]) > 0)


def test_every_batch_argument_has_help_with_its_default(blender):
    import argparse
    import importlib

    top = importlib.import_module(f"{blender.ext.__name__}.io_msh.batch.cli").build_parser()
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, parser in commands.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help"
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
                assert "default" in action.help, f"{name} {action.option_strings}: default not shown"
