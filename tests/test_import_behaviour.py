"""The import does what its options say, and says what it could not do (through the operator)."""

from pathlib import Path

import numpy as np
import pytest
from fixtures import generated
from test_import import import_file, node_matrices, write

from core.animation.keys import Tolerance, author_tracks, rotation_error
from core.animation.sampler import AnimationData, sample
from core.msh.model import Model

NODE_MODES = ["ARMATURE", "EMPTIES"]
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "sample.msh"


# --------------------------------------------------------------------- For Editing
def node_keys(root) -> dict[int, int]:
    """Keyframes per node (every channel of a node is keyed at the same frames: count one)."""
    out = {}
    if root.type == "ARMATURE":
        action = root.animation_data.action
        for bone in root.data.bones:
            path = f'pose.bones["{bone.name}"].location'
            curves = [c for c in _fcurves(action, root) if c.data_path == path and c.array_index == 0]
            if curves:
                out[bone["msh_node_index"]] = len(curves[0].keyframe_points)
        return out
    for obj in root.children_recursive:
        if obj.type == "EMPTY" and obj.animation_data and obj.animation_data.action:
            curves = [c for c in _fcurves(obj.animation_data.action, obj) if c.data_path == "location"
                      and c.array_index == 0]
            if curves:
                out[obj["msh_node_index"]] = len(curves[0].keyframe_points)
    return out


def _fcurves(action, owner):
    import blender_env

    return blender_env.ext.io_msh.com.compat.assigned_fcurves(owner) if owner.animation_data.action == action else []


def local_poses(bpy, root, parents) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Each node's pose relative to its parent node as Blender shows it: (location, unit quaternion)."""
    from mathutils import Matrix

    world = node_matrices(bpy, root)
    out = {}
    for node, matrix in world.items():
        parent = int(parents[node])
        local = matrix if parent == 0xFFFF else np.linalg.inv(world[parent]) @ matrix
        out[node] = (local[:3, 3], np.array(Matrix(local[:3, :3].tolist()).to_quaternion()))
    return out


def reduced_key_count(model: Model, frames: np.ndarray) -> int:
    """The keys the exporter's Reduced writes for the runtime's motion (moving nodes)."""
    s = sample(AnimationData.from_model(model), frames.astype(np.float32))
    return sum(len(t.times) for t in author_tracks(s.rot, s.pos) if t.has_map)


@pytest.mark.parametrize("node_mode", NODE_MODES)
@pytest.mark.parametrize("source", ["sample", "synthetic"])
def test_for_editing_has_about_the_reduced_keys_and_the_pose_within_the_export_tolerance(
        blender, tmp_path, node_mode, source):
    bpy = blender.bpy
    data = SAMPLE.read_bytes() if source == "sample" else generated(62, node_count=6, frame_count=120,
                                                                    animated=1.0)
    path = write(tmp_path, "in.msh", data)
    model = Model.parse(data)
    (root,) = import_file(bpy, path, node_mode=node_mode)
    faithful = node_keys(root)
    blender.clean_scene()
    (root,) = import_file(bpy, path, node_mode=node_mode, animation="EDITING")
    editing = node_keys(root)
    frames = np.arange(model.frame_count + 2)  # the last two show the fallback key
    reduced = reduced_key_count(model, frames)
    print(f"\n  node keys: FAITHFUL {sum(faithful.values())}, EDITING {sum(editing.values())} {editing}, "
          f"Reduced {reduced}")
    assert sum(editing.values()) <= 1.5 * reduced
    assert sum(editing.values()) < sum(faithful.values())
    if source == "sample":
        assert editing[1] < faithful[1] == model.frame_count  # the turret: 5 keys in the file
    runtime = sample(AnimationData.from_model(model), frames.astype(np.float32))
    rot = runtime.rot.astype(np.float64) * [1, -1, -1, -1]  # Blender's quaternion of the file's (fact 1)
    tolerance = Tolerance()
    worst_position = worst_rotation = 0.0
    for frame in frames:
        blender.evaluated_frame(frame)
        for node, (location, quaternion) in local_poses(bpy, root, model.nodes["parent"]).items():
            worst_position = max(worst_position, float(np.abs(location - runtime.pos[node, frame]).max()))
            worst_rotation = max(worst_rotation, float(rotation_error(quaternion, rot[node, frame])))
    print(f"  worst: {worst_position:.2e} m, {np.degrees(worst_rotation):.4f} degree")
    assert worst_position <= tolerance.position
    assert worst_rotation <= np.radians(tolerance.rotation_deg)


# --------------------------------------------------------------------- no material list
def game_folder(folder: Path, names=("Material.lib", "Textures.lib", "LightMap.lib")) -> Path:
    from core.authoring.synth import sample_libraries

    folder.mkdir(parents=True, exist_ok=True)
    for name, archive in sample_libraries().items():
        if name in names:
            (folder / name).write_bytes(archive.to_bytes())
    return folder


def import_messages(bpy, capfd, path, **options) -> str:
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), **options) == {"FINISHED"}
    return capfd.readouterr().out


def test_a_loose_model_without_its_material_list_says_why_its_materials_are_placeholders(
        blender, tmp_path, capfd, sample_msh):
    folder = game_folder(tmp_path / "game")
    path = folder / "tank.msh"
    path.write_bytes(sample_msh)
    out = import_messages(blender.bpy, capfd, path)
    assert "no material list tank.wea was found beside the model" in out
    assert "materials are placeholders" in out and "next to the file, or import the .rlb archive" in out
    blender.clean_scene()
    (folder / "TANK.WEA").write_bytes(b"2\r\n0 SAMPLE_BODY\r\n1 SAMPLE_METAL\r\n")  # any case, as the game's
    assert "material list" not in import_messages(blender.bpy, capfd, path)


# --------------------------------------------------------------------- a stage or LOD the model lacks
def slotted_model() -> bytes:
    from core.authoring.build import ModelDef, NodeDef, Part, build_model
    from core.authoring.synth import box

    pos, tris = box()
    parts = [Part(0, pos, tris), Part(0, pos * 0.5, tris, slot=1), Part(1, pos, tris, slot=5),
             Part(1, pos, tris, slot=4)]
    return build_model(ModelDef([NodeDef("a"), NodeDef("b", 0)], parts)).to_bytes()


def test_a_stage_or_lod_the_model_lacks_is_refused_naming_what_it_has(blender, tmp_path, capfd):
    bpy = blender.bpy
    path = write(tmp_path, "slots.msh", slotted_model())
    before = blender.datablock_counts()
    with pytest.raises(RuntimeError) as error:
        bpy.ops.import_scene.parkan_msh(filepath=path, stage=2, lod="1")
    assert "the model has no geometry for damage 2 LOD 1 (Damage Stage 2, LOD 1)" in str(error.value)
    assert "it has Damage Stage 0 (LOD 0, 1, First-Person), Damage Stage 1 (LOD 0)" in str(error.value)
    assert blender.datablock_counts() == before
    out = import_messages(bpy, capfd, path, stage=2, lod="1", slots="ALL")  # the other slots still come in
    assert "no geometry for damage 2 LOD 1" in out
    assert len([o for o in bpy.data.objects if o.type == "MESH"]) == 4
    blender.clean_scene()
    assert bpy.ops.import_scene.parkan_msh(filepath=path, stage=1, lod="0") == {"FINISHED"}


# --------------------------------------------------------------------- All Slots, hidden as the Outliner shows
def test_all_slots_hides_the_others_with_the_outliner_eye_that_shows_them_again(blender, tmp_path):
    bpy = blender.bpy
    import_file(bpy, write(tmp_path, "slots.msh", slotted_model()), slots="ALL")
    view_layer = bpy.context.view_layer
    others = [c for c in bpy.data.collections if "msh_slot" in c]
    assert len(others) == 3
    for collection in others:
        layer = view_layer.layer_collection.children[collection.name]
        assert layer.hide_viewport and not layer.exclude and not collection.hide_viewport
        (obj,) = collection.objects
        assert not obj.visible_get()
        layer.hide_viewport = False  # what the eye icon in the Outliner does
        assert obj.visible_get()
    chosen = [o for o in bpy.data.objects if o.type == "MESH" and o.get("msh_slot") == 0]
    assert chosen and all(o.visible_get() for o in chosen)


# --------------------------------------------------------------------- colours as the game shows them
def tinted_game(folder: Path, textures: bool = True) -> Path:
    """Libraries whose TINT material multiplies a uniform (200, 200, 200) texture by diffuse (153, 204, 102),
    and TINT2 naming the same (missing) texture MISSING.0 as TINT3; a unit.rlb using TINT."""
    from test_materials_blender import model_archive, wear_of

    from core.appearance.texm import TEXM_TYPE_ID, encode_texm
    from core.authoring.synth import library, material_entry
    from core.container.nres import Archive

    folder.mkdir(parents=True, exist_ok=True)
    grey = np.full((4, 4, 4), (200, 200, 200, 255), np.uint8)
    (folder / "Material.lib").write_bytes(library([
        material_entry("DEFAULT", (0.5, 0.5, 0.5, 1.0)),
        material_entry("TINT", (153 / 255, 204 / 255, 102 / 255, 1.0), "GREY.0"),
        material_entry("TINT2", (1.0, 1.0, 1.0, 1.0), "MISSING.0"),
        material_entry("TINT3", (1.0, 1.0, 1.0, 1.0), "MISSING.0"),
    ]).to_bytes())
    if textures:
        (folder / "Textures.lib").write_bytes(library([("GREY.0", encode_texm(grey, 8888).to_bytes(),
                                                        TEXM_TYPE_ID, {})]).to_bytes())
    assert Archive.parse((folder / "Material.lib").read_bytes()).find("TINT") is not None
    (folder / "unit.rlb").write_bytes(model_archive(wear_of(["TINT", "TINT2", "TINT3"]), 3))
    return folder / "unit.rlb"


def baked_base_colour(bpy, obj) -> np.ndarray:
    """Cycles' evaluation of what feeds the object's base colour (baked as emission), as display bytes."""
    material = obj.data.materials[0]
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    output = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    emission = tree.nodes.new("ShaderNodeEmission")
    tree.links.new(bsdf.inputs["Base Color"].links[0].from_socket, emission.inputs["Color"])
    tree.links.new(emission.outputs[0], output.inputs["Surface"])
    target = bpy.data.images.new("bake", 32, 32, float_buffer=True)
    node = tree.nodes.new("ShaderNodeTexImage")
    node.image = target
    tree.nodes.active = node
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 1
    scene.cycles.device = "CPU"
    for other in bpy.context.selected_objects:
        other.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.object.bake(type="EMIT", margin=0) == {"FINISHED"}
    flat = np.zeros(len(target.pixels), np.float32)
    target.pixels.foreach_get(flat)
    texels = flat.reshape(-1, 4)[:, :3]
    linear = np.median(texels[texels.max(axis=1) > 0], axis=0)  # the texels the faces cover
    from io_msh_ext.io_msh.com.colours import linear_to_srgb

    return np.rint(linear_to_srgb(linear) * 255)


def test_a_tinted_texture_shows_the_game_s_product(blender, tmp_path):
    bpy = blender.bpy
    import_file(bpy, str(tinted_game(tmp_path / "game")))
    obj = next(o for o in bpy.data.objects if o.type == "MESH" and o.data.materials[0].name == "TINT")
    shown = baked_base_colour(bpy, obj)
    game = np.rint(200 * np.array([153, 204, 102]) / 255)  # (120, 160, 80)
    print(f"\n  shown {shown}, game {game}")
    assert np.abs(shown - game).max() <= 2  # was (159, 181, 132)


def test_textures_lib_missing_warns_and_a_missing_texture_is_said_once(blender, tmp_path, capfd):
    bpy = blender.bpy
    out = import_messages(bpy, capfd, tinted_game(tmp_path / "untextured", textures=False))
    assert "Textures.lib was not found" in out and "3 material(s) that name a texture (TINT, TINT2, TINT3)" in out
    blender.clean_scene()
    out = import_messages(bpy, capfd, tinted_game(tmp_path / "textured"))
    assert "Textures.lib was not found" not in out
    said = [line for line in out.splitlines() if line.startswith("Info")
            and "texture 'missing.0' is not in textures.lib" in line.lower()]
    assert len(said) == 1  # TINT2 and TINT3 both name it


def test_a_new_material_s_colour_goes_back_to_the_bytes_the_game_multiplies(blender, tmp_path):
    """The import's sRGB -> linear, and the export's inverse: a material re-made in Blender with the colour
    the import showed writes the source's diffuse bytes."""
    from test_export import export_file

    from core.appearance.mat0 import material_of
    from core.container.nres import Archive

    bpy = blender.bpy
    path = tinted_game(tmp_path / "game")
    import_file(bpy, str(path))
    tint = bpy.data.materials["TINT"]
    copy = bpy.data.materials.new("TINT_COPY")
    copy.diffuse_color = tint.diffuse_color  # the colour the import shows: linear
    tree = blender.ext.io_msh.com.compat.node_tree(copy)
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = tint.diffuse_color
    obj = next(o for o in bpy.data.objects if o.type == "MESH" and o.data.materials[0] == tint)
    obj.data.materials[0] = copy
    library = tmp_path / "game" / "Material.lib"
    export_file(bpy, path, material_library=str(library))
    written = Archive.parse(library.read_bytes())
    original, new = material_of(written.find("TINT")), material_of(written.find("TINT_COPY"))
    assert bytes(new.phases[0]["p"][4:7]) == bytes(original.phases[0]["p"][4:7]) == bytes((153, 204, 102))


# --------------------------------------------------------------------- deep parent chains
@pytest.mark.parametrize("node_mode", NODE_MODES)
def test_a_1000_node_parent_chain_imports_exports_and_is_removed_again(blender, tmp_path, node_mode):
    from core.authoring.build import ModelDef, NodeDef, Part, build_model
    from core.authoring.synth import box

    bpy = blender.bpy
    pos, tris = box()
    count = 1000
    nodes = [NodeDef(f"n{i}", None if i == 0 else i - 1) for i in range(count)]
    data = build_model(ModelDef(nodes, [Part(count - 1, pos, tris)])).to_bytes()
    (root,) = import_file(bpy, write(tmp_path, "chain.msh", data), node_mode=node_mode)
    assert len(node_matrices(bpy, root)) == count
    exported = tmp_path / "again.msh"  # the export walks the chain without recursion too
    assert bpy.ops.export_scene.parkan_msh(filepath=str(exported)) == {"FINISHED"}
    assert exported.read_bytes() == data
    importer = blender.ext.io_msh.imp.build
    below = blender.ext.io_msh.com.hierarchy.descendants(root)
    assert len(below) == len(set(below)) == len(bpy.data.objects) - 1
    if node_mode == "EMPTIES":  # depth first: each Empty right after its parent
        assert [o["msh_node_index"] for o in below if o.type == "EMPTY"] == list(range(count))
    importer.remove_model(root)
    assert not list(bpy.data.objects)


# --------------------------------------------------------------------- the Custom end frame has a maximum
def test_the_custom_end_frame_stops_at_blender_s_last_frame(blender):
    bpy = blender.bpy
    end_frame = bpy.ops.export_scene.parkan_msh.get_rna_type().properties["end_frame"]
    assert end_frame.hard_max == blender.ext.io_msh.imp.plan.BLENDER_LAST_FRAME == 1_048_574
    assert "1,048,574" in end_frame.description


# --------------------------------------------------------------------- FBX carries the base texture
def test_fbx_output_after_textures_for_fbx_carries_the_base_textures(blender, tmp_path):
    bpy = blender.bpy
    folder = game_folder(tmp_path / "game")
    from core.authoring.synth import sample_archive

    path = folder / "units.rlb"
    path.write_bytes(sample_archive((SAMPLE).read_bytes()).to_bytes())
    import_file(bpy, str(path))
    plain = tmp_path / "plain.fbx"
    assert bpy.ops.export_scene.fbx(filepath=str(plain), embed_textures=True, path_mode="COPY") == {"FINISHED"}
    assert b"METAL.0.png" not in plain.read_bytes()  # the Mix node hides the texture from the exporter
    materials = blender.ext.io_msh.imp.materials
    metal = bpy.data.materials["SAMPLE_METAL"]
    bsdf = next(n for n in metal.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    out = tmp_path / "textured.fbx"
    with materials.textures_for_fbx(bpy.data.materials) as changed:
        assert changed == 2
        assert bsdf.inputs["Base Color"].links[0].from_node.type == "TEX_IMAGE"
        assert bpy.ops.export_scene.fbx(filepath=str(out), embed_textures=True, path_mode="COPY") == {"FINISHED"}
    data = out.read_bytes()
    for name in (b"BODY.0.png", b"METAL.0.png"):
        assert name in data
    assert data.count(b"\x89PNG\r\n\x1a\n") == 2  # both images embedded
    assert bsdf.inputs["Base Color"].links[0].from_node.type == "MIX"  # the scene is as it was
    assert all(not image.filepath_raw for image in bpy.data.images)


def test_for_editing_plans_in_bounded_memory_within_the_tolerance():
    """Every node moving at every frame of a 65,535-frame map: the greedy keys cost memory by the block."""
    import tracemalloc

    from fixtures import load_extension, shared_map_model

    from core.files import read_container

    load_extension()
    import importlib

    plan = importlib.import_module("io_msh_ext.io_msh.imp.plan")
    C = importlib.import_module("io_msh_ext.io_msh.com.conversion")
    data = shared_map_model(12, 65535)
    tracemalloc.start()
    try:
        result = plan.plan_model(read_container(data, "m.msh"), None,
                                 plan.ImportOptions(node_mode="EMPTIES", animation="EDITING"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 96 * 2 ** 20
    assert len(result.channels) == 12
    frames = np.arange(65537)
    s = sample(AnimationData.from_model(Model.parse(data)), frames.astype(np.float32))
    for channel in result.channels:
        location = np.stack([np.interp(frames, channel.frames, channel.location[:, i]) for i in range(3)], 1)
        rotation = np.stack([np.interp(frames, channel.frames, channel.rotation[:, i]) for i in range(4)], 1)
        assert np.linalg.norm(location - s.pos[channel.node], axis=1).max() <= Tolerance().position
        runtime = C.blender_quaternions(s.rot[channel.node])
        assert rotation_error(rotation, runtime).max() <= np.radians(Tolerance().rotation_deg)
        assert len(channel.frames) < 100


# --------------------------------------------------------------------- selection without scans
def test_an_import_selects_what_it_made_in_the_view_layer_and_only_that(blender, tmp_path):
    """The import selects its own objects (hidden slot meshes too, as ever) by walking what it made, not every
    object; an object it put outside the view layer (an excluded collection) is left unselected, no error."""
    bpy = blender.bpy
    path = write(tmp_path, "slots.msh", slotted_model())
    (first,) = import_file(bpy, path, slots="ALL")
    second = [r for r in import_file(bpy, path, slots="ALL") if r != first]
    (second,) = second
    view_layer = bpy.context.view_layer
    made = {o for o in bpy.data.objects if o == second or second in _parents(o)}
    assert all(o.select_get() for o in made) and view_layer.objects.active == second
    assert set(bpy.context.selected_objects) == {o for o in made if o.visible_get()} and len(made) > 4
    assert set(view_layer.objects.selected) == made  # the first import's hidden slot meshes too are deselected
    hidden = bpy.data.collections.new("excluded")
    bpy.context.scene.collection.children.link(hidden)
    view_layer.layer_collection.children[hidden.name].exclude = True
    outside = bpy.data.objects.new("outside", None)
    hidden.objects.link(outside)
    blender.ext.io_msh.imp.build._select_only(bpy.context, [outside, first], [first])
    assert set(bpy.context.selected_objects) == {first} and view_layer.objects.active == first


def _parents(obj):
    while obj.parent is not None:
        obj = obj.parent
        yield obj
