"""Walking a model's objects without recursion (a parent chain may be a thousand Empties deep)."""

from __future__ import annotations

import bpy

from .props import CONTROL_POINT, EFFECT, EFFECT_PREVIEW, GROUND_PLAN, HALLWAY

# What the import shows beside a model, never a part of it, wherever the user puts it: an effect's preview, a
# building's hall way and ground plan (each has its own writer, or none)
SHOWN_BESIDE = (EFFECT_PREVIEW, HALLWAY, GROUND_PLAN)


def descendants(obj: bpy.types.Object, children: dict | None = None) -> list[bpy.types.Object]:
    """``Object.children_recursive`` (depth first, in the same order) without recursion: Blender's recurses
    once per level, and a chain of 1,000 Empties passes Python's recursion limit. ``children``
    (``children_map``) saves the walk over every object when asked for many roots."""
    children = children_map() if children is None else children
    out, stack = [], list(reversed(children.get(obj, ())))
    while stack:
        child = stack.pop()
        out.append(child)
        stack += reversed(children.get(child, ()))
    return out


def children_map(objects=None) -> dict[bpy.types.Object, list[bpy.types.Object]]:
    """Each object's children, in ``bpy.data.objects`` order (one walk over every object); among ``objects``
    only, in their order, when given (an import's own: a walk over the scene per import grew with the scene)."""
    children: dict[bpy.types.Object, list[bpy.types.Object]] = {}
    for child in bpy.data.objects if objects is None else objects:
        if child.parent is not None:
            children.setdefault(child.parent, []).append(child)
    return children


def node_empties(root: bpy.types.Object) -> list[bpy.types.Object]:
    """The Empties below a model root (Nodes: Empties) that stand for its nodes, in ``descendants`` order: a unit's
    control points, Empties parented to the nodes they sit on (io_msh.imp.unit), are not nodes, nor are the
    Empties of the effects a controller attaches (io_msh.imp.effects)."""
    return [o for o in descendants(root) if o.type == "EMPTY" and CONTROL_POINT not in o and EFFECT not in o]


def layer_collection(context, collection: bpy.types.Collection) -> bpy.types.LayerCollection:
    """The view layer's layer collection of ``collection``."""
    stack = [context.view_layer.layer_collection]
    while stack:
        layer = stack.pop()
        if layer.collection == collection:
            return layer
        stack.extend(layer.children)
    raise LookupError(collection.name)


def shown_beside(obj: bpy.types.Object) -> bool:
    """``obj`` is shown beside the model (SHOWN_BESIDE), not one of its parts."""
    return any(mark in obj for mark in SHOWN_BESIDE)
