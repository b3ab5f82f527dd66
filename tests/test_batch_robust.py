"""io_msh/batch under hostile and careless use: names, result lines, warnings, textures, jobs, exports, Ctrl-C.

Every test here starts real Blender workers; several checks share one run where they can.
"""

import importlib
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from fixtures import EXTENSION_PACKAGE, generated, load_extension, nres, static_model, triangle_model
from PIL import Image

from core.appearance.texm import TEXM_TYPE_ID, encode_texm
from core.authoring.synth import checker, sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive

ROOT = Path(__file__).resolve().parent.parent
BATCH = ROOT / "io_msh" / "batch" / "__main__.py"
WEAR_TYPE_ID = int.from_bytes(b"WEAR", "little")
TANK = "\u0442\u0430\u043d\u043a"  # "tank" in Cyrillic, as cp1251 bytes b"\xf2\xe0\xed\xea" on disk


def batch(*args, env=None, timeout=300, **options):
    result = subprocess.run([sys.executable, str(BATCH), *map(str, args)], capture_output=True, text=True,
                            timeout=timeout, cwd=ROOT, env={**os.environ, **(env or {})}, **options)
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def named(folder: Path, raw: bytes) -> Path:
    """``folder / raw`` for a file name given as bytes (not UTF-8: as a Windows archive unpacked on Linux)."""
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + raw))


def write_libraries(folder: Path) -> None:
    for name, library in sample_libraries().items():
        (folder / name).write_bytes(library.to_bytes())


def progress_lines(result) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith("[")]


# --------------------------------------------------------------------- names that are not UTF-8
def test_names_that_are_not_utf8_work_in_every_command(tmp_path):
    game = named(tmp_path, b"\xe8\xe3\xf0\xe0")  # "igra"
    game.mkdir()
    write_libraries(game)
    model = generated(70, node_count=3, frame_count=6)
    named(game, b"\xf2\xe0\xed\xea.msh").write_bytes(model)
    named(game, b"\xf2\xe5\xea\xf1.lib").write_bytes((game / "Textures.lib").read_bytes())
    out = named(tmp_path, b"\xe2\xfb\xf5\xee\xe4")  # the output folder's name is not UTF-8 either
    shown = r"\xf2\xe0\xed\xea"
    escaped_game = r"\xe8\xe3\xf0\xe0"

    result = batch("import", game, "-o", out / "blend", "--timeout", 60)
    assert result.returncode == 0, result.stdout
    assert f"{escaped_game}/{shown}.msh: -> " in result.stdout
    blend = named(out / "blend", b"\xf2\xe0\xed\xea.blend")
    assert blend.is_file()

    result = batch("export", out / "blend", "-o", out / "msh", "--timeout", 60)
    assert result.returncode == 0, result.stdout
    assert named(out / "msh", b"\xf2\xe0\xed\xea.msh").read_bytes() == model  # unedited: byte for byte

    for fmt in ("glb", "fbx", "blend"):
        result = batch("convert", game, "-o", out / fmt, "--format", fmt, "--timeout", 60)
        assert result.returncode == 0, result.stdout
        assert named(out / fmt, f"\xf2\xe0\xed\xea.{fmt}".encode("latin-1")).stat().st_size > 1000

    result = batch("thumbnails", game, "-o", out / "png", "--size", 48, "--timeout", 60)
    assert result.returncode == 0, result.stdout
    assert named(out / "png", b"\xf2\xe0\xed\xea.png").is_file() and (out / "png" / "contact_sheet.png").is_file()

    result = batch("textures", game, "-o", out / "tex", "--timeout", 60)
    assert result.returncode == 0, result.stdout
    library = Archive.parse((game / "Textures.lib").read_bytes())
    pictures = named(out / "tex", b"\xf2\xe5\xea\xf1")
    assert sorted(p.name for p in pictures.iterdir()) == sorted(f"{e.name_str}.png" for e in library)
    assert r"\xf2\xe5\xea\xf1.lib:" in result.stdout
    leftovers = [p for p in out.rglob("*") if ".io_msh_stage." in p.name or p.name.endswith(".tmp")]
    assert not leftovers


# --------------------------------------------------------------------- result lines
def test_a_message_without_a_final_newline_does_not_hide_the_result(tmp_path):
    """Whatever a worker prints may leave a line unfinished (the glTF exporter's messages, Blender's buffered C
    output): here every line a worker's Python prints is preceded by such a message."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys\n"
        "class Unfinished:\n"
        "    def __init__(self, stream):\n"
        "        self.stream, self.fresh = stream, True\n"
        "    def write(self, text):\n"
        "        if self.fresh and text:\n"
        "            self.stream.write('a message without a final newline ')\n"
        "        self.fresh = text.endswith('\\n') if text else self.fresh\n"
        "        return self.stream.write(text)\n"
        "    def __getattr__(self, name):\n"
        "        return getattr(self.stream, name)\n"
        "if '--worker' in sys.argv:\n"
        "    sys.stdout = Unfinished(sys.stdout)\n")
    (tmp_path / "a.msh").write_bytes(static_model(2))
    start = time.perf_counter()
    result = batch("import", tmp_path / "a.msh", "-o", tmp_path / "out", "--timeout", 30,
                   env={"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])})
    assert result.returncode == 0, result.stdout
    assert time.perf_counter() - start < 30 and (tmp_path / "out" / "a.blend").is_file()


# --------------------------------------------------------------------- warnings, findings
def test_warnings_are_printed_and_counted_and_findings_come_one_per_line(tmp_path):
    loose = tmp_path / "loose"  # no game libraries here or above: the import warns
    loose.mkdir()
    (loose / "alone.msh").write_bytes(static_model(2))
    game = tmp_path / "game"
    game.mkdir()
    write_libraries(game)
    archive = Archive()
    archive.add("tank.msh", generated(61, node_count=4, frame_count=10), MODEL_TYPE_ID)
    archive.add("tank.wea", b"3\r\n0 NOSUCH\r\n1 SAMPLE_METAL\r\n2 SAMPLE_BODY\r\n", WEAR_TYPE_ID)
    (game / "units.rlb").write_bytes(archive.to_bytes())
    bad = game / "bad.msh"  # two findings
    bad.write_bytes(triangle_model([(0, 0xFFFF, 0xFFFF, 4), (0, 0, 0xFFFF, 5)],
                                   [(0, 0, 0, 0, 32767, 0, 0, 0)], [], 1))
    result = batch("import", loose, game, "-o", tmp_path / "out")
    assert result.returncode == 1, result.stdout
    lines = result.stdout.splitlines()
    alone = next(i for i, line in enumerate(lines) if "] ok" in line and "alone.msh" in line)
    assert lines[alone + 1].startswith("    warning: ") and "were not found" in lines[alone + 1]
    tank = next(i for i, line in enumerate(lines) if "] ok" in line and "units.rlb:tank.msh" in line)
    assert lines[tank + 1].startswith("    warning: ") and "NOSUCH" in lines[tank + 1]
    warnings = sum(line.startswith("    warning: ") for line in lines)
    assert f"1 failed, {warnings} warnings" in result.stdout
    failed = next(i for i, line in enumerate(lines) if "] FAILED" in line)
    assert lines[failed].count(str(bad)) == 1 and "fallback" in lines[failed]
    assert lines[failed + 1].startswith("    Res1[1]: error: ") and str(bad) not in lines[failed + 1]
    assert "\\x0a" not in result.stdout
    summary = lines[lines.index(next(line for line in lines if line.startswith("summary:"))):]
    assert summary[1].startswith(f"  failed: {bad}: Res1[0]: error:") and summary[2].startswith("      Res1[1]:")

    strict = batch("import", loose, "-o", tmp_path / "strict", "--warnings-as-errors")
    assert strict.returncode == 1
    assert "FAILED" in strict.stdout and "treated as errors (--warnings-as-errors)" in strict.stdout
    assert not (tmp_path / "strict" / "alone.blend").exists()


# --------------------------------------------------------------------- textures
def test_textures_skip_libraries_without_textures_and_take_entries_by_index(tmp_path):
    game = tmp_path / "game"
    game.mkdir()
    write_libraries(game)
    upper = checker(8, (255, 0, 0, 255), (200, 0, 0, 255))
    lower = checker(8, (0, 0, 255, 255), (0, 0, 200, 255))
    textures = Archive()
    textures.add("A.TEX", encode_texm(upper, 8888).to_bytes(), TEXM_TYPE_ID)
    textures.add("a.tex", encode_texm(lower, 8888).to_bytes(), TEXM_TYPE_ID)
    (game / "Textures.lib").write_bytes(textures.to_bytes())
    (game / "...lib").write_bytes(textures.to_bytes())  # its stem is ".."
    (game / "units.rlb").write_bytes(nres([(MODEL_TYPE_ID, "tank.msh", static_model(2), 0, 0, 0)]))
    out = tmp_path / "out"
    result = batch("textures", game, "-o", out, "--jobs", 2)
    assert result.returncode == 0, result.stdout
    for name in ("Material.lib", "LightMap.lib", "units.rlb"):
        if name == "LightMap.lib" and any(e.type_id == TEXM_TYPE_ID for e in sample_libraries()[name]):
            continue
        assert f"skipped {game / name}: the archive holds no texture" in result.stdout
    for folder in ("Textures", "__"):
        assert np.array_equal(np.asarray(Image.open(out / folder / "A.TEX.png").convert("RGBA")), upper)
        assert np.array_equal(np.asarray(Image.open(out / folder / "a.tex_2.png").convert("RGBA")), lower)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game", "out"]  # nothing written beside out

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no model here")
    for command in ("textures", "import"):
        result = batch(command, empty, "-o", tmp_path / "nothing")
        assert result.returncode == 2 and "nothing to convert" in result.stderr, result.stdout + result.stderr
        assert "0 of 0" not in result.stdout and not (tmp_path / "nothing").exists()


# --------------------------------------------------------------------- names, usage, jobs
def test_odd_entry_names_usage_errors_and_no_more_workers_than_items(tmp_path):
    entries = [(MODEL_TYPE_ID, name, generated(80 + n, node_count=2), 0, 0, 0)
               for n, name in enumerate(("", ".", "/", "a.msh"))]
    archive = tmp_path / "odd.rlb"
    archive.write_bytes(nres(entries))
    out = tmp_path / "out"
    result = batch("import", archive, "-o", out, "--jobs", 24)
    assert result.returncode == 0, result.stdout
    assert len(progress_lines(result)) == 4 and len(list(out.glob("*.blend"))) == 4
    processes = int(re.search(r"(\d+) Blender process", result.stdout).group(1))
    assert 1 <= processes <= 4
    assert sorted(p.name for p in out.iterdir()) == ["odd__.blend", "odd___2.blend", "odd___3.blend",
                                                     "odd_a.blend"]
    (tmp_path / "one.msh").write_bytes(static_model(1))
    result = batch("import", tmp_path / "one.msh", "-o", tmp_path / "one", "--jobs", 24)
    assert result.returncode == 0 and ", 1 Blender process," in result.stdout, result.stdout

    existing = tmp_path / "file.txt"
    existing.write_text("not a folder")
    result = batch("import", archive, "-o", existing)
    assert result.returncode == 2 and "not a folder" in result.stderr
    assert existing.read_text() == "not a folder"
    result = batch("thumbnails", archive, "-o", tmp_path / "big", "--size", 30000)
    assert result.returncode == 2 and "too large: at most 4096" in result.stderr
    assert not (tmp_path / "big").exists()


# --------------------------------------------------------------------- export names, transactions
def test_export_names_are_unique_and_each_item_is_written_whole_or_not_at_all(blender, tmp_path):
    bpy = blender.bpy
    x, y, z, tank = (generated(90 + n, node_count=3, frame_count=5) for n in range(4))
    sources = {"a": nres([(MODEL_TYPE_ID, "x.msh", x, 0, 0, 0), (MODEL_TYPE_ID, "y.msh", y, 0, 0, 0)]),
               "a_x": nres([(MODEL_TYPE_ID, "z.msh", z, 0, 0, 0)]),
               "t": nres([(MODEL_TYPE_ID, "tank.msh", tank, 0, 0, 0),
                          (WEAR_TYPE_ID, "tank.wea", b"3\r\n0 A\r\n1 B\r\n2 C\r\n", 0, 0, 0)])}
    blends = tmp_path / "blends"
    blends.mkdir()
    for stem, data in sources.items():
        (tmp_path / f"{stem}.rlb").write_bytes(data)
        blender.clean_scene()
        assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / f"{stem}.rlb")) == {"FINISHED"}
        bpy.ops.wm.save_as_mainfile(filepath=str(blends / f"{stem}.blend"), copy=True)
    out = tmp_path / "out"
    out.mkdir()
    (out / "t.msh").write_bytes(b"the user's earlier file")
    (out / "t.wea").mkdir()  # the item's second file cannot be replaced: its first must stay as it was
    result = batch("export", blends, "-o", out)
    assert result.returncode == 1, result.stdout
    assert (out / "a_x.msh").read_bytes() == z  # the planned name of a_x.blend
    assert (out / "a_x_2.msh").read_bytes() == x and (out / "a_y.msh").read_bytes() == y
    failed = [line for line in progress_lines(result) if "FAILED" in line]
    assert len(failed) == 1 and "t.blend" in failed[0] and f"{out / 't.wea'}: cannot write" in failed[0]
    assert (out / "t.msh").read_bytes() == b"the user's earlier file"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no stage folder, no temporary


# --------------------------------------------------------------------- the contact sheet
def test_a_model_named_contact_sheet_keeps_its_thumbnail(tmp_path):
    (tmp_path / "contact_sheet.msh").write_bytes(static_model(2))
    (tmp_path / "cyr.rlb").write_bytes(nres([(MODEL_TYPE_ID, f"{TANK}.msh".encode("cp1251"), static_model(3),
                                              0, 0, 0)]))
    out = tmp_path / "out"
    result = batch("thumbnails", tmp_path / "contact_sheet.msh", tmp_path / "cyr.rlb", "-o", out, "--size", 64)
    assert result.returncode == 0, result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["contact_sheet.png", "contact_sheet_2.png", f"cyr_{TANK}.png"]
    assert Image.open(out / "contact_sheet_2.png").size == (64, 64)  # the model's thumbnail
    assert Image.open(out / "contact_sheet.png").size[0] == 128  # the sheet: two columns


def test_contact_sheet_labels_draw_cyrillic(blender, tmp_path):
    """The text objects' built-in font fills some Cyrillic letters (н, ы) as blocks; the labels use a font
    that draws them: the label differs from the built-in font's, and is far less filled."""
    bpy = blender.bpy
    load_extension()
    batch_module = importlib.import_module(f"{EXTENSION_PACKAGE}.io_msh.batch.pictures")
    picture = tmp_path / "tile.png"
    Image.fromarray(np.full((32, 32, 4), 40, np.uint8)).save(picture)
    label = "\u043d\u044b\u043d\u044b\u043d.msh"  # нынын.msh

    def label_strip(font) -> np.ndarray:
        target = tmp_path / f"sheet_{font}.png"
        original = batch_module.label_font
        try:
            if font == "builtin":
                batch_module.label_font = lambda bpy: None
            batch_module.contact_sheet([(str(picture), label)], target, 400)
        finally:
            batch_module.label_font = original
        pixels = np.asarray(Image.open(target).convert("L"), float) / 255
        return pixels[int(pixels.shape[0] * 0.8):]  # below the tile: the label

    chosen, builtin = label_strip("chosen"), label_strip("builtin")
    assert bpy.data.fonts.get(batch_module.LABEL_FONT) is None  # the sheet cleans up after itself
    lit_chosen, lit_builtin = (chosen > 0.5).sum(), (builtin > 0.5).sum()
    assert lit_chosen > 100  # the label is there
    assert np.abs(chosen - builtin).max() > 0.5 and lit_chosen < 0.8 * lit_builtin


# --------------------------------------------------------------------- exporter failures, Ctrl-C
def test_a_full_disk_gives_one_clean_failure_line_per_item(tmp_path):
    (tmp_path / "a.msh").write_bytes(generated(95, node_count=4, frame_count=8))

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))  # as a full disk: writes fail past 1 KB

    for command in (["convert", "--format", "glb"], ["import"], ["thumbnails", "--size", 256]):
        out = tmp_path / command[0]
        result = batch(command[0], tmp_path / "a.msh", "-o", out, *command[1:], preexec_fn=small_files)
        assert result.returncode == 1, result.stdout
        (failed,) = [line for line in progress_lines(result) if "FAILED" in line]
        assert "cannot write" in failed or "ended unexpectedly" in failed, failed
        assert not list(out.iterdir())  # nothing half-written, no stage folder
    nan = tmp_path / "nan.msh"  # a NaN position: the glTF exporter fails on it
    nan.write_bytes(triangle_model([(0, 0xFFFF, 0xFFFF, 0)], [(float("nan"), 0, 0, 0, 32767, 0, 0, 0)], [], 1))
    result = batch("convert", nan, "-o", tmp_path / "nan", "--format", "glb")
    (failed,) = [line for line in progress_lines(result) if "FAILED" in line]
    assert f"cannot write {tmp_path / 'nan' / 'nan.glb'}: ValueError: " in failed, failed
    assert not list((tmp_path / "nan").iterdir())


def test_ctrl_c_stops_the_batch_cleanly(tmp_path):
    archive = tmp_path / "units.rlb"
    archive.write_bytes(nres([(MODEL_TYPE_ID, "tank.msh", static_model(2), 0, 0, 0),
                              (MODEL_TYPE_ID, "tower.msh", static_model(3), 0, 0, 0)]))
    temp = tmp_path / "temp"
    temp.mkdir()
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, str(BATCH), "import", str(archive), "-o", str(out)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(temp), "IO_MSH_BATCH_FAULT": "hang:tower"})
    first = process.stdout.readline()
    assert "units.rlb:tank.msh: -> " in first
    workers = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == process.pid]
    assert workers
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stdout + stderr
    assert "Traceback" not in stdout + stderr and "interrupted: 1 of 2 items finished" in stderr
    assert sorted(p.name for p in out.iterdir()) == ["units_tank.blend"]
    assert not list(temp.iterdir())  # no session folder, no temporary
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


def _parent(proc: Path) -> int | None:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_stage_folders_a_killed_run_left_are_never_inputs_and_are_removed_once_it_is_gone(blender, tmp_path):
    """A run killed before its clean-up (SIGKILL) leaves its stage folders (``.io_msh_stage.PID.N``, a staged
    .blend inside) in -o: no later run takes their files for inputs, and the next run into that folder removes
    those of processes that are gone (a live process's stay: it may still be moving them into place)."""
    items = importlib.import_module(f"{EXTENSION_PACKAGE}.io_msh.batch.items")
    blends = tmp_path / "blend"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    gone, live = (blends / f"{items.STAGE_PREFIX}{pid}.1" for pid in (dead.pid, os.getpid()))
    for stage in (gone, live):
        stage.mkdir(parents=True)
        (stage / "units_tank.blend").write_bytes(b"BLENDER staged, half moved")
    result = batch("export", blends, "-o", tmp_path / "msh")
    assert result.returncode == 2 and "nothing to convert: no .blend files found" in result.stderr
    archive = tmp_path / "units.rlb"
    archive.write_bytes(nres([(MODEL_TYPE_ID, "tank.msh", static_model(2), 0, 0, 0)]))
    result = batch("import", archive, "-o", blends)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not gone.exists() and (live / "units_tank.blend").is_file()
    assert sorted(p.name for p in blends.iterdir()) == sorted([live.name, "units_tank.blend"])
