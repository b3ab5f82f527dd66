"""``batch library`` writes through the one write path (core.write_path): a .blend of the user's is never taken for
a library, whatever it holds; catalogue paths stay what Blender reads back whatever the archives' names hold (a
colon, a line break, bytes that are not UTF-8); the folders a killed run left beside the library are removed by
the next run; a library another program saved during the run is left as it saved it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest
from fixtures import static_model
from test_batch import BATCH, batch, progress

from core.authoring.synth import sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive

CATS = "blender_assets.cats.txt"
ODD_NAMES = {  # file name (bytes: any a file system holds) -> the catalogue its model goes to
    b"co:lon.rlb": "Other models/co-lon",
    b"new\nline.rlb": "Other models/new\\x0aline",
    b"bad\xff.rlb": "Other models/bad\\xff",
}
PLAIN = b"plain\xfe.msh"  # a model file of its own, not UTF-8 either: its name is hashed into its fingerprint


def archive_of(name: str, data: bytes) -> bytes:
    archive = Archive()
    archive.add(name, data, MODEL_TYPE_ID)
    return archive.to_bytes()


@pytest.fixture(scope="module")
def odd_game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("odd_game")
    for name, library in sample_libraries().items():
        (folder / name).write_bytes(library.to_bytes())
    for n, name in enumerate(ODD_NAMES):
        with open(os.path.join(os.fsencode(folder), name), "wb") as handle:
            handle.write(archive_of(f"m{n}.msh", static_model(2 + n)))
    with open(os.path.join(os.fsencode(folder), PLAIN), "wb") as handle:
        handle.write(static_model(5))
    return folder


def dead_pid() -> int:
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    return finished.pid


@pytest.fixture(scope="module")
def odd_library(odd_game, tmp_path_factory):
    """The odd game's library, made in a folder where killed runs left their folders: one of a process that is
    gone, one of a live process (this one), one named as runs named them before they put their PID in (an hour
    old); then a second run."""
    out = tmp_path_factory.mktemp("odd_library")
    left = {"dead": out / f".io_msh_library_{dead_pid()}_a1b2c3d4", "live": out / f".io_msh_library_{os.getpid()}_x",
            "legacy": out / ".io_msh_library_q9w8e7r6"}
    for folder in left.values():
        (folder / "assets").mkdir(parents=True)
        (folder / "assets" / "0.blend").write_bytes(b"BLENDER staged by a killed run")
    an_hour_ago = time.time() - 3600
    os.utime(left["legacy"], (an_hour_ago, an_hour_ago))
    library = out / "Parkan.blend"
    first = batch("library", str(odd_game), "-o", str(library), "--size", "16")
    second = batch("library", str(odd_game), "-o", str(library), "--size", "16")
    return library, left, first, second


def test_archives_whose_names_are_not_utf8_become_assets_run_after_run(blender, odd_library, odd_game):
    library, _, first, second = odd_library
    assert first.returncode == 0, first.stdout + first.stderr
    ok, failed = progress(first)
    assert not failed and len(ok) == 4
    assert "4 assets: 4 unchanged, 0 to make" in second.stdout and "is up to date (4 assets)" in second.stdout
    bpy = blender.bpy
    bpy.ops.wm.open_mainfile(filepath=str(library))
    keys = {c["msh_asset_key"]: c for c in bpy.data.collections if c.asset_data is not None}
    assert set(keys) == {"co:lon.rlb:0:m0.msh", "new\\x0aline.rlb:0:m1.msh", "bad\\xff.rlb:0:m2.msh", "plain\\xfe.msh"}
    assert keys["plain\\xfe.msh"].name == "plain\\xfe" and keys["bad\\xff.rlb:0:m2.msh"].asset_data.description


def test_archive_names_with_a_colon_or_a_line_break_keep_the_catalogue_file_readable(blender, odd_library):
    library, _, _, _ = odd_library
    lines = (library.parent / CATS).read_text(encoding="utf-8").splitlines()
    rows = [line.split(":") for line in lines if line.strip() and not line.startswith(("#", "VERSION"))]
    assert all(len(row) == 3 for row in rows), rows  # UUID:path:simple name, no field holding the separator
    paths = {row[1]: row[0] for row in rows}
    assert set(ODD_NAMES.values()) <= set(paths)
    bpy = blender.bpy
    bpy.ops.wm.open_mainfile(filepath=str(library))
    for collection in (c for c in bpy.data.collections if c.asset_data is not None):
        assert collection.asset_data.catalog_id == paths[collection["msh_asset_catalog"]], collection.name


def test_folders_a_killed_run_left_beside_the_library_are_removed_by_the_next(odd_library):
    library, left, _, _ = odd_library
    assert not left["dead"].exists() and not left["legacy"].exists()
    assert left["live"].is_dir()  # a live process's: it may still be writing there
    assert sorted(p.name for p in library.parent.iterdir()) == sorted([CATS, library.name, left["live"].name])


def test_a_blend_of_the_users_holding_no_object_is_never_written_over(blender, odd_game, tmp_path):
    """Materials, node groups and a text, but no object or collection; or nothing at all: the user's file,
    refused (exit 2) as any .blend that is no library this command wrote, with or without --rebuild."""
    bpy = blender.bpy
    saved = {}
    bpy.ops.wm.read_homefile(use_empty=True)
    saved["empty"] = tmp_path / "empty" / "empty.blend"
    saved["empty"].parent.mkdir()
    bpy.ops.wm.save_as_mainfile(filepath=str(saved["empty"]), copy=True)
    material, group = bpy.data.materials.new("mine"), bpy.data.node_groups.new("group", "ShaderNodeTree")
    material.use_fake_user = group.use_fake_user = True
    bpy.data.texts.new("notes").write("my notes")
    saved["materials"] = tmp_path / "materials" / "mine.blend"
    saved["materials"].parent.mkdir()
    bpy.ops.wm.save_as_mainfile(filepath=str(saved["materials"]), copy=True)
    for what, path in saved.items():
        before = path.read_bytes()
        for extra in ((), ("--rebuild",)):
            result = batch("library", str(odd_game), "-o", str(path), "--size", "16", *extra)
            assert result.returncode == 2, (what, result.stdout + result.stderr)
            assert "is not an asset library this command wrote" in result.stderr, what
            assert path.read_bytes() == before, what
            assert sorted(os.listdir(path.parent)) == [path.name], what  # no catalogue file, no folder left


def test_a_library_saved_by_another_program_during_the_run_is_left_as_it_saved_it(odd_library, odd_game, tmp_path):
    """The user's Blender saves the library while a run rebuilds it (at the moment the run takes the library's
    lock to write it): the run fails saying so, and the file is the one the user saved."""
    from test_writers_killed import Kit, watching

    library, _, first, _ = odd_library
    assert first.returncode == 0, first.stdout + first.stderr
    copy = tmp_path / "lib" / "Parkan.blend"
    copy.parent.mkdir()
    copy.write_bytes(library.read_bytes())
    (copy.parent / CATS).write_bytes((library.parent / CATS).read_bytes())
    theirs = tmp_path / "theirs.blend"
    theirs.write_bytes(b"BLENDER-v500 as the user's Blender saved it")
    kit = Kit(tmp_path / f"kit-{uuid.uuid4().hex}")
    swap = {"op": "mkdir", "name": ".Parkan.blend.io_msh-lock.owner.*", "target": str(copy), "sources": [str(theirs)]}
    run = kit.run([sys.executable, str(BATCH), "library", odd_game, "-o", copy, "--size", "16",
                   "--rebuild"], watching(copy.parent, role="parent", swap=swap))
    assert run.code == 1 and "another program wrote it during the run" in run.out, run.text
    assert copy.read_bytes() == theirs.read_bytes()
    assert sorted(p.name for p in copy.parent.iterdir()) == sorted([CATS, copy.name])


def test_the_library_operator_reports_what_the_write_path_refused(blender, odd_game, tmp_path):
    """File > Import > Parkan Game as Asset Library writes nothing itself: its batch run does, and what that run
    could not write is the operator's error (here the catalogue file's place holds a folder)."""
    bpy = blender.bpy
    library = tmp_path / "lib" / "Parkan.blend"
    (library.parent / CATS).mkdir(parents=True)
    libraries = bpy.context.preferences.filepaths.asset_libraries
    count = len(libraries)
    try:
        with pytest.raises(RuntimeError, match=r"The library run failed: .*blender_assets\.cats\.txt"):
            bpy.ops.import_scene.parkan_asset_library(directory=str(odd_game), library=str(library), size=16,
                                                      jobs=1)
    finally:
        while len(libraries) > count:
            libraries.remove(libraries[-1])
    assert (library.parent / CATS).is_dir()
