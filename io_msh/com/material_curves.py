"""The F-curves animating a material's node tree (its MAT0 track, io_msh.imp.material_animation) and their
fingerprint: the import stores it on the material, the export compares (the track is not written back, so an
edit is reported)."""

from __future__ import annotations

import bpy
import numpy as np

from . import compat
from . import props as P
from .curves import Curve, curve_settings, fingerprint


def material_curves(material: bpy.types.Material) -> list[Curve]:
    """The node tree's F-curves (and a belt's driver curves), as Curves (node -1, handle the material's name)."""
    tree = material.node_tree
    if tree is None:
        return []
    drivers = list(tree.animation_data.drivers) if tree.animation_data is not None else []  # a belt's
    return [material_curve(material, fcurve) for fcurve in [*compat.assigned_fcurves(tree), *drivers]]


def material_curve(material: bpy.types.Material, fcurve: bpy.types.FCurve) -> Curve:
    """One F-curve of the material's node tree as a Curve."""
    points = fcurve.keyframe_points
    co = np.empty(2 * len(points), np.float32)
    points.foreach_get("co", co)
    interpolation = np.empty(len(points), np.int32)
    points.foreach_get("interpolation", interpolation)
    return Curve(-1, material.name, fcurve.data_path, fcurve.array_index, co, interpolation,
                 curve_settings(fcurve.extrapolation, fcurve.mute, len(fcurve.modifiers)))


def material_curves_fingerprint(material: bpy.types.Material) -> str:
    return fingerprint(material_curves(material))


def material_animation_edited(material: bpy.types.Material) -> bool:
    """Whether an imported material animation's F-curves differ from the ones the import wrote (False for a
    material the import did not animate)."""
    stored = material.get(P.MATERIAL_CURVES)
    return stored is not None and str(stored) != material_curves_fingerprint(material)
