"""Walking a model's objects without recursion (a parent chain may be a thousand Empties deep)."""

from __future__ import annotations

import bpy


def descendants(obj: bpy.types.Object) -> list[bpy.types.Object]:
    """``Object.children_recursive`` (depth first, in the same order) without recursion: Blender's recurses
    once per level, and a chain of 1,000 Empties passes Python's recursion limit."""
    children: dict[bpy.types.Object, list[bpy.types.Object]] = {}
    for child in bpy.data.objects:
        if child.parent is not None:
            children.setdefault(child.parent, []).append(child)
    out, stack = [], list(reversed(children.get(obj, ())))
    while stack:
        child = stack.pop()
        out.append(child)
        stack += reversed(children.get(child, ()))
    return out
