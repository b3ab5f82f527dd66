"""Animated materials in Blender (the plan of io_msh.imp.material_keys): an RGB node holding the diffuse colour,
keyed linear (gliding, MAT0 mask 0x02) or constant, and the atlas cell's Mapping node keyed constant, in an
action on the material's node tree, repeated by a Cycles modifier unless the track plays once."""

from __future__ import annotations

import bpy
import numpy as np

from ..com import compat
from ..com import props as P
from ..com.colours import linear_rgba
from .material_keys import MaterialKeys

DIFFUSE_NODE = "msh diffuse"
CONSTANT = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["CONSTANT"].value


def animate_materials(plan, materials: dict, created) -> None:
    for word, keys in getattr(plan, "material_keys", {}).items():
        if word in materials:
            animate_material(materials[word], plan.looks[word], keys, created)


def animate_material(material: bpy.types.Material, look, keys: MaterialKeys, created) -> None:
    tree = material.node_tree
    action = created.add(bpy.data.actions.new(f"{material.name}|track 0"))
    target = compat.ChannelTarget(action, tree, material.name)
    diffuse = _diffuse_node(tree, look)
    if diffuse is not None:
        diffuse.outputs[0].default_value = (*keys.colour[0], 1.0)
        for index in range(3):
            _keys(target.new_fcurve(f'nodes["{DIFFUSE_NODE}"].outputs[0].default_value', index, DIFFUSE_NODE),
                  keys.colour_frames, keys.colour[:, index], keys.colour_glides, keys.cyclic)
    if keys.cell_frames is not None:
        mapping = _mapping_node(tree)
        if mapping is not None:
            u0, v0, du, dv = keys.cell_boxes.T
            path = f'nodes["{mapping.name}"].inputs'
            for socket, index, values in ((1, 0, u0), (1, 1, 1.0 - v0 - dv), (3, 0, du), (3, 1, dv)):
                _keys(target.new_fcurve(f"{path}[{socket}].default_value", index, mapping.name),
                      keys.cell_frames, values, False, keys.cyclic)


def material_actions(materials) -> set:
    """The actions animating the materials' node trees."""
    out = set()
    for material in materials:
        anim = material.node_tree.animation_data if material.node_tree is not None else None
        if anim is not None and anim.action is not None:
            out.add(anim.action)
    return out


def _keys(fcurve, frames: np.ndarray, values: np.ndarray, linear: bool, cyclic: bool) -> None:
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    points.foreach_set("interpolation", np.full(len(frames), compat.LINEAR if linear else CONSTANT, np.int32))
    if cyclic:
        fcurve.modifiers.new("CYCLES")
    fcurve.update()


def _diffuse_node(tree, look):
    """An RGB node feeding every socket the material graph gave the diffuse colour as a constant."""
    wanted = np.array([*linear_rgba(look.diffuse[:3]), 1.0])
    sockets = [s for n in tree.nodes for s in n.inputs if s.type == "RGBA" and not s.is_linked
               and np.allclose(np.array(s.default_value), wanted, atol=1e-6)]
    if not sockets:
        return None
    node = tree.nodes.new("ShaderNodeRGB")
    node.name = node.label = DIFFUSE_NODE
    node.location = (-250, 250)
    for socket in sockets:
        tree.links.new(node.outputs[0], socket)
    return node


def _mapping_node(tree):
    """The base texture's Mapping node; one is put between its UV Map and Image Texture nodes if it has none."""
    mapping = next((n for n in tree.nodes if n.type == "MAPPING"), None)
    if mapping is not None:
        return mapping
    for node in tree.nodes:
        if node.type != "TEX_IMAGE" or not node.inputs["Vector"].is_linked:
            continue
        uv = node.inputs["Vector"].links[0].from_node
        if uv.type == "UVMAP" and uv.uv_map == P.BASE_UV:
            mapping = tree.nodes.new("ShaderNodeMapping")
            mapping.vector_type = "POINT"
            mapping.location = (-480, node.location[1])
            tree.links.new(uv.outputs["UV"], mapping.inputs["Vector"])
            tree.links.new(mapping.outputs["Vector"], node.inputs["Vector"])
            return mapping
    return None
