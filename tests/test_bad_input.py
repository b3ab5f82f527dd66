"""Every kind of bad input through the Blender operator, the batch script and the CLI (end to end)."""

import subprocess
import sys
from pathlib import Path

import pytest
from fixtures import generated, nres, triangle_model

from core.container.nres import MODEL_TYPE_ID, Archive

ROOT = Path(__file__).resolve().parent.parent
I = (32767, 0, 0, 0)  # noqa: E741


def corrupt_inputs() -> dict[str, bytes]:
    good = generated(70, node_count=4, frame_count=8)
    huge = bytearray(good)
    huge[8:12] = (0x7FFFFFFF).to_bytes(4, "little")
    offsets = bytearray(good)
    offsets[-8:-4] = (0xFFFFFFF0).to_bytes(4, "little")  # last directory record's data_offset
    nested = Archive()
    nested.add("inner.msh", good[:200] + bytes(8), MODEL_TYPE_ID)
    return {
        "empty.msh": b"",
        "garbage.msh": b"\x13\x37" * 100,
        "short_header.msh": b"NRes\x00\x01",
        "bad_magic.msh": b"SeRN" + good[4:],
        "truncated_tail.msh": good[:-7],
        "huge_count.msh": bytes(huge),
        "offset_past_end.msh": bytes(offsets),
        "invalid_model.msh": triangle_model([(0, 0xFFFF, 0xFFFF, 3)], [(0, 0, 0, 0, *I)], [], 1),
        "bad_nested.rlb": nested.to_bytes(),
        "no_models.rlb": nres([(0x12345678, "t.dat", b"1234", 0, 0, 0)]),  # an entry of a type nobody checks
        "not_nres.rlb": bytes(range(256)),
    }


@pytest.fixture(scope="module")
def bad_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bad")
    for name, data in corrupt_inputs().items():
        (folder / name).write_bytes(data)
    (folder / "good.msh").write_bytes(generated(71, node_count=3, frame_count=6))
    return folder


@pytest.mark.parametrize("name", sorted(corrupt_inputs()))
def test_operator_reports_a_clean_error_and_leaves_nothing(blender, bad_folder, name):
    bpy = blender.bpy
    before = blender.datablock_counts()
    with pytest.raises(RuntimeError) as info:
        bpy.ops.import_scene.parkan_msh(filepath=str(bad_folder / name))
    message = str(info.value)
    assert name in message and "Traceback" not in message
    assert blender.datablock_counts() == before
    # Blender is still usable: a good file imports right after.
    assert bpy.ops.import_scene.parkan_msh(filepath=str(bad_folder / "good.msh")) == {"FINISHED"}


def test_multi_file_import_keeps_the_good_files_and_reports_the_bad(blender, bad_folder):
    bpy = blender.bpy
    files = [{"name": "good.msh"}, {"name": "garbage.msh"}]
    with pytest.raises(RuntimeError, match=r"garbage\.msh: NRes: error: bad magic"):  # an ERROR report raises
        bpy.ops.import_scene.parkan_msh(directory=str(bad_folder), files=files)
    assert [o["msh_model"] for o in bpy.data.objects if "msh_model" in o] == ["good.msh"]


def test_cli_gives_exit_1_and_a_message_for_each(bad_folder):
    for name in sorted(corrupt_inputs()):
        for command in ("info", "validate", "roundtrip"):
            result = subprocess.run([sys.executable, "-m", "core", command, str(bad_folder / name)], cwd=ROOT,
                                    capture_output=True, text=True)
            if name == "no_models.rlb" or (name == "invalid_model.msh" and command != "validate"):
                # not an error: an archive without models; info and a lossless rewrite of an invalid model
                assert result.returncode == 0, (name, command)
                continue
            assert result.returncode == 1, (name, command, result.stdout, result.stderr)
            assert "Traceback" not in result.stderr and str(bad_folder / name) in result.stderr + result.stdout


def test_batch_names_every_bad_file_and_converts_the_good(bad_folder, tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "io_msh" / "batch"), "import", str(bad_folder), "-o",
                             str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    summary = result.stdout[result.stdout.index("summary:"):]
    for name in corrupt_inputs():
        if name == "no_models.rlb":  # an archive with no model, found in a folder: skipped with a line, no failure
            assert f"skipped {bad_folder / name}: the archive holds no model" in result.stdout
        else:
            assert str(bad_folder / name) in summary, name
    assert "1 of" in summary and (tmp_path / "good.blend").exists()


def test_legacy_stride_24_imports_as_data_and_exports_unchanged(blender, tmp_path):
    bpy = blender.bpy
    legacy = triangle_model(bytes(range(24)), [(0, 0, 0, 0, *I)], [], 1, node_stride=24)
    path = tmp_path / "mtcheck.msh"
    path.write_bytes(legacy)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert bytes(root["msh_source"]) == legacy
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == legacy
