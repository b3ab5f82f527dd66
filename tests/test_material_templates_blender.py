"""The looks of one graph shape wear copies of one template material (io_msh.imp.material_animation
``build_materials``), each then given its own values. A material must not depend on the other materials of its
import: imported in a model with any others (of its shape or not, static or animated, before or after it), it is
what it is imported alone, node for node, value for value, key for key; and no template is left behind."""

import os

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_materials_blender import model_archive, wear_of, write_game

from core.appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, blend_attr1, phase
from core.authoring.synth import sample_libraries

SWEEP = os.environ.get("IO_MSH_SWEEP")
TEXTURES = ["", "BODY.0", "BODY.0", "METAL.0", "GLASS.0", "MISSING.0"]  # BODY.0: an atlas
COLOURS = [(1.0, 1.0, 1.0, 1.0), (0.8, 0.2, 0.4, 0.5), (0.1, 0.9, 0.5, 1.0)]


@st.composite
def looks(draw) -> dict:
    """What a MAT0 record shows: any blend mode, lit skin or not, textured or not (an atlas cell, the whole atlas or
    a texture without cells), static or with a track 0 changing colours, alpha, textures and cells by any mode and
    mask, from few values. Phase i shows colour i, texture i and cell i."""
    count = draw(st.integers(1, 3))
    ends = sorted(draw(st.sets(st.integers(1, 900), min_size=count, max_size=count)))
    return {"blend": draw(st.sampled_from(["OPAQUE", "BLEND", "ADD"])), "lit_skin": draw(st.booleans()),
            "colours": draw(st.lists(st.sampled_from(COLOURS), min_size=count, max_size=count)),
            "textures": draw(st.lists(st.sampled_from(TEXTURES), min_size=3, max_size=3)),
            "cells": draw(st.lists(st.sampled_from([-1, 1, 2]), min_size=3, max_size=3)),
            "keys": [(draw(st.integers(0, count - 1)), end) for end in ends],
            "header": draw(st.integers(0, 3)) | draw(st.sampled_from([0x00, 0x02, 0x0A, 0x1F])) << 3}


@st.composite
def models(draw) -> list[dict]:
    """Looks, and variants of them that differ in one thing: one import has looks of one shape and looks that
    nearly share one."""
    bases = draw(st.lists(looks(), min_size=1, max_size=3))
    out = list(bases)
    for _ in range(draw(st.integers(1, 5))):
        variant = dict(draw(st.sampled_from(bases)))
        key = draw(st.sampled_from(sorted(variant)))
        variant[key] = draw(looks())[key] if key not in ("colours", "keys") or draw(st.booleans()) \
            else variant[key][:1]  # one phase or one key: static
        out.append(variant)
    return out


def mat0(look: dict) -> Material:
    phases = np.array([phase(rgba, texture, cell=cell)
                       for rgba, texture, cell in zip(look["colours"], look["textures"], look["cells"])])
    keys = np.array([(entry % len(phases), end, 0) for entry, end in look["keys"]], ANIM_KEY)
    return Material(blend_attr1(look["blend"], look["lit_skin"]), phases=phases,
                    animations=[AnimBlock(look["header"], keys)] if len(keys) > 1 else [])


GLASS = {"blend": "BLEND", "lit_skin": False, "colours": [(0.8, 0.2, 0.4, 0.5)], "textures": ["BODY.0"] * 3,
         "cells": [-1] * 3, "keys": [(0, 1)], "header": 0}


def fcurves_of(tree) -> list:
    """A node tree's drivers and the F-curves of its action (4.2's ``Action.fcurves``, else the action's layers)."""
    anim = tree.animation_data
    if anim is None:
        return []
    fcurves = list(anim.drivers)
    if anim.action is not None:
        fcurves += list(anim.action.fcurves) if hasattr(anim.action, "fcurves") else [
            c for layer in anim.action.layers for strip in layer.strips for bag in strip.channelbags
            for c in bag.fcurves]
    return fcurves


def graph_of(material) -> dict:
    """Everything the import sets on a material, but its row in the model's WEAR list."""
    tree = material.node_tree

    def values(sockets):
        return [(s.identifier, np.round(np.array(s.default_value, np.float64), 6).tolist()
                 if hasattr(s, "default_value") and not isinstance(s.default_value, str) else None) for s in sockets]

    nodes = {n.name: (n.bl_idname, n.label, tuple(n.location), getattr(n, "image", None) and n.image.name,
                      [getattr(n, a, None) for a in ("data_type", "blend_type", "operation", "vector_type",
                                                     "uv_map")], values(n.inputs), values(n.outputs))
             for n in tree.nodes}
    links = sorted((k.from_node.name, k.from_socket.identifier, k.to_node.name, k.to_socket.identifier)
                   for k in tree.links)
    curves = []
    for fcurve in fcurves_of(tree):
        co = np.empty(2 * len(fcurve.keyframe_points), np.float32)
        fcurve.keyframe_points.foreach_get("co", co)
        curves.append((fcurve.data_path, fcurve.array_index, co.tolist(),
                       [k.interpolation for k in fcurve.keyframe_points], [m.type for m in fcurve.modifiers]))
    props = {k: str(v) for k, v in material.items() if k != "msh_material"}
    active = tree.nodes.active
    return {"name": material.name, "props": props, "diffuse": tuple(material.diffuse_color),
            "blend": (material.blend_method, material.use_backface_culling), "active": active and active.name,
            "nodes": nodes, "links": links, "curves": curves}


@settings(max_examples=int(SWEEP or 40), deadline=None, derandomize=SWEEP is None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(records=models(), lightmapped=st.booleans(),
       node_mode=st.sampled_from(["ARMATURE", "EMPTIES"]))
@example(records=[GLASS, {**GLASS, "lit_skin": True}], lightmapped=False, node_mode="EMPTIES")  # alpha: texture's
@example(records=[GLASS, {**GLASS, "cells": [2, 2, 2]}], lightmapped=False, node_mode="ARMATURE")  # an atlas cell
def test_a_material_is_what_it_is_imported_alone(blender, tmp_path_factory, records, lightmapped, node_mode):
    bpy = blender.bpy
    libraries = sample_libraries()
    names = [f"M{i}" for i in range(len(records))]
    for name, record in zip(names, map(mat0, records)):
        libraries["Material.lib"].add(name, record.to_bytes(), MAT0_TYPE_ID, attr1=record.attr1, attr2=record.attr2)
    game = write_game(tmp_path_factory.mktemp("templates"), libraries)
    lightmap = "LM_SAMPLE.0" if lightmapped else None

    def imported(wearing: list[str]) -> dict:
        blender.clean_scene()
        path = game / "unit.rlb"
        path.write_bytes(model_archive(wear_of(wearing, lightmap), len(wearing), lightmapped))
        assert bpy.ops.import_scene.parkan_msh(filepath=str(path), node_mode=node_mode) == {"FINISHED"}
        assert not [m for m in bpy.data.materials if m.name.startswith("io_msh graph template")]
        return {m["msh_material"]: graph_of(m) for m in bpy.data.materials if "msh_material" in m}

    together = imported(names)
    assert len(together) == len(names)
    for i, name in enumerate(names):
        assert together[i] == imported([name])[0], name
