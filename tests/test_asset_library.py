"""The game as an asset library. ``batch library GAME_FOLDER -o Parkan.blend`` (and File > Import >
Parkan Game as Asset Library) writes one .blend where every model and every unit is a collection asset with its
rendered preview, description, tags and catalogue, and blender_assets.cats.txt beside it; a second run re-does
only what changed; an asset appended into a scene exports back as the model (or unit) it was made of."""

import shutil

import numpy as np
import pytest
from test_batch import ROOT, batch, progress

from core.authoring import game, units
from core.authoring.build import build_model
from core.authoring.synth import random_model
from core.container.nres import Archive
from core.msh.model import Model

SIZE = 48
PARTS = {"synth_chassis": "Parts/chassis", "e_tur_lt_01": "Parts/turret", "e_tur_mt_01": "Parts/turret",
         "e_gun_ll_01": "Parts/gun", "e_gun_mc_01": "Parts/gun", "i_eng_m_df": "Parts/internal",
         "i_c01_clip": "Parts/ammo clip", "synth_round": "Parts/projectile", "synth_weapon": "Parts/weapon",
         "synth_fort_base": "Buildings/models"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = game.write_game(tmp_path_factory.mktemp("library_game"), models=4, unit_count=5)
    (folder / "MODELS" / "broken.msh").write_bytes(b"not a model at all")
    library = tmp_path_factory.mktemp("library") / "Parkan.blend"
    result = batch("library", str(folder), "-o", str(library), "--jobs", "2", "--size", str(SIZE))
    return folder, library, result


def assets(bpy, library):
    bpy.ops.wm.open_mainfile(filepath=str(library))
    return {c["msh_asset_key"]: c for c in bpy.data.collections if c.asset_data is not None}


def catalogues(library):
    text = (library.parent / "blender_assets.cats.txt").read_text(encoding="utf-8")
    assert "VERSION 1" in text.splitlines()
    rows = [line.split(":") for line in text.splitlines() if line and not line.startswith(("#", "VERSION"))]
    return {path: uuid for uuid, path, _simple in rows}


def test_every_model_and_unit_is_an_asset_with_its_preview_description_tags_and_catalogue(blender, built):
    folder, library, result = built
    bpy = blender.bpy
    assert result.returncode == 1, result.stdout + result.stderr  # broken.msh failed, named; the rest was made
    ok, failed = progress(result)
    assert failed == {str(folder / "MODELS" / "broken.msh")} and len(ok) == 10 + 4 + 5
    found = assets(bpy, library)
    # a model of an archive by its file, entry index and name (5 entries a part: .msh .wea .cpt .ndp .ctl)
    assert {k for k in found if k.startswith("synth_parts.rlb")} == {
        f"synth_parts.rlb:{5 * i}:{stem}.msh" for i, stem in enumerate(units.MEMBERS)}
    units_found = {k: c for k, c in found.items() if k.endswith(".dat")}
    assert sorted(units_found) == [f"UNITS/GEN/unit_{n:03d}.dat" for n in range(5)]
    assert len(found) == 19
    paths = catalogues(library)
    for key, collection in found.items():
        data = collection.asset_data
        assert data.catalog_id == paths[collection["msh_asset_catalog"]], key
        assert tuple(collection.preview.image_size) == (SIZE, SIZE), key
        pixels = np.array(collection.preview.image_pixels_float[:]).reshape(-1, 4)
        assert pixels[:, :3].std() > 0.01, key  # a rendered picture, not a blank
        assert data.description, key
    # units: the description is the root component's display name (cp1251), the catalogue the unit's type
    robot, fort = units_found["UNITS/GEN/unit_000.dat"], units_found["UNITS/GEN/unit_004.dat"]
    assert robot.asset_data.description == "Робот №1" and fort.asset_data.description == "Форт №5"
    assert robot["msh_asset_catalog"] == "Robots/transport" and fort["msh_asset_catalog"] == "Buildings/bridge"
    assert units_found["UNITS/GEN/unit_002.dat"]["msh_asset_catalog"] == "Robots/battle robot"
    assert {"unit", "transport", "turret", "gun", "chassis"} <= {t.name for t in robot.asset_data.tags}
    # models: parts by the class their units give them, the others by their archive
    by_name = {c.name: c for c in found.values()}
    for name, catalogue in PARTS.items():
        assert by_name[name]["msh_asset_catalog"] == catalogue, name
    turret = by_name["e_tur_lt_01"].asset_data
    assert {"model", "turret", "EXTO"} <= {t.name for t in turret.tags}
    assert turret.description == "e_tur_lt_01 (turret), synth_parts.rlb:e_tur_lt_01.msh"
    assert by_name["prop_002"]["msh_asset_catalog"] == "Other models/props_00"
    assert {"Robots", "Robots/transport", "Buildings", "Parts", "Parts/turret", "Other models"} <= set(paths)
    assert not list(library.parent.glob(".io_msh_library_*"))  # the run's own folder is gone


def test_an_appended_asset_exports_back_byte_for_byte(blender, built, tmp_path):
    """What a drag from the Asset Browser does (Append): the collection comes with every property the import
    gave, so the model and the unit export as imported ones do."""
    folder, library, _ = built
    bpy = blender.bpy
    keys = {"MODELS/props_00.rlb:4:prop_002.msh": "prop_002", "synth_parts.rlb:5:e_tur_lt_01.msh": "e_tur_lt_01"}
    bpy.ops.wm.read_homefile(use_empty=True)
    blender.register()
    with bpy.data.libraries.load(str(library), link=False, assets_only=True) as (source, target):
        target.collections = [name for name in source.collections if name in (*keys.values(), "unit_001.dat")]
    for collection in target.collections:
        bpy.context.scene.collection.children.link(collection)
    bpy.context.view_layer.update()
    archives = {"prop_002": Archive.parse((folder / "MODELS" / "props_00.rlb").read_bytes()),
                "e_tur_lt_01": Archive.parse((folder / units.PARTS).read_bytes())}
    for name in keys.values():
        (root,) = [o for o in bpy.data.collections[name].all_objects if "msh_model" in o]
        for obj in bpy.context.view_layer.objects:
            obj.select_set(obj == root)
        bpy.context.view_layer.objects.active = root
        out = tmp_path / f"{name}.msh"
        assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
        assert out.read_bytes() == bytes(archives[name].find(f"{name}.msh").data), name
        Model.parse(out.read_bytes())
    hidden = [c.name for c in bpy.data.collections["unit_001.dat"].children if c.hide_viewport]
    assert hidden == ["unit_001.dat internal parts"]  # hidden as Import Unit hides them, in any scene
    out = tmp_path / "unit.dat"
    assert bpy.ops.export_scene.parkan_unit(filepath=str(out), collection="unit_001.dat") == {"FINISHED"}
    assert out.read_bytes() == (folder / "UNITS" / "GEN" / "unit_001.dat").read_bytes()


def copied(built, tmp_path):
    """The game folder (without its broken model) and its library, copied: (folder, library, the first library)."""
    source, first, _ = built
    folder = shutil.copytree(source, tmp_path / "game")
    (folder / "MODELS" / "broken.msh").unlink()
    library = tmp_path / "lib" / "Parkan.blend"
    library.parent.mkdir()
    shutil.copy(first, library)
    return folder, library, first


def test_a_second_run_makes_again_only_what_changed(blender, built, tmp_path):
    folder, library, first = copied(built, tmp_path)
    shutil.copy(first.parent / "blender_assets.cats.txt", library.parent)
    # the folder moved, nothing changed in it: every asset is kept as it was
    result = batch("library", str(folder), "-o", str(library), "--size", str(SIZE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "19 assets: 19 unchanged, 0 to make" in result.stdout and "is up to date (19 assets)" in result.stdout
    assert library.read_bytes() == first.read_bytes()
    # one model of an archive changes, a unit is removed: that model alone is made again, the unit's asset goes
    bpy = blender.bpy
    before = {k: c["msh_asset_fingerprint"] for k, c in assets(bpy, library).items()}
    archive = game.model_archive(0, 4)
    changed = build_model(random_model(99, node_count=3, frame_count=20, name="prop_001.msh")).to_bytes()
    archive.entries[2].data = changed
    (folder / "MODELS" / "props_00.rlb").write_bytes(archive.to_bytes())
    (folder / "UNITS" / "GEN" / "unit_003.dat").unlink()
    user_catalogues = edit_catalogues(library.parent / "blender_assets.cats.txt")
    result = batch("library", str(folder), "-o", str(library), "--size", str(SIZE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "18 assets: 17 unchanged, 1 to make, 1 gone from the folder" in result.stdout
    assert_catalogues_kept(bpy, library, user_catalogues)
    assert progress(result)[0] == {f"{folder}/MODELS/props_00.rlb:prop_001.msh"}
    after = {k: c["msh_asset_fingerprint"] for k, c in assets(bpy, library).items()}
    remade = {k for k in after if after[k] != before.get(k)}
    assert remade == {"MODELS/props_00.rlb:2:prop_001.msh"} and set(before) - set(after) == {
        "UNITS/GEN/unit_003.dat"}
    # nothing of the removed unit or of the model's old asset is left in the file
    held = {o for c in assets(bpy, library).values() for o in c.all_objects}
    assert set(bpy.data.objects) == held and len(bpy.data.objects) == len(held)
    assert not [a for a in bpy.data.actions if a.users == 0]
    shown = assets(bpy, library)["MODELS/props_00.rlb:2:prop_001.msh"]
    (root,) = [o for o in shown.all_objects if "msh_model" in o]
    assert bytes(root["msh_source"]) == changed  # the new bytes were imported
    # --rebuild makes every asset again
    result = batch("library", str(folder), "-o", str(library), "--size", str(SIZE), "--rebuild")
    assert result.returncode == 0 and "18 of 18 assets made" in result.stdout, result.stdout + result.stderr
    assert_catalogues_kept(bpy, library, user_catalogues)


def test_a_catalogue_file_left_behind_its_library_is_completed_alone(blender, built, tmp_path):
    """A run killed after it moved the library into place but before its catalogue file left the old file (or
    none): the next run finds every asset up to date and adds the missing catalogues, the library untouched."""
    folder, library, first = copied(built, tmp_path)
    cats = library.parent / "blender_assets.cats.txt"
    full = (first.parent / "blender_assets.cats.txt").read_text(encoding="utf-8")
    for behind in ("VERSION 1\n" + USER_CATALOGUE + "\n", None):
        if behind is None:
            cats.unlink()
        else:
            cats.write_text(behind, encoding="utf-8")
        result = batch("library", str(folder), "-o", str(library), "--size", str(SIZE))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "is up to date (19 assets); blender_assets.cats.txt completed" in result.stdout
        assert library.read_bytes() == first.read_bytes()
        lines = cats.read_text(encoding="utf-8").splitlines()
        assert {line for line in full.splitlines() if line and not line.startswith("#")} <= set(lines)
        assert (USER_CATALOGUE in lines) == (behind is not None)
    result = batch("library", str(folder), "-o", str(library), "--size", str(SIZE))
    assert result.returncode == 0 and result.stdout.count("is up to date (19 assets)\n") == 1, result.stdout


def test_a_catalogue_the_user_adds_while_a_run_writes_the_file_is_kept(blender, tmp_path, monkeypatch):
    """The user's Blender saves the catalogue file after the run read it: the run reads it again and adds its
    catalogues to the user's file, instead of writing over it."""
    import importlib

    from fixtures import EXTENSION_PACKAGE

    library = importlib.import_module(f"{EXTENSION_PACKAGE}.io_msh.batch.library")
    disk = importlib.import_module(f"{EXTENSION_PACKAGE}.core.disk")
    cats = tmp_path / "blender_assets.cats.txt"
    cats.write_text("VERSION 1\n", encoding="utf-8")
    read = disk.read_with_state

    def read_then_the_user_saves(path):
        data, state = read(path)
        if USER_CATALOGUE not in cats.read_text(encoding="utf-8"):
            cats.write_text(f"VERSION 1\n{USER_CATALOGUE}\n", encoding="utf-8")
        return data, state

    monkeypatch.setattr(disk, "read_with_state", read_then_the_user_saves)
    assert library._complete_catalogs(cats, {"Parts/gun"})
    lines = cats.read_text(encoding="utf-8").splitlines()
    assert USER_CATALOGUE in lines and any(line.endswith(":Parts/gun:Parts-gun") for line in lines)


USER_CATALOGUE = "0b5f6c8e-1d2a-4e3b-9c4d-5e6f7a8b9c0d:Избранное/танки:Избранное-танки"


def edit_catalogues(path):
    """What a user does in the Asset Browser: a catalogue of their own, one of ours renamed (its UUID stays) and
    one of ours deleted. Returns the lines that must stay as they are."""
    text = path.read_text(encoding="utf-8")
    paths = catalogues(path.parent / "Parkan.blend")
    renamed = f"{paths['Robots/transport']}:Роботы/транспорт:Роботы-транспорт"
    lines = [renamed if line.startswith(paths["Robots/transport"]) else line for line in text.splitlines()
             if not line.startswith(paths["Parts/gun"])]
    path.write_text("\n".join([*lines, USER_CATALOGUE]) + "\n", encoding="utf-8")
    return [USER_CATALOGUE, renamed]


def assert_catalogues_kept(bpy, library, user_lines):
    """The user's lines are kept, ours deleted are back, and every asset's catalogue is defined, once."""
    lines = (library.parent / "blender_assets.cats.txt").read_text(encoding="utf-8").splitlines()
    for line in user_lines:
        assert line in lines
    rows = [line.split(":") for line in lines if line and not line.startswith(("#", "VERSION"))]
    uuids = [row[0] for row in rows]
    assert len(uuids) == len(set(uuids)) and "Robots/transport" not in {row[1] for row in rows}
    assert "Parts/gun" in {row[1] for row in rows}
    for key, collection in assets(bpy, library).items():
        assert collection.asset_data.catalog_id in uuids, key


def test_a_catalogue_file_blender_cannot_read_is_kept_as_comments(plan):
    text = plan.catalog_text({"Parts/gun"}, "my notes\nnot: a catalogue\n")
    lines = text.splitlines()
    assert "VERSION 1" in lines and "# my notes" in lines and "# not: a catalogue" in lines
    assert [line.split(":")[1] for line in lines if line and not line.startswith(("#", "VERSION"))] == [
        "Parts", "Parts/gun"]
    assert plan.catalog_text({"Parts/gun"}, text) == text  # read back: nothing to add, nothing changed
    # Blender reads a file whose first line that is neither blank nor a comment is VERSION 1, nothing else
    for unreadable in ("\ufeff# header\nVERSION 1\n", "VERSION 2\nabc:Mine:Mine\n", "abc:Mine:Mine\nVERSION 1\n"):
        assert plan.catalog_text(set(), unreadable).splitlines()[len(plan.CATALOG_HEADER) + 1].startswith("# ")


def test_the_catalogue_file_keeps_every_line_as_blender_reads_it(plan):
    gun = plan.catalog_uuid("Parts/gun")
    old = (f"  VERSION 1\r\n\r\n{gun.upper()}:Мои/пушки:Пушки\r\n"
           "0b5f6c8e-1d2a-4e3b-9c4d-5e6f7a8b9c0d:Mine:My\u2028name\x0cand more\r\n")
    text = plan.catalog_text({"Parts/gun"}, old)
    assert text.startswith(old.replace("\r\n", "\n"))  # every line kept, whole
    added = text[len(old.replace("\r\n", "\n")):].splitlines()
    assert added == [f"{plan.catalog_uuid('Parts')}:Parts:Parts"]  # Parts/gun is defined (its UUID in capitals)


def test_the_blender_command_builds_the_library_of_a_chosen_folder(blender, tmp_path):
    bpy = blender.bpy
    folder = game.write_game(tmp_path / "game", models=1, unit_count=1)
    libraries = bpy.context.preferences.filepaths.asset_libraries
    count = len(libraries)
    try:
        assert bpy.ops.import_scene.parkan_asset_library(directory=str(folder), size=32, jobs=1) == {"FINISHED"}
        target = folder / "Parkan asset library"
        assert (target / "Parkan.blend").is_file() and (target / "blender_assets.cats.txt").is_file()
        assert [lib.path for lib in libraries][count:] == [str(target)]
        assert len(assets(bpy, target / "Parkan.blend")) == 12
        # a second time: nothing changed, nothing made, the library is not added twice
        assert bpy.ops.import_scene.parkan_asset_library(directory=str(folder), size=32) == {"FINISHED"}
        assert len(libraries) == count + 1
    finally:
        while len(libraries) > count:
            libraries.remove(libraries[-1])


def test_bad_arguments_are_refused_with_a_reason(blender, tmp_path):
    result = batch("library", str(tmp_path / "nowhere"), "-o", str(tmp_path / "Parkan.blend"))
    assert result.returncode == 2 and "nowhere: not a folder" in result.stderr
    result = batch("library", str(tmp_path), "-o", str(tmp_path / "Parkan.zip"))
    assert result.returncode == 2 and "the library must be a .blend file" in result.stderr
    result = batch("library", str(tmp_path), "-o", str(tmp_path / "out" / "Parkan.blend"))
    assert result.returncode == 2 and "nothing to put in a library" in result.stderr
    assert not (tmp_path / "out" / "Parkan.blend").exists()
    bpy = blender.bpy
    with pytest.raises(RuntimeError, match="not a folder"):
        bpy.ops.import_scene.parkan_asset_library(directory=str(tmp_path / "nowhere"))


def test_a_model_with_clips_brings_its_clip_actions_and_tags(blender, tmp_path):
    """The walker's clips are actions no object uses (a fake user keeps them): its asset points at them, so
    that appending the collection brings them; its tags name its motions."""
    folder = shutil.copytree(ROOT / "samples" / "walker", tmp_path / "walker")
    library = tmp_path / "lib" / "Parkan.blend"
    result = batch("library", str(folder), "-o", str(library), "--size", "32")
    assert result.returncode == 0, result.stdout + result.stderr
    bpy = blender.bpy
    (asset,) = assets(bpy, library).values()
    assert {"clips", "stand", "walk", "run"} <= {t.name for t in asset.asset_data.tags}
    bpy.ops.wm.read_homefile(use_empty=True)
    blender.register()
    with bpy.data.libraries.load(str(library), assets_only=True) as (source, target):
        target.collections = list(source.collections)
    bpy.context.scene.collection.children.link(target.collections[0])
    bpy.context.view_layer.update()
    (root,) = [o for o in target.collections[0].all_objects if "msh_model" in o]
    clips = {a["msh_clip"] for a in bpy.data.actions if "msh_clip" in a}
    assert clips == set(root["msh_clips"]) == {"walker.msh|stand 0", "walker.msh|walk 1", "walker.msh|run 2"}
    bpy.context.view_layer.objects.active = root
    root.select_set(True)
    out = tmp_path / "walker.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == (folder / "walker.msh").read_bytes()


def test_a_linked_asset_exports_back_too(blender, built, tmp_path):
    """The collection linked from the library (read-only, not appended) into the scene exports as well."""
    folder, library, _ = built
    bpy = blender.bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    blender.register()
    with bpy.data.libraries.load(str(library), link=True, assets_only=True) as (_source, target):
        target.collections = ["prop_003"]
    (collection,) = target.collections
    assert collection.library is not None
    bpy.context.scene.collection.children.link(collection)
    bpy.context.view_layer.update()
    (root,) = [o for o in collection.all_objects if "msh_model" in o]
    root.select_set(True)
    bpy.context.view_layer.objects.active = root
    out = tmp_path / "prop_003.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    archive = Archive.parse((folder / "MODELS" / "props_00.rlb").read_bytes())
    assert out.read_bytes() == bytes(archive.find("prop_003.msh").data)


def test_a_file_that_is_no_library_of_ours_is_never_written_over(blender, built, tmp_path):
    folder, _, _ = built
    bpy = blender.bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.data.objects.new("mine", None)
    bpy.context.scene.collection.objects.link(bpy.data.objects["mine"])
    mine = tmp_path / "mine.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(mine), copy=True)
    text = tmp_path / "notes.blend"
    text.write_text("not a .blend at all")
    for path, reason in ((mine, "is not an asset library this command wrote"), (text, "cannot read it as a library")):
        before = path.read_bytes()
        for extra in ((), ("--rebuild",)):
            result = batch("library", str(folder), "-o", str(path), *extra)
            assert result.returncode == 2 and reason in result.stderr, result.stdout + result.stderr
            assert path.read_bytes() == before and not (tmp_path / "blender_assets.cats.txt").exists()


def test_a_run_that_fails_while_putting_the_library_together_leaves_it_as_it_was(built, tmp_path):
    folder, first, _ = built
    library = tmp_path / "Parkan.blend"
    shutil.copy(first, library)
    (tmp_path / "blender_assets.cats.txt").write_text("the old catalogues")
    result = batch("library", str(folder), "-o", str(library), "--size", str(SIZE), "--rebuild",
                   env={"IO_MSH_BATCH_FAULT": "crash:library Parkan.blend"})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "library: FAILED: the Blender process" in result.stdout and "was left as it was" in result.stdout
    assert library.read_bytes() == first.read_bytes()
    assert (tmp_path / "blender_assets.cats.txt").read_text() == "the old catalogues"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Parkan.blend", "blender_assets.cats.txt"]


@pytest.fixture
def plan(blender):
    """io_msh.batch.library_plan (plain Python), as the extension package loads it."""
    import importlib

    return importlib.import_module(f"{blender.ext.__name__}.io_msh.batch.library_plan")


def fingerprints(plan, folder):
    return {meta.key: meta.fingerprint for _item, meta in plan.plan_library(str(folder), SIZE, [])}


def test_a_fingerprint_covers_what_the_asset_is_made_of_and_nothing_else(plan, tmp_path):
    walker = shutil.copytree(ROOT / "samples" / "walker", tmp_path / "walker")
    before = fingerprints(plan, walker)
    (walker / "notes.txt").write_text("not part of the walker")
    assert fingerprints(plan, walker) == before
    (walker / "walker.ctl").write_bytes((walker / "walker.ctl").read_bytes() + b"\0")  # its controller beside it
    assert fingerprints(plan, walker)["walker.msh"] != before["walker.msh"]
    folder = game.write_game(tmp_path / "game", models=3, unit_count=2)
    before = fingerprints(plan, folder)
    archive = game.model_archive(0, 3)
    archive.entries[5].data = b"2\r\n0 SAMPLE_METAL\r\n1 SAMPLE_BODY\r\n"  # prop_002.wea: prop_002's look alone
    (folder / "MODELS" / "props_00.rlb").write_bytes(archive.to_bytes())
    after = fingerprints(plan, folder)
    assert {k for k in after if after[k] != before[k]} == {"MODELS/props_00.rlb:4:prop_002.msh"}
    parts = Archive.parse((folder / units.PARTS).read_bytes())
    parts.entries[-1].data = bytes(16) + b"\1"  # synth_fort.bas: in the parts archive every unit reads
    (folder / units.PARTS).write_bytes(parts.to_bytes())
    changed = {k for k, v in fingerprints(plan, folder).items() if v != after[k]}
    assert changed == {"UNITS/GEN/unit_000.dat", "UNITS/GEN/unit_001.dat"}
    (folder / "Textures.lib").write_bytes((folder / "Textures.lib").read_bytes() + b"\0")  # every look changes
    assert not set(fingerprints(plan, folder).values()) & set(after.values())
