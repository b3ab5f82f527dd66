"""``python -m core`` against careless and hostile use."""

import json
import resource
import signal
import struct
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from fixtures import generated
from fixtures import run_cli as run

from core.appearance.mat0 import MAT0_TYPE_ID, Material, phase, validate_mat0
from core.appearance.texm import HEADER, TEXM_TYPE_ID, encode_texm, parse_texm, pixel_count, validate_texm
from core.authoring.synth import checker, sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive
from core.files import read_container, validate_container

ROOT = Path(__file__).resolve().parent.parent




def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def core_process(*args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "core", *map(str, args)], cwd=ROOT, stderr=subprocess.PIPE,
                            **kwargs)


@pytest.fixture
def textures(tmp_path) -> Path:
    path = tmp_path / "Textures.lib"
    path.write_bytes(sample_libraries()["Textures.lib"].to_bytes())
    return path


# --------------------------------------------------------------------- -o where it cannot go
@pytest.mark.parametrize("command", ["extract", "texture", "rewrite"])
def test_an_output_that_is_a_folder_or_lies_under_a_file_is_a_clean_error(capsys, tmp_path, textures, command,
                                                                         sample_rlb):
    (tmp_path / "in.rlb").write_bytes(sample_rlb)
    folder = tmp_path / "taken"
    folder.mkdir()
    for output, reason in ((folder, "is a folder"), (textures / "x.png", "Not a directory"),
                           (tmp_path / "missing" / "x.png", "No such file or directory")):
        args = {"extract": ["extract", tmp_path / "in.rlb", "sample.msh", "-o", output],
                "texture": ["texture", textures, "BODY.0", "-o", output],
                "rewrite": ["rewrite", tmp_path / "in.rlb", output]}[command]
        code, _, err = run(capsys, *args)
        assert code == 2 and err.startswith(f"{output}: {reason}") and err.count("\n") == 1, err
    assert not leftovers(tmp_path) and not list(folder.iterdir())


@pytest.mark.parametrize("command", ["extract", "texture"])
def test_an_output_that_is_the_input_is_refused(capsys, tmp_path, textures, command):
    before = textures.read_bytes()
    link = tmp_path / "link.lib"
    link.symlink_to(textures)
    for output in (textures, link):
        code, _, err = run(capsys, command, textures, "BODY.0", "-o", output)
        assert code == 2 and err == f"usage error: -o {output} is the file being read ({textures}); name another " \
                                    "file\n"
    assert textures.read_bytes() == before


# --------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_exits_130_without_a_traceback_or_a_temporary(capsys, tmp_path, monkeypatch, sample_rlb):
    from core import disk

    (tmp_path / "in.rlb").write_bytes(sample_rlb)
    target = tmp_path / "out.msh"

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(disk.os, "fsync", interrupted)
    code, _, err = run(capsys, "extract", tmp_path / "in.rlb", "sample.msh", "-o", target)
    assert code == 130 and err == "interrupted\n"
    assert not target.exists() and not leftovers(tmp_path)


def test_ctrl_c_in_a_real_process(tmp_path, sample_msh):
    """As a terminal's Ctrl-C reaches it: SIGINT at its default in the process (a suite started in the background
    by a shell without job control ignores SIGINT, and the process would inherit that), its output going to a pipe
    read only until 10 kB have come, so that it cannot finish before the interrupt."""
    (tmp_path / "m.msh").write_bytes(sample_msh)
    process = core_process("sample", tmp_path / "m.msh", "--frames", "0:1000000", stdout=subprocess.PIPE,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    received = 0
    while received < 10_000:
        chunk = process.stdout.read1(65536)
        if not chunk:  # it ended: the assertion says how
            break
        received += len(chunk)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and b"Traceback" not in err and err == b"interrupted\n", (process.returncode,
                                                                                               err[-500:])


def test_ctrl_c_while_the_modules_load(tmp_path, sample_msh):
    """Ctrl-C in the first fraction of a second, while Python loads numpy and the library: the same exit 130 and
    the line "interrupted", never a traceback (or the command had already finished)."""
    (tmp_path / "m.msh").write_bytes(sample_msh)
    # Before the package's first line runs (the interpreter and runpy's search for the module) a signal ends
    # Python itself, not the command: the moments start once ``python -m`` of an empty module would have ended,
    # as measured now (a loaded machine starts slower).
    (tmp_path / "empty_module.py").write_text("")
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "empty_module"], check=True, cwd=tmp_path)
    start = max(0.03, 1.5 * (time.perf_counter() - began))
    codes = []
    for delay in (start, start + 0.03, start + 0.07, start + 0.12, start + 0.17, start + 0.27):
        process = core_process("info", tmp_path / "m.msh", stdout=subprocess.DEVNULL,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert (process.returncode, err) in ((130, b"interrupted\n"), (0, b"")), (delay, process.returncode, err)
        codes.append(process.returncode)
    assert 130 in codes


# --------------------------------------------------------------------- | head
def test_a_closed_pipe_ends_quietly(sample_msh, tmp_path):
    (tmp_path / "m.msh").write_bytes(sample_msh)
    process = core_process("sample", tmp_path / "m.msh", "--frames", "0:1000000", stdout=subprocess.PIPE)
    assert process.stdout.readline().startswith(b"frame_count")
    process.stdout.close()  # what `| head -1` does once it has its line
    _, err = process.communicate(timeout=60)
    assert process.returncode == 141 and err == b""


# --------------------------------------------------------------------- write errors name the target
def test_a_write_over_the_file_size_limit_names_the_target(tmp_path):
    big = Archive()
    big.add("big.bin", bytes(300_000), 5)
    (tmp_path / "big.rlb").write_bytes(big.to_bytes())
    target = tmp_path / "big.bin"

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write then fails with EFBIG ("File too large")
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    result = subprocess.run([sys.executable, "-m", "core", "extract", str(tmp_path / "big.rlb"), "big.bin", "-o",
                             str(target)], cwd=ROOT, capture_output=True, text=True, preexec_fn=limit_file_size)
    assert result.returncode == 2 and result.stderr == f"{target}: File too large\n"
    assert not target.exists() and not leftovers(tmp_path)


# --------------------------------------------------------------------- texture -o: the atomic writer
def test_texture_output_follows_the_rules_of_every_output(capsys, tmp_path, textures):
    png = tmp_path / "ro.png"
    png.write_bytes(b"the user's")
    png.chmod(0o444)
    code, _, err = run(capsys, "texture", textures, "BODY.0", "-o", png)
    assert code == 2 and err == f"{png}: the file is read-only (force to replace it)\n"
    assert png.read_bytes() == b"the user's"
    assert run(capsys, "texture", textures, "BODY.0", "-o", png, "--force")[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and (png.stat().st_mode & 0o777) == 0o444
    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    link = tmp_path / "link.png"
    link.symlink_to(real)
    assert run(capsys, "texture", textures, "METAL.0", "-o", link)[0] == 0
    assert link.is_symlink() and real.read_bytes()[:4] == b"\x89PNG" and not leftovers(tmp_path)


# --------------------------------------------------------------------- #N names an entry everywhere
def test_hash_n_names_any_entry(capsys, tmp_path, textures, sample_rlb):
    rlb = tmp_path / "in.rlb"
    rlb.write_bytes(sample_rlb)
    archive = Archive.parse(sample_rlb)
    for index, entry in enumerate(archive.entries):
        out = tmp_path / f"e{index}"
        assert run(capsys, "extract", rlb, f"#{index}", "-o", out)[0] == 0
        assert out.read_bytes() == bytes(entry.data)
    code, _, err = run(capsys, "extract", rlb, f"#{len(archive.entries)}", "-o", tmp_path / "x")
    assert code == 2 and "no entry named '#3'" in err and not (tmp_path / "x").exists()
    assert run(capsys, "texture", textures, "#1", "-o", tmp_path / "m.png")[0] == 0
    expected = parse_texm(sample_libraries()["Textures.lib"].entries[1].data).decode(0)
    from PIL import Image

    with Image.open(tmp_path / "m.png") as png:
        assert np.array_equal(np.asarray(png), expected)
    assert run(capsys, "info", rlb, "--entry", "#0")[0] == 0
    code, _, err = run(capsys, "sample", rlb, "--entry", "#1", "--times", "0")
    assert code == 2 and "entry '#1' (sample.wea) is not a model" in err
    code, _, err = run(capsys, "texture", rlb, "#0", "-o", tmp_path / "y.png")
    assert code == 2 and "sample.msh is a MESH entry, not a texture" in err


# --------------------------------------------------------------------- times finite in float32
@pytest.mark.parametrize("args", [["sample", "--times=1e39"], ["sample", "--times=0,-3.5e38"],
                                  ["sample", "--frames=3.5e38:3.6e38:1e37"],
                                  ["blend", "--node", "0", "--ta", "1e39", "--tb", "0", "--weight", "0.5"],
                                  ["blend", "--node", "0", "--ta", "0", "--tb", "0", "--weight=-1e40"]])
def test_times_that_float32_cannot_hold_are_usage_errors(capsys, args):
    code, out, err = run(capsys, args[0], "samples/sample.msh", *args[1:])
    assert code == 2 and err.startswith("usage error:") and "finite" in err and "nan" not in out


# --------------------------------------------------------------------- one bad model
@pytest.fixture
def one_bad(tmp_path, sample_rlb) -> Path:
    archive = Archive.parse(sample_rlb)
    archive.add("broken.msh", b"NRes" + bytes(20), MODEL_TYPE_ID)
    archive.add("third.msh", generated(4, node_count=2))
    path = tmp_path / "one_bad.rlb"
    path.write_bytes(archive.to_bytes())
    return path


def test_one_bad_model_is_named_and_the_others_still_read(capsys, one_bad):
    container = read_container(one_bad.read_bytes(), str(one_bad))
    models, failures = container.open_models()
    assert [e.name_str for e, _ in models] == ["sample.msh", "third.msh"]
    assert [(e.name_str, exc.findings[0].where) for e, exc in failures] == [("broken.msh", "broken.msh")]
    assert container.open_model("third.msh").node_count == 2
    code, out, err = run(capsys, "info", one_bad)
    assert code == 1
    assert "model sample.msh: 6 nodes" in out and "model third.msh: 2 nodes" in out
    assert err.startswith(f"{one_bad}:broken.msh: NRes: error:")
    code, out, _ = run(capsys, "info", one_bad, "--json")
    payload = json.loads(out)
    assert [m["name"] for m in payload["models"]] == ["sample.msh", "third.msh"]
    assert [m["name"] for m in payload["unreadable_models"]] == ["broken.msh"]


# --------------------------------------------------------------------- MAT0 names
def material_with_name_field(field: bytes) -> Archive:
    record = phase((1, 1, 1, 1), "")
    record["texture"] = field
    material = Material(phases=np.array([record]))
    archive = Archive()
    archive.add("M", material.to_bytes(), MAT0_TYPE_ID, attr2=material.attr2)
    return archive


def test_bytes_after_the_nul_of_a_texture_name_are_not_a_missing_nul():
    (entry,) = material_with_name_field(b"BODY.0\0leftover!").entries
    assert bytes(entry.data).count(b"leftover!") == 1
    assert validate_mat0(entry) == []
    (entry,) = material_with_name_field(b"LONGTEXTURENAME0").entries
    assert [f.message for f in validate_mat0(entry)] == ["texture name fills all 16 bytes without a NUL",
                                                         "texture name 'LONGTEXTURENAME0' has no '.' in its first "
                                                         "17 characters (\"Bad texture name.\")"]


# --------------------------------------------------------------------- texture names its entry
def test_texture_of_an_unknown_format_names_the_entry(capsys, tmp_path):
    data = bytearray(encode_texm(checker(4, (0, 0, 0, 255), (255, 255, 255, 255)), 8888, mips=False).to_bytes())
    struct.pack_into("<I", data, 28, 1234)  # the format field
    archive = Archive()
    archive.add("ODD.0", bytes(data), TEXM_TYPE_ID)
    path = tmp_path / "odd.lib"
    path.write_bytes(archive.to_bytes())
    code, _, err = run(capsys, "texture", path, "odd.0", "-o", tmp_path / "odd.png")
    assert code == 1 and err == f"{path}:ODD.0: Texm: error: format 1234 is not one the game reads\n"
    assert not (tmp_path / "odd.png").exists()


# --------------------------------------------------------------------- absurd mip counts
def texm_header(width: int, height: int, mips: int, fmt: int = 8888) -> bytes:
    return HEADER.pack(b"Texm", width, height, mips, 0, 0, 0, fmt)


def test_a_mip_chain_longer_than_the_picture_allows_is_a_warning_and_kept(capsys, tmp_path):
    """No source checked the mip count against the size (retail-envelope 5.2): the extra 1x1 levels are kept."""
    mips = 4_000_000
    data = texm_header(1, 1, mips, 565) + bytes(2 * mips)  # the pixels the header asks for are there
    tracemalloc.start()
    try:
        findings = validate_texm(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [(f.severity, f.message) for f in findings] == [
        ("warning", "mip count 4000000: a 1x1 chain halves to 1x1 in 1 levels; the further 1x1 levels are kept as "
                    "read")]
    assert peak < len(data) + 1_000_000  # the pixels once; nothing is built per level
    assert parse_texm(data).to_bytes() == data
    archive = Archive()
    archive.add("MANY.0", data, TEXM_TYPE_ID)
    path = tmp_path / "many.lib"
    path.write_bytes(archive.to_bytes())
    code, _, err = run(capsys, "texture", path, "MANY.0", "-o", tmp_path / "many.png")
    assert code == 0, err
    assert (tmp_path / "many.png").exists()
    code, out, _ = run(capsys, "validate", path)
    assert code == 0 and "valid: 0 errors, 1 warnings" in out and "mip count 4000000" in out
    code, out, _ = run(capsys, "validate", "--strict", path)
    assert code == 1 and "refused by the strict profile" in out


@pytest.mark.parametrize(("width", "height", "longest"), [(1, 1, 1), (16, 16, 5), (5, 3, 3), (256, 2, 9)])
def test_the_full_chain_is_the_longest_allowed(width, height, longest):
    texture = encode_texm(np.zeros((height, width, 4), np.uint8), 565)
    assert texture.mip_count == longest
    assert parse_texm(texture.to_bytes()).mip_count == longest
    data = texm_header(width, height, longest + 1, 565) + bytes(2 * pixel_count(width, height, longest + 1))
    assert [f.severity for f in validate_texm(data)] == ["warning"]
    assert parse_texm(data).to_bytes() == data


# --------------------------------------------------------------------- validate on overlapping entries
def test_partly_overlapping_entries_do_not_read_the_shared_bytes_once_per_entry(monkeypatch):
    """2,000 WEAR records over one 256 KB payload, each starting 8 bytes further in: every one is checked,
    and the work stays bounded by what each check needs (the benchmark has the 8,000 x 2 MB case)."""
    from fixtures import nres

    from core.appearance import wear

    payload = (b"1\r\n0 M\r\n" + b"x" * 200 + b"\r\n") * 1000
    payload = payload[:256 * 1024]
    count = 2000
    data = nres([(wear.WEAR_TYPE_ID, f"w{i}.wea", payload if i == 0 else b"", 0, 0, 1) for i in range(count)],
                offsets=[16 + 8 * i for i in range(count)], sizes=[len(payload) - 8 * i for i in range(count)])
    decoded = []
    original = bytes.decode
    monkeypatch.setattr(wear, "_decode", lambda raw: decoded.append(len(raw)) or original(raw, "cp1251", "replace"))
    findings = validate_container(read_container(data, "overlap.rlb"))
    assert sum(f.is_error for f in findings) == count  # each entry checked: text after the list
    assert sum(decoded) < 1000 * count  # a few lines each, not the rest of the 256 KB payload


def test_entries_sharing_a_blank_tail_scan_it_once(monkeypatch):
    """2,000 WEAR records from one start, each ending 8 bytes earlier, over a list and 256 KB of blank lines."""
    from fixtures import nres

    from core.appearance import wear

    payload = b"1\r\n0 M\r\n" + b"\r\n" * (128 * 1024)
    count = 2000
    data = nres([(wear.WEAR_TYPE_ID, f"w{i}.wea", payload if i == 0 else b"", 0, 0, 1) for i in range(count)],
                offsets=[16] * count, sizes=[len(payload) - 8 * i for i in range(count)])
    scanned = []
    original = wear._blank_run
    monkeypatch.setattr(wear, "_blank_run", lambda buffer, start: scanned.append(start) or original(buffer, start))
    findings = validate_container(read_container(data, "tail.rlb"))
    assert [f for f in findings if f.stream == wear.STREAM] == []  # every one valid: a list, then blank lines
    assert len(scanned) == 1
    assert wear.validate_wear(payload + b"x") != [] and wear.validate_wear(payload) == []


@pytest.fixture
def bad_record(tmp_path, sample_msh) -> Path:
    """Entry 1's record points past the data area; entries 0 and 2 are good models, entry 3 a bad WEAR list."""
    from fixtures import nres

    from core.appearance.wear import WEAR_TYPE_ID

    third = generated(4, node_count=2)
    entries = [(MODEL_TYPE_ID, "sample.msh", sample_msh, 0, 0, 0), (MODEL_TYPE_ID, "broken.msh", b"", 0, 0, 0),
               (MODEL_TYPE_ID, "third.msh", third, 0, 0, 0), (WEAR_TYPE_ID, "third.wea", b"0\r\n", 0, 0, 1)]
    sizes = [len(sample_msh), 1 << 20, len(third), 3]
    path = tmp_path / "bad_record.rlb"
    path.write_bytes(nres(entries, sizes=sizes))
    return path


def test_a_bad_directory_record_is_named_and_the_other_entries_still_read(capsys, tmp_path, bad_record):
    from core.errors import FormatError
    from core.files import open_container

    with pytest.raises(FormatError, match="lies outside the data area"):
        open_container(bad_record)  # the default read (what writers use) still refuses the file
    container = open_container(bad_record, tolerant=True)
    assert [e.name_str for e in container.archive.entries] == ["sample.msh", "broken.msh", "third.msh", "third.wea"]
    assert container.open_model("third.msh").node_count == 2
    with pytest.raises(FormatError, match="cannot be written back"):
        container.to_bytes()
    code, out, err = run(capsys, "info", bad_record)
    assert code == 1 and "model sample.msh: 6 nodes" in out and "model third.msh: 2 nodes" in out
    assert err.startswith(f"{bad_record}:broken.msh: entry[1]: error: payload [") and "lies outside the data" in err
    assert err.count("\n") == 1
    code, out, err = run(capsys, "validate", bad_record)
    assert code == 1 and "broken.msh: entry[1]: error: payload" in err and "third.wea: WEAR[1]: error: line 1" in err
    assert run(capsys, "extract", bad_record, "#2", "-o", tmp_path / "third.msh")[0] == 0
    assert (tmp_path / "third.msh").read_bytes() == generated(4, node_count=2)
    code, _, err = run(capsys, "extract", bad_record, "broken.msh", "-o", tmp_path / "broken.msh")
    assert code == 1 and err.startswith(f"{bad_record}:broken.msh: entry[1]: error: payload")
    assert not (tmp_path / "broken.msh").exists()
    code, _, err = run(capsys, "sample", bad_record, "--entry", "#1", "--times", "0")
    assert code == 1 and "broken.msh: entry[1]: error" in err
    assert run(capsys, "list", bad_record)[0] == 1
    code, _, err = run(capsys, "rewrite", bad_record, tmp_path / "out.rlb")
    assert code == 1 and "lies outside the data area" in err and not (tmp_path / "out.rlb").exists()


def test_rewrite_in_place_refuses_a_file_replaced_after_it_was_read(tmp_path, capsys, monkeypatch, sample_msh):
    """``rewrite X X``: another program replaces X after the read; the rewrite must not write over it."""
    import core.cli.poses as cli  # where rewrite reads the file

    target = tmp_path / "m.msh"
    target.write_bytes(sample_msh)

    def read_then_replaced(data, path, *args):
        target.write_bytes(b"the other program's")
        container = read_container(data, path, *args)
        container.to_bytes = lambda: bytes(data) + b"rewritten"  # the rewrite changes the file
        return container

    monkeypatch.setattr(cli, "read_container", read_then_replaced)
    code, _, err = run(capsys, "rewrite", target, target, "--canonical")
    assert code == 2 and "changed on disk after the export read it" in err
    assert target.read_bytes() == b"the other program's"
    monkeypatch.undo()
    # a rewrite that changes nothing writes nothing: the other program's file stays
    monkeypatch.setattr(cli, "read_container", lambda data, path, *args: (
        target.write_bytes(b"the other program's"), read_container(data, path, *args))[1])
    target.write_bytes(sample_msh)
    code, out, _ = run(capsys, "rewrite", target, target)
    assert code == 0 and "unchanged" in out and target.read_bytes() == b"the other program's"
    monkeypatch.undo()
    target.write_bytes(sample_msh)
    code, _, _ = run(capsys, "rewrite", target, tmp_path / "copy.msh")  # another output: no such check
    assert code == 0 and (tmp_path / "copy.msh").is_file()
