"""Adversarial inputs: names that do not decode, aliasing directories, CLI edge values."""

import json
import os

import pytest
from fixtures import aliasing_archive, nres
from fixtures import run_cli as run

from core.container.nres import MODEL_TYPE_ID, Archive, name_bytes, name_text
from core.files import read_container, validate_container
from core.msh.model import Model


# --------------------------------------------------------------------- names
def test_every_name_byte_survives_text_and_back():
    raw = bytes(range(1, 256))
    text = name_text(raw)
    assert all(ord(c) >= 0x20 and c != "\x7f" for c in text) and name_bytes(text) == raw
    assert name_text(b"tank\x98.msh") == "tank\\x98.msh" and name_text(b"a\\b") == "a\\\\b"
    assert name_bytes("plain\\name") == b"plain\\name"  # a lone backslash typed by hand stays a backslash
    with pytest.raises(Exception, match="cannot be stored in code page 1251"):
        name_bytes("日本.msh")


@pytest.fixture
def odd_names(tmp_path, sample_msh):
    path = tmp_path / "odd.rlb"
    path.write_bytes(nres([(MODEL_TYPE_ID, b"tank\x98.msh", sample_msh, 0, 0, 0),
                           (0x12345678, b"esc\x1b[31mred\nline", b"x", 0, 0, 0)]))
    return path


def test_undecodable_and_control_bytes_in_names_do_not_block_the_archive(capsys, odd_names, tmp_path, sample_msh):
    code, out, _ = run(capsys, "info", str(odd_names))
    assert code == 0 and "tank\\x98.msh" in out and "esc\\x1b[31mred\\x0aline" in out and "\x1b" not in out
    code, out, _ = run(capsys, "info", str(odd_names), "--json")
    info = json.loads(out)
    assert [e["name"] for e in info["entries"]] == ["tank\\x98.msh", "esc\\x1b[31mred\\x0aline"]
    assert info["models"][0]["name"] == "tank\\x98.msh"
    assert run(capsys, "extract", str(odd_names), "tank\\x98.msh", "-o", str(tmp_path / "m.msh"))[0] == 0
    assert (tmp_path / "m.msh").read_bytes() == sample_msh
    assert run(capsys, "rewrite", str(odd_names), str(tmp_path / "copy.rlb"))[0] == 0
    assert (tmp_path / "copy.rlb").read_bytes() == odd_names.read_bytes()
    assert run(capsys, "sample", str(odd_names), "--entry", "TANK\\x98.MSH", "--times", "0")[0] == 0
    assert run(capsys, "validate", str(odd_names))[0] == 0


def test_equal_names_are_addressed_by_index(capsys, tmp_path, sample_msh):
    from fixtures import generated

    path = tmp_path / "dup.rlb"
    path.write_bytes(nres([(MODEL_TYPE_ID, "a.msh", sample_msh, 0, 0, 0),
                           (MODEL_TYPE_ID, "A.msh", generated(3, node_count=2), 0, 0, 0)]))
    code, out, _ = run(capsys, "info", str(path), "--entry", "#1", "--json")
    assert code == 0 and json.loads(out)["models"][0]["node_count"] == 2
    code, out, _ = run(capsys, "info", str(path), "--json")
    assert [m["node_count"] for m in json.loads(out)["models"]] == [6, 2]


def test_file_names_that_are_not_utf8_print_escaped(capsys, tmp_path, sample_msh):
    raw = os.path.join(os.fsencode(tmp_path), b"caf\xe9\x1b.msh")
    with open(raw, "wb") as handle:
        handle.write(sample_msh[:-3])  # truncated: an error message must name the file
    code, _, err = run(capsys, "validate", os.fsdecode(raw))
    assert code == 1 and "caf\\xe9\\x1b.msh" in err and "\x1b" not in err


def test_non_utf8_file_name_imports(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    raw = os.path.join(os.fsencode(tmp_path), b"caf\xe9.msh")
    with open(raw, "wb") as handle:
        handle.write(sample_msh)
    assert bpy.ops.import_scene.parkan_msh(filepath=os.fsdecode(raw)) == {"FINISHED"}
    (root,) = [o for o in bpy.data.objects if "msh_model" in o]
    assert root.name == "caf\\xe9.msh" and root["msh_source_path"].endswith("caf\\xe9.msh")


# --------------------------------------------------------------------- aliasing directories
def test_aliasing_entries_are_read_once_and_warned_about(capsys, monkeypatch, sample_msh):
    data = aliasing_archive(sample_msh, 2000)
    container = read_container(data, "alias.rlb")
    assert sum(e.alias_of is not None for e in container.archive.entries) == 1999
    parsed = []
    original = Model.parse.__func__
    monkeypatch.setattr(Model, "parse", classmethod(lambda cls, *a, **k: parsed.append(1) or original(cls, *a, **k)))
    findings = validate_container(container)
    assert len(parsed) == 1  # work per payload, not per directory record
    assert [f.message for f in findings if f.index == 1] == ["payload shares bytes with entry 0"]
    assert "1999 entries share payload bytes" in findings[10].message
    assert Archive.parse(data).to_bytes() == data


def test_partly_overlapping_payloads_are_warned_about(sample_msh):
    data = nres([(5, "a", bytes(32), 0, 0, 0), (5, "b", b"", 0, 0, 0)], offsets=[16, 24], sizes=[32, 8])
    archive = Archive.parse(data)
    assert [(f.index, f.message) for f in archive.findings] == [(1, "payload shares bytes with entry 0")]
    assert archive.entries[1].alias_of is None  # not the same bytes: not an alias


def test_import_of_an_aliasing_archive_makes_one_model(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    path = tmp_path / "alias.rlb"
    path.write_bytes(aliasing_archive(sample_msh, 1000))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    assert len([o for o in bpy.data.objects if "msh_model" in o]) == 1


# --------------------------------------------------------------------- CLI edges
@pytest.mark.parametrize("times", ["--frames=nan:1", "--frames=0:inf", "--frames=0:10:nan", "--times=1,nan",
                                   "--times=-inf", "--frames=0:10:0"])
def test_non_finite_or_empty_sampling_ranges_are_usage_errors(capsys, times):
    code, _, err = run(capsys, "sample", "samples/sample.msh", times)
    assert code == 2 and err.startswith("usage error:")


def nan_model(sample_msh) -> bytes:
    model = Model.parse(sample_msh)
    keys = model.keys.copy()
    keys["pos"][1] = float("nan")
    keys["pos"][2] = float("inf")
    model.set_stream(8, keys.tobytes())
    return model.to_bytes()


def test_json_never_holds_nan_and_numpy_stays_quiet(capsys, tmp_path, sample_msh):
    path = tmp_path / "nan.msh"
    path.write_bytes(nan_model(sample_msh))
    code, out, err = run(capsys, "sample", str(path), "--frames", "0:9", "--nodes", "0", "--json")
    assert code == 0 and err == ""  # no RuntimeWarning from numpy
    values = json.loads(out, parse_constant=lambda c: pytest.fail(f"JSON holds {c}"))
    positions = [s["pos"][0] for s in values["nodes"][0]["samples"]]
    assert "NaN" in positions and "Infinity" in positions


def test_sample_streams_a_million_times(tmp_path):
    import subprocess
    import sys

    # The peak is read from VmHWM: ru_maxrss would carry over the (Blender-sized) test process's peak at the fork.
    command = [sys.executable, "-c", "import sys, re; sys.argv = ['core', 'sample', 'samples/sample.msh',"
               " '--frames', '0:1000000', '--nodes', '1', '--json']; "
               "import core.cli.main as c; code = c.main(sys.argv[1:]); "
               "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1], file=sys.stderr); "
               "sys.exit(code)"]
    out = tmp_path / "out.json"
    with open(out, "w") as handle:
        result = subprocess.run(command, stdout=handle, stderr=subprocess.PIPE, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    peak_kib = int(result.stderr.strip().splitlines()[-1])
    assert peak_kib < 400 * 1024  # streamed: far below the ~7.8 GB of building the whole answer
    assert len(json.loads(out.read_text())["nodes"][0]["samples"]) == 1_000_000


def test_devices_folders_and_fifos_are_refused(capsys, tmp_path):
    fifo = tmp_path / "pipe.msh"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(tmp_path), str(fifo)):
        code, _, err = run(capsys, "info", path)
        assert code == 2 and "not a regular file" in err


def test_batch_rejects_a_zero_size(tmp_path):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "io_msh/batch/__main__.py", "thumbnails", "samples/sample.msh", "-o",
                             str(tmp_path), "--size", "0"], capture_output=True, text=True)
    assert result.returncode == 2 and "must be a whole number above 0" in result.stderr


# --------------------------------------------------------------------- atomic writes
def leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path):
    from core.disk import write_atomic

    target = tmp_path / "m.msh"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o640
    previous = os.umask(0o027)
    try:
        write_atomic(tmp_path / "fresh.msh", b"x")
    finally:
        os.umask(previous)
    assert ((tmp_path / "fresh.msh").stat().st_mode & 0o777) == 0o640  # 0o666 less the umask, not mkstemp's 0o600


def test_a_symlinked_target_is_written_through(tmp_path):
    from core.disk import write_atomic

    real = tmp_path / "real.msh"
    real.write_bytes(b"old")
    link = tmp_path / "link.msh"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new" and not leftovers(tmp_path)


def test_a_read_only_target_is_refused_unless_forced(tmp_path, capsys, sample_msh):
    from core.disk import write_atomic

    target = tmp_path / "ro.msh"
    target.write_bytes(b"precious")
    target.chmod(0o444)
    with pytest.raises(PermissionError) as caught:
        write_atomic(target, b"new")
    assert caught.value.filename == str(target) and "read-only" in str(caught.value)
    assert target.read_bytes() == b"precious"
    (tmp_path / "in.msh").write_bytes(sample_msh)
    code, _, err = run(capsys, "rewrite", str(tmp_path / "in.msh"), str(target))
    assert code == 2 and "ro.msh: the file is read-only" in err
    assert run(capsys, "rewrite", str(tmp_path / "in.msh"), str(target), "--force")[0] == 0
    assert target.read_bytes() == sample_msh and (target.stat().st_mode & 0o777) == 0o444


@pytest.mark.parametrize("interruption", ["sigterm", "ctrl-c"])
def test_an_interrupted_write_leaves_the_target_and_no_temporary(tmp_path, monkeypatch, interruption):
    import signal

    from core import disk

    target = tmp_path / "m.msh"
    target.write_bytes(b"old")

    def interrupted(fd):
        if interruption == "sigterm":
            os.kill(os.getpid(), signal.SIGTERM)
        raise KeyboardInterrupt

    monkeypatch.setattr(disk.os, "fsync", interrupted)
    with pytest.raises(disk.Terminated if interruption == "sigterm" else KeyboardInterrupt):
        disk.write_atomic(target, b"new")
    assert target.read_bytes() == b"old" and not leftovers(tmp_path)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the handler is put back


def test_errors_name_the_target_not_the_temporary(tmp_path, monkeypatch):
    import errno

    from core import disk

    def failing_replace(source, destination):
        raise OSError(errno.EXDEV, "Invalid cross-device link", source)

    monkeypatch.setattr(disk.os, "replace", failing_replace)
    with pytest.raises(OSError) as caught:
        disk.write_atomic(tmp_path / "m.msh", b"new")
    assert caught.value.filename == str(tmp_path / "m.msh") and not leftovers(tmp_path)


# --------------------------------------------------------------------- export names
@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_node_names_cp1251_cannot_hold_are_refused_naming_the_object(blender, tmp_path, node_mode):
    from test_export import build_rig

    bpy = blender.bpy
    root = build_rig(bpy, node_mode)
    if node_mode == "ARMATURE":
        root.data.bones["spine"].name = "背骨"
    else:
        bpy.data.objects["spine"].name = "背骨"
    target = tmp_path / "rig.msh"
    with pytest.raises(RuntimeError, match="node '背骨': the name '背骨' cannot be stored in code page 1251"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not target.exists() and not list(tmp_path.iterdir())


def test_an_archive_entry_name_cp1251_cannot_hold_is_refused(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    (tmp_path / "m.msh").write_bytes(sample_msh)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "m.msh")) == {"FINISHED"}
    with pytest.raises(RuntimeError, match=r"units\.rlb: NRes: error: name '戦車\.msh': '戦' cannot be stored"):
        bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "units.rlb"), entry="戦車.msh")
    assert not (tmp_path / "units.rlb").exists()


def test_odd_stored_names_survive_a_geometry_edit_byte_for_byte(blender, tmp_path, sample_msh):
    bpy = blender.bpy
    model = Model.parse(sample_msh)
    names = model.node_names_raw.copy()
    names[0] = b"N" * 32             # fills all 32 bytes: no NUL
    names[2] = b"gun\x98"            # a byte cp1251 does not define
    model.set_stream(9, names.tobytes())
    source = model.to_bytes()
    (tmp_path / "odd.msh").write_bytes(source)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "odd.msh")) == {"FINISHED"}
    gun = next(o for o in bpy.data.objects if o.type == "MESH" and o["msh_node_index"] == 2)
    gun.data.vertices[0].co.x += 0.25  # a geometry edit: the geometry streams are rebuilt
    assert bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "out.msh")) == {"FINISHED"}
    written = Model.parse((tmp_path / "out.msh").read_bytes())
    assert bytes(written.data(9)) == bytes(Model.parse(source).data(9))
    assert bytes(written.data(3)) != bytes(Model.parse(source).data(3))


# --------------------------------------------------------------------- batch outputs and workers
def batch_run(*args, env=None, timeout=300):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "io_msh/batch/__main__.py", *args], capture_output=True, text=True,
                            timeout=timeout, env={**os.environ, **(env or {})})
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


@pytest.fixture
def many_names(tmp_path, sample_msh):
    from fixtures import generated

    entries = [(MODEL_TYPE_ID, f"d{i}/m.msh", generated(i, node_count=2 + i), 0, 0, 0) for i in range(4)]
    entries += [(MODEL_TYPE_ID, name, generated(10 + n, node_count=5 + n), 0, 0, 0)
                for n, name in enumerate(("a.msh", "A.msh", "a.MSH", "tank;b.msh"))]
    path = tmp_path / "units.rlb"
    path.write_bytes(nres(entries))
    return path


def test_batch_outputs_are_unique_and_each_holds_its_own_model(many_names, tmp_path):
    import re

    out = tmp_path / "out"
    result = batch_run("import", str(many_names), "-o", str(out), "--jobs", "2")
    assert result.returncode == 0, result.stdout
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(["units_d0_m.blend", "units_d1_m.blend", "units_d2_m.blend", "units_d3_m.blend",
                              "units_a.blend", "units_A_2.blend", "units_a_3.blend", "units_tank_b.blend"])
    mapping = dict(re.findall(r"units\.rlb:(\S+): -> \S+/(\S+\.blend)", result.stdout))
    assert mapping["A.msh"] == "units_A_2.blend" and mapping["tank;b.msh"] == "units_tank_b.blend"
    again = batch_run("export", str(out), "-o", str(tmp_path / "msh"))
    assert again.returncode == 0, again.stdout
    archive = read_container(many_names.read_bytes(), "units.rlb").archive
    for entry_index, blend in ((5, "units_A_2"), (7, "units_tank_b"), (3, "units_d3_m"), (6, "units_a_3")):
        assert (tmp_path / "msh" / f"{blend}.msh").read_bytes() == bytes(archive.entries[entry_index].data)
    batch_run("import", str(many_names), "-o", str(out))  # a second run into the same folder
    assert sorted(p.name for p in out.iterdir()) == written  # overwritten whole: no .blend1, no temporary


@pytest.mark.parametrize(("fault", "reason"), [("crash", "ended unexpectedly (exit code 3)"),
                                               ("hang", "timed out after 5 s")])
def test_a_crashed_or_stalled_worker_fails_only_its_item(many_names, tmp_path, fault, reason):
    result = batch_run("import", str(many_names), "-o", str(tmp_path), "--jobs", "2", "--timeout", "5",
                       env={"IO_MSH_BATCH_FAULT": f"{fault}:A.msh"})
    assert result.returncode == 1
    failed = [line for line in result.stdout.splitlines() if "FAILED" in line]
    assert len(failed) == 1 and "units.rlb:A.msh" in failed[0] and reason in failed[0]
    assert "7 of 8 converted, 1 failed" in result.stdout
