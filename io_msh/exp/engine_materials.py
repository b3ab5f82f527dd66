"""Which material animations a glTF of the clips carries (io_msh.exp.engine_clips lays them out).

Blender's glTF exporter writes a material's animated values as KHR_animation_pointer tracks: the emission
factor, the texture cell (KHR_texture_transform offset and scale) and the base colour factor (the diffuse colour
and alpha). Blender's own glTF importer (4.2, 4.5 and 5.0) stops with an error on a base colour factor track of
a textured material (the game's are textured), so those tracks are left out unless asked for: readers that
apply KHR_animation_pointer to material factors (Babylon.js, Khronos' glTF Sample Viewer) take them. The others
read back in every reader that knows the extension, and a reader that does not ignores them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import bpy

from ..com import compat
from ..com.undo import Undo
from ..imp.material_animation import ALPHA_NODE, DIFFUSE_NODE

# The nodes whose animated output the exporter writes as a base colour factor track.
BASE_COLOUR_NODES = (DIFFUSE_NODE, ALPHA_NODE)


def base_colour_curve(data_path: str) -> bool:
    """Whether an F-curve of a material's node tree keys what glTF calls the base colour factor."""
    return any(data_path.startswith(f'nodes["{node}"]') for node in BASE_COLOUR_NODES)


@contextmanager
def base_colour_held(materials=None) -> Iterator[int]:
    """Within the block, the base colour of every animated material (its diffuse colour and alpha keys, in the
    actions its node tree plays: the assigned one and its NLA strips') held at its value, so that the exporter
    finds it constant and writes no track of it; yields how many materials had one. Afterwards every F-curve is
    muted as it was."""
    undo = Undo()
    held = 0
    try:
        for material in bpy.data.materials if materials is None else materials:
            found = False
            for fcurve in _curves(material):
                if base_colour_curve(fcurve.data_path) and not fcurve.mute:
                    undo(lambda f=fcurve: setattr(f, "mute", False))
                    fcurve.mute = True
                    found = True
            held += found
        yield held
    finally:
        undo.run()


def _curves(material) -> Iterator:
    tree = material.node_tree
    anim = tree.animation_data if tree is not None else None
    if anim is None:
        return
    actions = [anim.action] if anim.action is not None else []
    actions += [strip.action for track in anim.nla_tracks for strip in track.strips if strip.action is not None]
    seen = set()
    for action in actions:
        if action.name in seen:
            continue
        seen.add(action.name)
        yield from compat.action_fcurves(action)


def animated_materials(materials=None) -> list[str]:
    """The names of the materials an engine export would animate: those whose node tree plays an action (a lamp)
    or follows a channel slider (a belt)."""
    from ..com.sliders import is_slider_driver

    out = []
    for material in bpy.data.materials if materials is None else materials:
        tree = material.node_tree
        anim = tree.animation_data if tree is not None else None
        if anim is not None and (anim.action is not None or any(is_slider_driver(d) for d in anim.drivers)):
            out.append(material.name)
    return sorted(out)
