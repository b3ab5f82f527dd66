"""Creating a map (and a mission's objects) in Blender from its plan (io_msh.imp.map_plan). All or nothing:
every datablock the import makes is removed again when any step fails.

The map's collection holds the files as read (for a lossless export, io_msh.exp.map); level 0 of the ground
and the water plane in ``<map> ground``, level 1 in a hidden ``<map> level 1``; each file the mission's objects
name is imported once into ``<map> kinds`` (excluded from the view layer) and every placement is an Empty
showing that collection (a collection instance), in the collection of its clan.
"""

from __future__ import annotations

import os
import uuid

import bpy
import numpy as np
from mathutils import Matrix

from ...core.errors import printable
from ..com import compat
from ..com import props as P
from ..com.colours import linear_rgba
from ..com.hierarchy import layer_collection
from .briefing import build_briefing
from .build import Created, import_plans, triangle_mesh
from .map_plan import GroundLook, KindPlan, MapPlan, PlacementPlan
from .materials import image_for
from .sky import build_sky
from .unit import import_unit

MAP = "msh_map"                        # on the map's collection: the Land.msh path
MAP_FILE = "msh_map_file_"             # + LAND_MSH etc.: the file's bytes as read
MAP_NAME = "msh_map_name_"             # + LAND_MSH etc.: its name as found in the folder
MISSION = "msh_map_mission"            # on the map's collection: the data.tma path
MISSION_BYTES = "msh_map_mission_file"   # its bytes as read (not "_bytes": store_path keeps a path's bytes there)
MAP_RELATIVE = "msh_map_relative"      # the map's folder relative to the mission's
LEVEL = "msh_map_level"                # on the ground objects: 0 or 1
WATER = "msh_map_water"                # on the water plane (shown, not exported)
WORD = "msh_map_word"                  # on ground materials: the face material word (digest 2.2 word 2)
KIND = "msh_map_kind"                  # on kind collections: the path placements name
CLAN = "msh_map_clan"                  # on clan collections: the clan index (-1: objects whose owner is no clan)
RECORD = "msh_map_record"              # on placements: the data.tma record as read (bytes)
INDEX = "msh_map_index"                # on placements: the object's index in data.tma
SEAT = "msh_map_seat"                  # on placements: shown z - stored z (digest 6.4)
IMPORTED_NAME = "msh_map_imported_name"  # on placements: the Blender name at import (a copy has another)
IMPORTED_MATRIX = "msh_map_matrix"     # on placements: the world matrix at import
UV_DETAIL = "Detail"                   # the microtexture's UV map (UV18)
ALPHA = "msh_second_alpha"             # stream 14 as a point attribute
KINDS = ("objects", "meshes", "materials", "armatures", "actions", "collections", "images", "worlds", "lights",
         "cameras")
MAP_ID = "msh_map_id"                 # on the map's collection and its placements: which import they come from
PLACED = "msh_map_placed"              # on the map's collection: index -> the placement the import made (an ID
#                                        reference: a copy, a rename or an undo leaves it on the original)
GROUND = "msh_map_ground"              # on the map's collection: "0", "1", "water" -> the objects the import made
UNOWNED = -1


def stored_mission(top) -> tuple[str, bytes]:
    """The mission's path and its bytes as the import read them. A map imported before the bytes had a key of
    their own kept them under the path's bytes key (store_path's), with the path as text."""
    if MISSION_BYTES in top:
        return P.stored_path(top, MISSION) or "", bytes(top[MISSION_BYTES])
    return str(top.get(MISSION, "")), bytes(top[MISSION + "_bytes"])


def import_map(context, plan: MapPlan) -> bpy.types.Collection:
    """Build the map; on any exception remove everything made and re-raise."""
    before = {kind: set(getattr(bpy.data, kind)) for kind in KINDS}
    scene = context.scene
    active, world, frame_end = context.view_layer.active_layer_collection, scene.world, scene.frame_end
    markers = len(scene.timeline_markers)
    try:
        return _build(context, plan)
    except BaseException:
        context.view_layer.active_layer_collection = active
        scene.world, scene.frame_end = world, frame_end
        for marker in list(scene.timeline_markers)[markers:]:  # the briefing's subtitles
            scene.timeline_markers.remove(marker)
        made = [block for kind in KINDS for block in getattr(bpy.data, kind) if block not in before[kind]]
        bpy.data.batch_remove(made)
        raise
    finally:
        if context.view_layer.active_layer_collection != active:
            context.view_layer.active_layer_collection = active


def _build(context, plan: MapPlan) -> bpy.types.Collection:
    name = plan.name if plan.mission_path is None else f"{plan.name} mission"
    top = _collection(context.view_layer.active_layer_collection.collection, name)
    _store_files(top, plan)
    top[MAP_ID] = uuid.uuid4().hex
    created = Created()  # the images made; a failed import removes everything it made (import_map)
    materials = [_ground_material(look, created) for look in plan.looks]
    ground = _collection(top, f"{plan.name} ground")
    made = {"0": _ground_object(ground, plan, 0, materials)}
    if len(plan.levels[1].triangles):
        far = _collection(top, f"{plan.name} level 1")
        far.hide_render = True
        layer_collection(context, far).hide_viewport = True
        made["1"] = _ground_object(far, plan, 1, materials)
    if plan.water is not None:
        made["water"] = _water(ground, plan)
    top[GROUND] = made
    if plan.mission is not None:
        top[PLACED] = _objects(context, top, plan)
    if plan.sky is not None:
        build_sky(context, top, _collection(top, f"{plan.name} sky"), plan.sky, plan.name)
    if plan.briefing is not None:
        build_briefing(context, top, _collection(top, f"{plan.name} briefing"), plan.briefing)
    return top


def _collection(parent: bpy.types.Collection, name: str) -> bpy.types.Collection:
    collection = bpy.data.collections.new(name)
    parent.children.link(collection)
    return collection




def _store_files(top, plan: MapPlan) -> None:
    P.store_path(top, MAP, os.path.join(plan.map_folder, plan.files["Land.msh"][0]))
    for key, (found, data) in plan.files.items():
        top[MAP_FILE + key] = data
        top[MAP_NAME + key] = printable(found)
    if plan.mission_path is not None:
        P.store_path(top, MISSION, plan.mission_path)
        top[MISSION_BYTES] = plan.mission_bytes
        top[MAP_RELATIVE] = os.path.relpath(plan.map_folder, os.path.dirname(os.path.abspath(plan.mission_path)))


# --------------------------------------------------------------------- the ground
def _ground_object(collection, plan: MapPlan, level: int, materials) -> bpy.types.Object:
    level_plan = plan.levels[level]
    tris = level_plan.triangles
    mesh = triangle_mesh(f"{plan.name} level {level}", plan.positions, tris, level_plan.face_looks)
    for material in materials:
        mesh.materials.append(material)
    corners = tris.ravel()
    mesh.uv_layers.new(name=P.BASE_UV).data.foreach_set("uv", plan.uv[corners].astype(np.float32).ravel())
    mesh.uv_layers.new(name=UV_DETAIL).data.foreach_set("uv", plan.micro_uv[corners].astype(np.float32).ravel())
    mesh.attributes.new(ALPHA, "FLOAT", "POINT").data.foreach_set("value", plan.alpha.astype(np.float32))
    for name, values in level_plan.flags.items():
        mesh.attributes.new(name, "BOOLEAN", "FACE").data.foreach_set("value", values.astype(bool))
    mesh.update()
    mesh.validate(clean_customdata=False)
    normals = plan.mesh.streams[4][:, :3].astype(np.float32) / 127.0
    norm = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.where(norm > 0, normals / np.where(norm > 0, norm, 1), [0.0, 0.0, 1.0])
    mesh.normals_split_custom_set_from_vertices(normals.astype(np.float32).tolist())
    obj = bpy.data.objects.new(f"{plan.name} level {level}", mesh)
    collection.objects.link(obj)
    obj[LEVEL] = level
    return obj


def _ground_material(look: GroundLook, created) -> bpy.types.Material:
    """Land1[lo] x microtexture x 2, and Land1[hi] likewise mixed over it by stream 14's alpha (digest 2.7)."""
    material = bpy.data.materials.new(look.name)
    material[WORD] = look.word
    first = look.first
    material.diffuse_color = linear_rgba(first.diffuse) if first is not None else (0.5, 0.5, 0.5, 1.0)
    tree = compat.node_tree(material)
    tree.nodes.clear()
    nodes, links = tree.nodes, tree.links
    out = nodes.new("ShaderNodeOutputMaterial")
    out.location = (1100, 0)
    bsdf = nodes.new("ShaderNodeBsdfPrincipled")
    bsdf.location = (800, 0)
    links.new(bsdf.outputs[0], out.inputs["Surface"])
    colour = _layer_colour(tree, first, look.first_micro, 300, created)
    if look.word >> 8 != 0xFF:
        over = _layer_colour(tree, look.second, look.second_micro, -300, created)
        alpha = nodes.new("ShaderNodeAttribute")
        alpha.attribute_name, alpha.location = ALPHA, (300, -600)
        mix = nodes.new("ShaderNodeMix")
        mix.data_type, mix.location = "RGBA", (550, 0)
        links.new(alpha.outputs["Fac"], mix.inputs["Factor"])
        _set(tree, colour, _socket(mix.inputs, "A"))
        _set(tree, over, _socket(mix.inputs, "B"))
        colour = _socket(mix.outputs, "Result")
    _set(tree, colour, bsdf.inputs["Base Color"])
    return material


def _layer_colour(tree, look, micro, y: float, created):
    """One layer: texture x diffuse (on UVMap), x microtexture x 2 (on Detail) where it has one."""
    nodes, links = tree.nodes, tree.links
    rgb = (*linear_rgba(look.diffuse[:3]), 1.0) if look is not None else (0.5, 0.5, 0.5, 1.0)
    colour = rgb
    if look is not None and look.texture is not None:
        texture = _image(tree, look.texture, P.BASE_UV, -400, y, created)
        tree.nodes.active = texture
        mix = _multiply(tree, texture.outputs["Color"], rgb, -100, y)
        colour = mix
    if micro is not None:
        detail = _image(tree, micro, UV_DETAIL, -400, y - 250, created)
        mix = _multiply(tree, detail.outputs["Color"], colour, 50, y - 150)
        double = nodes.new("ShaderNodeVectorMath")
        double.operation, double.location = "SCALE", (200, y - 150)
        links.new(mix, double.inputs[0])
        double.inputs["Scale"].default_value = 2.0
        colour = double.outputs[0]
    return colour


def _image(tree, ref, uv_map: str, x: float, y: float, created):
    uv = tree.nodes.new("ShaderNodeUVMap")
    uv.uv_map, uv.location = uv_map, (x - 250, y)
    texture = tree.nodes.new("ShaderNodeTexImage")
    texture.image, texture.location = image_for(ref, created), (x, y)
    tree.links.new(uv.outputs["UV"], texture.inputs["Vector"])
    return texture


def _multiply(tree, socket, other, x: float, y: float):
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type, mix.blend_type, mix.location = "RGBA", "MULTIPLY", (x, y)
    mix.inputs["Factor"].default_value = 1.0
    tree.links.new(socket, _socket(mix.inputs, "A"))
    _set(tree, other, _socket(mix.inputs, "B"))
    return _socket(mix.outputs, "Result")


def _socket(sockets, name: str):
    return next(s for s in sockets if s.name == name and s.type == "RGBA")


def _set(tree, value, socket) -> None:
    if isinstance(value, bpy.types.NodeSocket):
        tree.links.new(value, socket)
    else:
        socket.default_value = value


def _water(collection, plan: MapPlan) -> bpy.types.Object:
    """The flat water plane over the water faces' extent at their one level (digest 2.8): a view, not exported."""
    z, lo, hi = plan.water
    mesh = bpy.data.meshes.new(f"{plan.name} water")
    mesh.from_pydata([(lo[0], lo[1], z), (hi[0], lo[1], z), (hi[0], hi[1], z), (lo[0], hi[1], z)], [],
                     [(0, 1, 2, 3)])
    material = bpy.data.materials.new(f"{plan.name} water")
    material.diffuse_color = (0.1, 0.3, 0.6, 0.6)
    tree = compat.node_tree(material)
    bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is not None:
        bsdf.inputs["Base Color"].default_value = (0.1, 0.3, 0.6, 1.0)
        bsdf.inputs["Alpha"].default_value = 0.6
    material.blend_method = "BLEND"
    material.surface_render_method = "BLENDED"
    mesh.materials.append(material)
    obj = bpy.data.objects.new(f"{plan.name} water", mesh)
    collection.objects.link(obj)
    obj[WATER] = True
    return obj


# --------------------------------------------------------------------- the mission's objects
def _objects(context, top, plan: MapPlan) -> dict[str, bpy.types.Object]:
    kinds_collection = _collection(top, f"{plan.name} kinds")
    shown: dict[str, bpy.types.Collection] = {}
    layer = layer_collection(context, kinds_collection)
    for key, kind in plan.kinds.items():
        shown[key] = _kind(context, layer, kind)
    clans: dict[int, bpy.types.Collection] = {}
    for i, name in enumerate(plan.clans):
        clans[i] = _collection(top, f"clan {i} {name}")
        clans[i][CLAN] = i
    placed = {}
    for placement in plan.placements:
        owner = placement.clan if placement.clan in clans else UNOWNED
        if owner not in clans:
            clans[owner] = _collection(top, f"{plan.name} no clan")
            clans[owner][CLAN] = UNOWNED
        obj = _place(clans[owner], placement, shown.get(placement.kind))
        obj[MAP_ID] = top[MAP_ID]
        placed[str(placement.index)] = obj
    layer.exclude = True
    return placed


def _kind(context, kinds_layer, kind: KindPlan) -> bpy.types.Collection:
    """The kind's collection: a unit through Import Unit, a tree or rock through the model importer."""
    context.view_layer.active_layer_collection = kinds_layer
    if kind.unit is not None:
        roots = import_unit(context, kind.unit, Matrix(), set_frame_range=False)
        collection = next(r for r in roots if r is not None).users_collection[0]
    else:
        collection = _collection(kinds_layer.collection, kind.key)
        context.view_layer.active_layer_collection = layer_collection(context, collection)
        import_plans(context, [kind.model], Matrix(), set_frame_range=False)
    collection[KIND] = kind.key
    return collection


def _place(collection, placement: PlacementPlan, shown) -> bpy.types.Object:
    obj = bpy.data.objects.new(placement.name, None)
    collection.objects.link(obj)
    if shown is not None:
        obj.instance_type = "COLLECTION"
        obj.instance_collection = shown
    else:
        obj.empty_display_type = "CUBE"
    obj.rotation_mode = "XYZ"   # Blender's XYZ Euler is the matrix Rz Ry Rx (digest 6.3)
    obj.location = placement.location.tolist()
    obj.rotation_euler = placement.rotation.tolist()
    obj.scale = placement.scale.tolist()
    obj[RECORD] = placement.record
    obj[INDEX] = placement.index
    obj[SEAT] = placement.seat
    obj[IMPORTED_NAME] = obj.name
    obj[IMPORTED_MATRIX] = [v for row in obj.matrix_basis for v in row]
    return obj
