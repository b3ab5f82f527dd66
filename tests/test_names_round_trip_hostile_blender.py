"""Names from the game's files into Blender and back, attacked through the real operators: node names (Res9 and
Res10, bones and Empties), model and archive entry names, WEAR and LIGHTMAPS rows, controller clips and sliders,
unit parts, records and display names, map objects and clans.

Game names are cp1251 (a Cyrillic letter is one byte; two in UTF-8) of up to 35 bytes (NRes entries), 31 (Res9,
unit blocks) or any length (Res10 labels, WEAR rows); Blender keeps 63 bytes of UTF-8 for a bone name and, on 4.2
and 4.5, for an ID name (255 on 5.0), and numbers a name already in use (``NAME.001``). The names tried: the
longest a field holds, Cyrillic (``ё`` is 0xB8), ending like a Blender number (``X.001``, ``X.999``, ``X.1234``),
equal to a user's object, material, action or collection already in the .blend, equal between two things of one
model (two nodes, a node and the model), holding ``"``, ``\\``, ``[``, ``]``, ``.``, spaces at the end, empty.
Each file is imported (twice into one scene, into a scene already holding those names) and exported unedited: the
promise is the same bytes. An edit elsewhere keeps every name the user did not touch.

Found by this file and fixed (each test says what the game would have done wrong): a bone whose name holds ``"]``
lost its animation on an unedited export; a slider of a node of a long name failed the whole import, and one of a
node named with ``"`` or ``\\`` posed nothing; a WEAR row ending like a Blender number lost it when Blender
numbered its material again; a row holding 0x98 (which cp1251 leaves undefined) showed DEFAULT and refused the
export; a batch naming a row past its list got the import's placeholder name written into the list; entries named
like ``d/a.msh`` and ``c/a.msh`` got a new entry ``a.wea``; Show Unit Clip did not find a clip whose actions
Blender numbered or cut."""

import dataclasses
import os
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_materials_blender import model_archive, write_game

from core.animation.controller import CTLD_TYPE_ID
from core.animation.sampler import AnimationData, sample
from core.appearance.mat0 import MAT0_TYPE_ID
from core.appearance.texm import TEXM_TYPE_ID
from core.appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID
from core.authoring import units as U
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.authoring.map_game import mission_game_files
from core.authoring.synth import random_model, sample_libraries
from core.container.nres import MODEL_TYPE_ID, Archive
from core.files import open_container
from core.map.tma import parse_tma
from core.msh.labels import encode_name32
from core.msh.model import Model
from core.unit.objects import tag_id

SWEEP = os.environ.get("IO_MSH_SWEEP")
MODES = ["ARMATURE", "EMPTIES"]
RATE = 24.0

# Res9 names (at most 31 cp1251 bytes): "" leaves the node to its Res10 label, else to Blender's "node_<i>"
LONGEST = "Ж" * 31
YO = "ё" * 16 + "Ё" * 15
MIXED = ("Бронетранспортёр_левый_" * 2)[:31]
RES9 = [LONGEST, YO, MIXED, "X.001", "X.999", "X.1234", "X", "X", "in.msh", "in.msh|Action", 'a"b', "c\\d",
        "e[0]", "f.g.h", "tail  ", " ", "node_1", "", "", "Ж.001"]
# Res10 labels: any length
RES10 = [None, "Ж" * 100, "L" * 200, 'lab"el\\', "X.001", LONGEST, "node_2", "lab[0]"]


def select_only(bpy, obj) -> None:
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def model_roots(bpy) -> list:
    return sorted((o for o in bpy.data.objects if "msh_model" in o), key=lambda o: o.name)


def named_model(names, labels, seed: int = 7, stem: str = "in") -> bytes:
    """random_model with these Res9 names and Res10 labels, every node animated."""
    spec = random_model(seed, node_count=len(names), frame_count=9, animated=1.0, name=f"{stem}.msh")
    spec.nodes = [dataclasses.replace(n, name=name, label=label)
                  for n, name, label in zip(spec.nodes, names, labels)]
    return build_model(spec).to_bytes()


def user_data(bpy, objects=(), actions=(), materials=(), collections=(), images=()) -> None:
    """What the user's .blend holds before the import: Empties, actions, materials, collections and images of
    those names."""
    for name in images:
        bpy.data.images.new(name, 2, 2)
    for name in objects:
        bpy.context.collection.objects.link(bpy.data.objects.new(name, None))
    for name in actions:
        bpy.data.actions.new(name).use_fake_user = True
    for name in materials:
        bpy.data.materials.new(name)
    for name in collections:
        bpy.context.scene.collection.children.link(bpy.data.collections.new(name))


def export_each_model(bpy, folder) -> dict[str, bytes]:
    """Every model root exported alone to a file of its own: the bytes by root name."""
    out = {}
    for i, root in enumerate(model_roots(bpy)):
        select_only(bpy, root)
        path = folder / f"out{i}.msh"
        assert bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
        out[root.name] = path.read_bytes()
    return out


def export_each_into(bpy, archive_path) -> dict[str, bytes]:
    """Every model root exported unedited into the archive it came from, the archive put back after each: the
    archive's bytes after each export, by root name."""
    source = archive_path.read_bytes()
    out = {}
    for root in model_roots(bpy):
        select_only(bpy, root)
        assert bpy.ops.export_scene.parkan_msh(filepath=str(archive_path)) == {"FINISHED"}
        out[root.name] = archive_path.read_bytes()
        archive_path.write_bytes(source)
    return out


def changed(outputs: dict[str, bytes], source: bytes) -> list[str]:
    return [name for name, data in outputs.items() if data != source]


# ------------------------------------------------------------------------------------------------ node names
def every_hostile_node():
    names = list(RES9)
    labels = [RES10[i % len(RES10)] for i in range(len(names))]
    return names, labels


@pytest.mark.parametrize("node_mode", MODES)
def test_every_hostile_node_name_exports_as_it_came_twice_over_the_users_names(blender, tmp_path, node_mode):
    """Every name of RES9 in one model (with RES10's labels), imported twice into a .blend holding objects of all
    those names and actions of the model's: both copies export byte for byte."""
    bpy = blender.bpy
    names, labels = every_hostile_node()
    data = named_model(names, labels)
    user_data(bpy, objects=[*sorted({n for n in (*names, *labels) if n}), "in.msh"],
              actions=["in.msh|Action", "in.msh|X"])
    path = tmp_path / "in.msh"
    path.write_bytes(data)
    for _ in range(2):
        assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode) == {"FINISHED"}
    outputs = export_each_model(bpy, tmp_path)
    assert len(outputs) == 2
    assert changed(outputs, data) == []


NAME_PAIRS = st.tuples(st.sampled_from(RES9), st.sampled_from(RES10))


@settings(max_examples=int(SWEEP or 25), deadline=None, derandomize=SWEEP is None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(nodes=st.lists(NAME_PAIRS, min_size=2, max_size=6), node_mode=st.sampled_from(MODES), twice=st.booleans(),
       existing=st.lists(st.sampled_from([*RES9, *(n for n in RES10 if n)]), max_size=4), seed=st.integers(0, 99))
def test_any_node_names_export_as_they_came(blender, tmp_path, nodes, node_mode, twice, existing, seed):
    """Any mix of the names (``"]`` aside: test_a_bone_named_with_a_quote_and_bracket_keeps_its_animation)."""
    bpy = blender.bpy
    blender.clean_scene()
    names, labels = zip(*nodes)
    data = named_model(list(names), list(labels), seed)
    user_data(bpy, objects=[n for n in existing if n])
    folder = tmp_path / f"s{seed}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / "in.msh").write_bytes(data)
    for _ in range(1 + twice):
        assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "in.msh"), node_mode=node_mode) == {"FINISHED"}
    assert changed(export_each_model(bpy, folder), data) == []


def node_curves(blender, root, index: int) -> list:
    compat = blender.ext.io_msh.com.compat
    if root.type == "ARMATURE":
        bone = next(b for b in root.data.bones if b["msh_node_index"] == index)
        escaped = bone.name.replace("\\", "\\\\").replace('"', '\\"')
        return [c for c in compat.assigned_fcurves(root) if c.data_path.startswith(f'pose.bones["{escaped}"]')]
    empty = next(o for o in root.children_recursive if o.type == "EMPTY" and o.get("msh_node_index") == index)
    return list(compat.assigned_fcurves(empty))


def node_item(root, index: int):
    if root.type == "ARMATURE":
        return next(b for b in root.data.bones if b["msh_node_index"] == index)
    return next(o for o in root.children_recursive if o.type == "EMPTY" and o.get("msh_node_index") == index)


@pytest.mark.parametrize("node_mode", MODES)
def test_an_edit_and_a_rename_elsewhere_keep_every_other_name_as_the_file_has_it(blender, tmp_path, node_mode):
    """Node 0 renamed and node 1's keys moved: Res9 changes for node 0 alone, Res10 not at all, whatever the other
    names are (cut, numbered by Blender, Res10 alone, in use by the user's objects)."""
    bpy = blender.bpy
    names = ["plain", "moved", LONGEST, "X.001", "X", "X", "", "", 'a"b']
    labels = [None, None, None, None, None, "Ж" * 40, "L" * 90, "X.001", "lab\\"]
    data = named_model(names, labels)
    user_data(bpy, objects=["X", "X.001", "L" * 63, "in.msh"])
    (tmp_path / "in.msh").write_bytes(data)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "in.msh"), node_mode=node_mode) == {"FINISHED"}
    (root,) = model_roots(bpy)
    node_item(root, 0).name = "renamed"
    curve = next(c for c in node_curves(blender, root, 1) if len(c.keyframe_points) > 1)
    curve.keyframe_points[1].co.y += 0.25
    curve.update()
    out = export_each_model(bpy, tmp_path)[root.name]
    source, written = Model.parse(data), Model.parse(out)
    assert written.keys.tobytes() != source.keys.tobytes()  # the edit was written
    assert bytes(written.stream(10).data) == bytes(source.stream(10).data)
    want = source.node_names_raw.copy()
    want[0] = encode_name32("renamed")
    assert written.node_names_raw.tobytes() == want.tobytes()


def distinct_poses(data: bytes, node: int) -> int:
    """How many different poses the game shows node ``node`` in over the model's frames."""
    model = Model.parse(data)
    got = sample(AnimationData.from_model(model), np.arange(model.frame_count, dtype=np.float32), [node])
    return len(np.unique(np.concatenate([got.rot[0], got.pos[0]], axis=1), axis=0))


@pytest.mark.parametrize("name", ['a"]b', '"]', 'Ж"]Ж[0]'])
@pytest.mark.parametrize("node_mode", MODES)
def test_a_bone_named_with_a_quote_and_bracket_keeps_its_animation(blender, tmp_path, node_mode, name):
    """A node named ``a"]b`` (any bytes are a name) is a bone ``a"]b`` whose F-curves' path is
    ``pose.bones["a\\"]b"].location``: the export must read the whole name (it read up to the first ``"]``,
    ``a\\``, found no such bone, and wrote the node still, frozen in the game where the file moved it). Empties
    hold no names in their paths."""
    bpy = blender.bpy
    data = named_model(["body", name, "leg"], [None, None, None])
    (tmp_path / "in.msh").write_bytes(data)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "in.msh"), node_mode=node_mode) == {"FINISHED"}
    (out,) = export_each_model(bpy, tmp_path).values()
    assert distinct_poses(out, 1) == distinct_poses(data, 1)  # the node's poses over the frames
    assert out == data


# ------------------------------------------------------------------------------------------- clips and sliders
def walker_archive(stems: list[str], node_names: dict[int, str]) -> bytes:
    """The walker (core.authoring.controllers) under each stem, with its controller, its nodes renamed."""
    archive = Archive()
    for stem in stems:
        spec = walker_model(f"{stem}.msh")
        spec.nodes = [dataclasses.replace(n, name=node_names.get(i, n.name)) for i, n in enumerate(spec.nodes)]
        archive.add(f"{stem}.msh", build_model(spec).to_bytes(), MODEL_TYPE_ID)
        archive.add(f"{stem}.ctl", walker_controller().to_bytes(), CTLD_TYPE_ID)
    return archive.to_bytes()


# the turret (1) and gun (2) have sliders: 24 Cyrillic letters keep "msh_channel 0 <name>" within 63 bytes
WALKER_NODES = {0: "walker.msh", 1: "Б" * 24, 2: "X.001", 3: LONGEST, 4: "walker.msh|stand 0"}


@pytest.mark.parametrize("clips", ["ACTIONS", "NLA"])
@pytest.mark.parametrize("node_mode", MODES)
def test_clips_and_sliders_of_hostile_names_export_as_they_came(blender, tmp_path, node_mode, clips):
    """Two walkers of one archive (one named 35 cp1251 bytes: its clip actions' names are cut on 4.x), imported
    twice over the user's actions of the clips' names; Update Clips and Write Clip to Timeline with nothing edited
    on the second copies; every copy exports into the archive byte for byte (the controllers untouched)."""
    bpy = blender.bpy
    stems = ["walker", "Ш" * 31]
    data = walker_archive(stems, WALKER_NODES)
    path = tmp_path / "walkers.rlb"
    path.write_bytes(data)
    user_data(bpy, actions=["walker.msh|stand 0", "walker.msh|walk 1.001", "walker.msh|Action",
                            f"{stems[1]}.msh|run 2"], objects=["walker.msh", WALKER_NODES[1]])
    for _ in range(2):
        assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode, clips=clips,
                                               frame_rate=RATE) == {"FINISHED"}
    roots = model_roots(bpy)
    assert len(roots) == 4 and all(len(r["msh_clips"]) == 3 for r in roots)
    for root in roots[1::2]:
        select_only(bpy, root)
        assert bpy.ops.object.parkan_update_clips() == {"FINISHED"}
        for clip in list(root["msh_clips"]):
            assert bpy.ops.object.parkan_clip_to_timeline(clip=clip) == {"FINISHED"}
    assert changed(export_each_into(bpy, path), data) == []


def walker_with_turret_named(bpy, tmp_path, node_mode: str, **names) -> tuple:
    """The walker with its turret (node 1, which a channel's slider poses) given ``names`` (name=, label=),
    imported with its clips: the file's bytes and the model root."""
    spec = walker_model()
    spec.nodes[1] = dataclasses.replace(spec.nodes[1], **names)
    data = build_model(spec).to_bytes()
    (tmp_path / "walker.msh").write_bytes(data)
    (tmp_path / "walker.ctl").write_bytes(walker_controller().to_bytes())
    assert bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "walker.msh"), node_mode=node_mode,
                                           clips="ACTIONS", frame_rate=RATE) == {"FINISHED"}
    (root,) = model_roots(bpy)
    return data, root


@pytest.mark.parametrize(("name", "label"), [("Ж" * 25, None), (LONGEST, None), ("", "turret_" + "L" * 43)],
                         ids=["25 Cyrillic letters", "31 Cyrillic letters", "a Res10 label of 50 bytes"])
@pytest.mark.parametrize("node_mode", MODES)
def test_a_slider_of_a_node_with_a_long_name_imports_and_exports_as_it_came(blender, tmp_path, node_mode, name,
                                                                            label):
    """The turret's channel slider is the root's custom property ``msh_channel 0 <node name>``; Blender keeps 63
    bytes of a property name, so the name is cut for a node name of 50 UTF-8 bytes or more (25 Cyrillic letters:
    Res9 holds 31); uncut, it failed the whole import ("KeyError: the length of IDProperty names is limited to 63
    characters")."""
    bpy = blender.bpy
    data, root = walker_with_turret_named(bpy, tmp_path, node_mode, name=name, label=label)
    assert len([k for k in sorted(root.keys()) if k.startswith("msh_channel ")]) == 2
    assert changed(export_each_model(bpy, tmp_path), data) == []


def shown_rotation(root, index: int) -> tuple:
    item = root.pose.bones[node_item(root, index).name] if root.type == "ARMATURE" else node_item(root, index)
    return tuple(round(v, 5) for v in item.rotation_quaternion)


@pytest.mark.parametrize("name", ['tur"ret', "tur\\ret"])
@pytest.mark.parametrize("node_mode", MODES)
def test_a_slider_of_a_node_named_with_a_quote_or_backslash_poses_it(blender, tmp_path, node_mode, name):
    """The slider drivers read ``["msh_channel 0 tur\\"ret"]``, the property's name escaped in the path (unescaped,
    Blender could not resolve it: the drivers were invalid and the turret's slider posed nothing)."""
    bpy = blender.bpy
    data, root = walker_with_turret_named(bpy, tmp_path, node_mode, name=name)
    assert changed(export_each_model(bpy, tmp_path), data) == []
    holders = [root, *root.children_recursive]
    invalid = [(h.name, f.data_path) for h in holders if h.animation_data for f in h.animation_data.drivers
               if not f.driver.is_valid]
    slider = f"msh_channel 0 {name}"
    shown = []
    for value in (0.0, 1.0):
        root[slider] = value
        root.update_tag()
        bpy.context.view_layer.update()
        shown.append(shown_rotation(root, 1))
    assert invalid == [] and shown[0] != shown[1]


# ---------------------------------------------------------------------------------------- archive entry names
ENTRY_SETS = {
    "long, escaped and numbered": ["Б" * 31 + ".msh", "Б" * 30 + "Ё.msh", "a\\b.msh", b"c\x98d.msh", 'e"f[0].msh',
                                   "g.msh ", "h.001", "h", "ё" * 31],
    "repeated and in two cases": ["a.msh", "a.msh", "A.msh"],
}


def entry_archive(names) -> bytes:
    """A model and its WEAR list per name (the list named by the model's stem)."""
    archive = Archive()
    for i, name in enumerate(names):
        raw = name.encode("cp1251") if isinstance(name, str) else name
        archive.add(raw, named_model(["root", "n1", "n2"], [None] * 3, seed=20 + i), MODEL_TYPE_ID)
        archive.add(raw.rsplit(b".", 1)[0] + b".wea", b"3\r\n0 GLASS\r\n1 SAMPLE_METAL\r\n2 SKIN\r\n", WEAR_TYPE_ID,
                    **WEAR_ATTRS)
    return archive.to_bytes()


@pytest.mark.parametrize("case", sorted(ENTRY_SETS))
@pytest.mark.parametrize("node_mode", MODES)
def test_hostile_entry_names_export_into_their_archive_as_they_came(blender, tmp_path, node_mode, case):
    bpy = blender.bpy
    game = write_game(tmp_path / "game", sample_libraries())
    data = entry_archive(ENTRY_SETS[case])
    path = game / "models.rlb"
    path.write_bytes(data)
    user_data(bpy, objects=[n for n in ENTRY_SETS[case] if isinstance(n, str)] + ["in.msh"],
              actions=[f"{n}|Action" for n in ENTRY_SETS[case] if isinstance(n, str)])
    for _ in range(2):
        assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode) == {"FINISHED"}
    outputs = export_each_into(bpy, path)
    assert len(outputs) == 2 * len(ENTRY_SETS[case])
    assert changed(outputs, data) == []


def test_models_of_one_file_name_in_two_folders_of_an_archive_keep_their_lists(blender, tmp_path):
    """Entries ``d/a.msh`` (with ``d/a.wea``) and ``c/a.msh`` (``c/a.wea``): names are any cp1251 bytes. The unedited
    export of either into the archive keeps both lists (an entry name is no path: taking ``Path(name).stem``, the
    export made the two models "twins" and added a list ``a.wea`` no model had, which the game would take for a
    model ``a.msh``'s)."""
    bpy = blender.bpy
    game = write_game(tmp_path / "game", sample_libraries())
    data = entry_archive(["d/a.msh", "c/a.msh"])
    path = game / "models.rlb"
    path.write_bytes(data)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    outputs = export_each_into(bpy, path)
    assert {n: [e.name for e in Archive.parse(d).entries] for n, d in outputs.items()} == {
        n: [e.name for e in Archive.parse(data).entries] for n in outputs}
    assert changed(outputs, data) == []


# ------------------------------------------------------------------------------------------ WEAR and LIGHTMAPS
def libraries_with(materials=(), lightmaps=()) -> dict:
    """sample_libraries with more Material.lib entries (GLOW's record) and LightMap.lib entries (LM_SAMPLE.0's)."""
    libs = sample_libraries()
    glow = libs["Material.lib"].find("GLOW")
    for name in materials:
        libs["Material.lib"].add(name, bytes(glow.data), MAT0_TYPE_ID, attr1=glow.attr1, attr2=glow.attr2)
    lightmap = libs["LightMap.lib"].find("LM_SAMPLE.0")
    for name in lightmaps:
        libs["LightMap.lib"].add(name, bytes(lightmap.data), TEXM_TYPE_ID, attr1=lightmap.attr1,
                                 attr2=lightmap.attr2, attr3=lightmap.attr3)
    return libs


def wear_bytes(rows, lightmap=None) -> bytes:
    """A WEAR list in cp1251 (rows as text or bytes)."""
    rows = [r.encode("cp1251") if isinstance(r, str) else r for r in rows]
    out = b"%d\r\n" % len(rows) + b"".join(b"%d %s\r\n" % (i, r) for i, r in enumerate(rows))
    if lightmap is not None:
        out += b"\r\nLIGHTMAPS\r\n1\r\n0 " + lightmap.encode("cp1251") + b"\r\n"
    return out


def assert_wear_exports_as_it_came(blender, tmp_path, rows, libs, lightmap=None, user=(), times: int = 1):
    """The model of that WEAR list, imported ``times`` times into a .blend holding the ``user`` materials (and
    images of the textures' names): each copy exports its model and its list byte for byte."""
    bpy = blender.bpy
    game = write_game(tmp_path / "game", libs)
    (game / "unit.rlb").write_bytes(model_archive(wear_bytes(rows, lightmap), len(rows), lightmap is not None))
    user_data(bpy, materials=user, images=["GLASS.0", "METAL.0", "LM_SAMPLE.0"])
    for _ in range(times):
        assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb")) == {"FINISHED"}
    source = {e.name_str: bytes(e.data) for e in open_container(str(game / "unit.rlb")).archive.entries}
    lists = {}
    for i, root in enumerate(model_roots(bpy)):
        select_only(bpy, root)
        out = tmp_path / f"out{i}.msh"
        assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
        assert out.read_bytes() == source["unit.msh"]
        lists[root.name] = out.with_suffix(".wea").read_bytes()
    assert len(lists) == times
    assert lists == dict.fromkeys(lists, source["unit.wea"])


CYRILLIC_ROW = "Ж" * 35  # 35 cp1251 bytes, 70 in UTF-8
HELD = {  # rows, Material.lib entries to add, lightmap row (and LightMap.lib entry), the user's materials
    "Cyrillic and yo, repeated": (["ё" * 17 + "Ё" * 18, CYRILLIC_ROW, CYRILLIC_ROW, "GLASS"],
                                  ["ё" * 17 + "Ё" * 18, CYRILLIC_ROW], None, [CYRILLIC_ROW, "GLASS"]),
    "quotes and brackets": (['a"b\\c[0]', 'a"b\\c[0]', "GLASS"], ['a"b\\c[0]'], None, ['a"b\\c[0]']),
    "the user's materials of the rows' names": (["GLASS", "SAMPLE_METAL", "GLASS"], [], None,
                                                ["GLASS", "GLASS.001", "SAMPLE_METAL"]),
    "lightmapped, numbered": (["GLASS.001", "GLASS", "GLASS.001"], ["GLASS.001"], "LM_SAMPLE.0",
                              ["GLASS.001 + LM_SAMPLE.0"]),
    "lightmapped, cut": ([CYRILLIC_ROW, CYRILLIC_ROW, "GLASS"], [CYRILLIC_ROW], "Ё" * 33 + ".0", []),
    "lightmap row numbered": (["GLASS", "GLASS"], [], "LM.001", ["GLASS + LM.001"]),
}


@pytest.mark.parametrize("times", [1, 2], ids=["once", "twice"])
@pytest.mark.parametrize("case", sorted(HELD))
def test_wear_and_lightmap_rows_export_as_they_came(blender, tmp_path, case, times):
    rows, entries, lightmap, user = HELD[case]
    libs = libraries_with(entries, [lightmap] if lightmap else [])
    assert_wear_exports_as_it_came(blender, tmp_path, rows, libs, lightmap, user, times)


NUMBERED_AGAIN = {  # rows, the user's materials, how many times the model is imported
    "a row GLASS.001 after two GLASS": (["GLASS", "GLASS", "GLASS.001"], [], 1),
    "a row GLASS.001 twice": (["GLASS.001", "GLASS.001"], [], 1),
    "a row GLASS.001 beside the user's GLASS.001": (["GLASS.001"], ["GLASS.001"], 1),
    "a row GLASS.999 twice": (["GLASS.999", "GLASS.999"], [], 1),
    "a row GLASS.1234 twice": (["GLASS.1234", "GLASS.1234"], [], 1),
    "a row GLASS.001, the model imported twice": (["GLASS.001", "SAMPLE_METAL"], [], 2),
}


@pytest.mark.parametrize("case", sorted(NUMBERED_AGAIN))
def test_a_row_ending_like_a_blender_number_that_blender_numbers_again_exports_as_it_came(blender, tmp_path, case):
    """A Material.lib entry ``GLASS.001`` worn by a row ``GLASS.001`` whose material name Blender numbers because
    the name is taken (by an earlier row's material, the user's, or the first import's): ``materials.new(
    "GLASS.001")`` gives ``GLASS.002`` (``GLASS.999`` and ``GLASS.1234`` give ``GLASS.001``): the export writes the
    row as it came (it wrote ``GLASS``, and the game would draw GLASS there instead of GLASS.001)."""
    rows, user, times = NUMBERED_AGAIN[case]
    libs = libraries_with(sorted({r for r in rows if r.startswith("GLASS.")}))
    assert_wear_exports_as_it_came(blender, tmp_path, rows, libs, user=user, times=times)


def test_a_wear_row_holding_a_byte_cp1251_lacks_exports_as_it_came(blender, tmp_path):
    """A row naming the Material.lib entry ``a\\x98b`` (0x98 is no cp1251 character; an NRes name may hold it, and
    the project's own name escapes keep it): the row reads as U+0098 and is written back as 0x98 (it read as
    U+FFFD: the import showed DEFAULT where the game draws that entry, and the unedited export refused)."""
    assert_wear_exports_as_it_came(blender, tmp_path, [b"a\x98b", b"GLASS"], libraries_with([b"a\x98b"]))


def test_a_batch_naming_a_row_past_the_wear_list_exports_the_list_as_it_came(blender, tmp_path):
    """Node 1's batch wears row 1 of a one-row list (the import warns "batch material 1 has no row in the 1-row WEAR
    list" and shows the placeholder material ``material_1``): the unedited export writes the list as it came (not
    with a row ``1 material_1`` added, a name the import made up, which the game would look up in
    Material.lib)."""
    bpy = blender.bpy
    game = write_game(tmp_path / "game", sample_libraries())
    (game / "unit.rlb").write_bytes(model_archive(wear_bytes(["GLASS"]), 2))
    assert bpy.ops.import_scene.parkan_msh(filepath=str(game / "unit.rlb")) == {"FINISHED"}
    out = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(out)) == {"FINISHED"}
    source = {e.name_str: bytes(e.data) for e in open_container(str(game / "unit.rlb")).archive.entries}
    assert out.read_bytes() == source["unit.msh"]
    assert out.with_suffix(".wea").read_bytes() == source["unit.wea"]


# ------------------------------------------------------------------------------------------------------- units
def renamed_nodes(data: bytes, names: dict[int, str]) -> bytes:
    model = Model.parse(data)
    raw = model.node_names_raw.copy()
    for index, name in names.items():
        raw[index] = encode_name32(name)
    model.set_stream(9, raw.tobytes())
    return model.to_bytes()


def unit_files(stems: dict[str, str], nodes: dict[str, dict[int, str]], displays: dict[int, str]) -> dict:
    """core.authoring.units' robot with its parts' archive entries and objects.rlb records renamed (``stems``), its
    parts' nodes renamed (``nodes``, by the original stem) and components' display names (``displays``)."""
    parts = Archive()
    for stem, data in U._models().items():
        new = stems.get(stem, stem)
        data = renamed_nodes(data, nodes.get(stem, {}))
        parts.add(f"{new}.msh", data)
        parts.add(f"{new}.wea", U.WEAR, WEAR_TYPE_ID, **WEAR_ATTRS)
        parts.add(f"{new}.cpt", U._points(stem), tag_id("CTPT"))
        parts.add(f"{new}.ndp", U._damage(stem, Model.parse(data).node_count), tag_id("NDPT"))
        parts.add(f"{new}.ctl", U.CONTROLLER, tag_id("CTLD"))
    records = Archive()
    for entry in U.objects_archive().entries:
        key, payload = entry.name_str, bytes(entry.data)
        if key in stems:
            key, payload = stems[key], U.part_slots(stems[key], 2 if key == "synth_chassis" else 0)
        records.add(key, payload, entry.type_id)
    tree = U.unit_tree()
    for component in tree.components:
        if component.record in stems:
            component.set_record(stems[component.record])
    for index, display in displays.items():
        tree.components[index].display_raw = U.Component.new("x", 0, 0, display).display_raw
    return {U.OBJECTS: records.to_bytes(), U.PARTS: parts.to_bytes(), U.UNIT_DAT: tree.to_bytes()}


def write_files(root, files: dict) -> dict:
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return snapshot(root)


def snapshot(root) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def export_each_unit(bpy, root, before: dict) -> list[list[str]]:
    """Export Unit of every unit in the scene onto its .dat: the files each export changed (put back after)."""
    out = []
    for unit in [c for c in bpy.data.collections if "msh_unit" in c]:
        select_only(bpy, next(o for o in unit.all_objects if o.get("msh_unit_component") == 0))
        assert bpy.ops.export_scene.parkan_unit(filepath=str(root / U.UNIT_DAT)) == {"FINISHED"}
        after = snapshot(root)
        out.append(sorted(name for name in after if after[name] != before.get(name)))
        for name, data in before.items():
            (root / name).write_bytes(data)
    return out


UNIT_STEMS = {"synth_chassis": "Ш" * 27, "e_tur_lt_01": "Б" * 26 + "ё", "e_gun_ll_01": "Ё" * 27,
              "e_tur_mt_01": "e_tur_mt_01.001"}
UNIT_NODES = {"synth_chassis": {0: "Ш" * 27 + ".msh", 1: LONGEST, 2: LONGEST},  # two sockets of one name
              "e_tur_lt_01": {2: 'Base "[x]\\', 3: "Base_LU_01.001"}, "e_gun_ll_01": {1: "X.001", 2: "X"}}
UNIT_DISPLAYS = {0: "Ш" * 31, 3: "Ш" * 31, 4: 'Ш"[0]\\'}


@pytest.mark.parametrize("node_mode", MODES)
def test_hostile_unit_names_export_as_they_came_twice_over_the_users_names(blender, tmp_path, node_mode):
    """Parts' entries and records of 27 Cyrillic letters (a slot's member holds 31 bytes with ``.msh``), sockets
    of one name and of quotes, display names of 31 letters, twice into one scene holding objects and collections
    of the unit's, parts' and sockets' names: each unit's export changes no file."""
    bpy = blender.bpy
    before = write_files(tmp_path, unit_files(UNIT_STEMS, UNIT_NODES, UNIT_DISPLAYS))
    user_data(bpy, objects=["synth_unit.dat", "Ш" * 27 + ".msh", "Ё" * 27 + ".msh", LONGEST, "Ш" * 27 + ".msh mount"],
              collections=["synth_unit.dat", "synth_unit.dat internal parts"])
    for _ in range(2):
        assert bpy.ops.import_scene.parkan_unit(filepath=str(tmp_path / U.UNIT_DAT), node_mode=node_mode) == {
            "FINISHED"}
    parts = [o for o in bpy.data.objects if "msh_unit_component" in o and "msh_model" in o]
    assert len(parts) == 2 * len(U.unit_tree().components)
    assert export_each_unit(bpy, tmp_path, before) == [[], []]


@pytest.mark.parametrize("node_mode", MODES)
def test_a_unit_part_with_a_bone_named_with_a_quote_and_bracket_is_not_rewritten(blender, tmp_path, node_mode):
    """test_a_bone_named_with_a_quote_and_bracket_keeps_its_animation in a unit: the turret's turning node named
    ``Turn"]``; the unedited Export Unit leaves the turret's entry in the parts archive as it came (it rewrote it
    with that node frozen)."""
    bpy = blender.bpy
    before = write_files(tmp_path, unit_files({}, {"e_tur_lt_01": {1: 'Turn"]'}}, {}))
    assert bpy.ops.import_scene.parkan_unit(filepath=str(tmp_path / U.UNIT_DAT), node_mode=node_mode) == {
        "FINISHED"}
    assert export_each_unit(bpy, tmp_path, before) == [[]]


def clip_unit_files(chassis: str = "synth_chassis") -> dict:
    """unit_files with the chassis walking (the walker's controller: clips stand 0, walk 1, run 2), its entry and
    record named ``chassis``."""
    files = unit_files({} if chassis == "synth_chassis" else {"synth_chassis": chassis}, {}, {})
    parts = Archive.parse(files[U.PARTS])
    parts.find(f"{chassis}.ctl").data = walker_controller().to_bytes()
    files[U.PARTS] = parts.to_bytes()
    return files


CLIP_UNITS = {  # the chassis's name, the user's actions, how many times the unit is imported
    "imported twice": ("synth_chassis", [], 2),
    "the user's action of a clip's name": ("synth_chassis", ["synth_chassis.msh|walk 1"], 1),
    "a chassis of 27 Cyrillic letters": ("Ш" * 27, [], 1),
}


@pytest.mark.parametrize("case", sorted(CLIP_UNITS))
@pytest.mark.parametrize("node_mode", MODES)
def test_a_clip_unit_of_numbered_or_cut_clip_names_exports_as_it_came(blender, tmp_path, node_mode, case):
    bpy = blender.bpy
    chassis, actions, times = CLIP_UNITS[case]
    before = write_files(tmp_path, clip_unit_files(chassis))
    user_data(bpy, actions=actions)
    for _ in range(times):
        assert bpy.ops.import_scene.parkan_unit(filepath=str(tmp_path / U.UNIT_DAT), node_mode=node_mode,
                                                clips="ACTIONS") == {"FINISHED"}
    assert export_each_unit(bpy, tmp_path, before) == [[]] * times


@pytest.mark.parametrize("case", sorted(CLIP_UNITS))
@pytest.mark.parametrize("node_mode", MODES)
def test_show_unit_clip_finds_the_clip_whatever_blender_named_its_actions(blender, tmp_path, node_mode, case):
    """Show Unit Clip ``walk 1`` finds each part's clip by the label the import recorded. Blender names the
    chassis's clip actions ``synth_chassis.msh|walk 1.001`` in a second import of the unit, or beside the user's
    action of that name, and on 4.2 and 4.5 cuts ``<27 Cyrillic letters>.msh|walk 1`` to 63 bytes
    (``...msh|wal``): taken from the action's name, the label was ``walk 1.001`` or ``wal``, and "No part of the
    unit has a clip 'walk 1'"."""
    bpy = blender.bpy
    chassis, actions, times = CLIP_UNITS[case]
    write_files(tmp_path, clip_unit_files(chassis))
    user_data(bpy, actions=actions)
    for _ in range(times):
        assert bpy.ops.import_scene.parkan_unit(filepath=str(tmp_path / U.UNIT_DAT), node_mode=node_mode,
                                                clips="ACTIONS") == {"FINISHED"}
    shown = {}
    for unit in [c for c in bpy.data.collections if "msh_unit" in c]:
        try:
            shown[unit.name] = bpy.ops.object.parkan_unit_clip(clip="walk 1", collection=unit.name)
        except RuntimeError as exc:
            shown[unit.name] = str(exc).strip()
    assert len(shown) == times
    assert shown == {name: {"FINISHED"} for name in shown}


# -------------------------------------------------------------------------------------------------------- maps
MISSION = "MISSIONS/SAMPLE/data.tma"


def hostile_mission_files() -> dict:
    """core.authoring.map_game's game folder with the mission's instance and clan names made hostile (relations
    follow the clans' new names)."""
    files = mission_game_files()
    mission = parse_tma(files[MISSION])
    names = ["Ж".encode("cp1251") * 40, b'a"]\\', b"x.001", b"x", b"x", b"", b"  ", b"\xb8" * 60]
    for i, placed in enumerate(mission.objects):
        placed.name = names[i % len(names)]
    new = {c.name: n for c, n in zip(mission.clans, ["Природа".encode("cp1251") * 5, b"Player.001", b"Player"])}
    for clan in mission.clans:
        clan.name = new[clan.name]
        clan.relations = [(new.get(other, other), value) for other, value in clan.relations]
    files[MISSION] = mission.to_bytes()
    return files


def test_hostile_map_names_export_as_they_came_twice_over_the_users_names(blender, tmp_path):
    bpy = blender.bpy
    before = write_files(tmp_path, hostile_mission_files())
    user_data(bpy, objects=["000 " + "Ж" * 40, "002 x.001", "003 x"], collections=["SAMPLE mission", "clan 2 Player"])
    for _ in range(2):
        assert bpy.ops.import_scene.parkan_map(filepath=str(tmp_path / MISSION)) == {"FINISHED"}
    maps = [c for c in bpy.data.collections if "msh_map" in c]
    assert len(maps) == 2
    changes = []
    for top in maps:
        placed = [o for o in top.all_objects if "msh_map_record" in o]
        assert len(placed) == len(parse_tma(before[MISSION]).objects)
        select_only(bpy, placed[0])
        assert bpy.ops.export_scene.parkan_map(filepath=str(tmp_path / MISSION)) == {"FINISHED"}
        after = snapshot(tmp_path)
        changes.append(sorted(n for n in after if after[n] != before.get(n)))
        for name, data in before.items():
            (tmp_path / name).write_bytes(data)
    assert changes == [[], []]
