"""Edits of a unit tree that keep everything else as read: a part moved to another socket of its parent.

The game writes the children of each parent with its controller slots first, in component order, then the
parts on sockets by ascending socket node (from dragonee/openparkan
docs/38-designs.md: all 33 game-written trees follow it). Only the children of a parent one of whose parts
moved are put in that order again; every other component, and every byte of each component but ``attach``,
stays as read, so an unedited tree writes back byte for byte.
"""

from __future__ import annotations

import copy

from ..errors import FormatError
from .dat import UnitTree


def with_attach(tree: UnitTree, moved: dict[int, int], external: set[int]) -> tuple[UnitTree, list[int]]:
    """A copy of ``tree`` whose components in ``moved`` (component -> new socket node) hang on their new
    sockets, with the children of their parents in the game's order (``external``: the components that hang
    on sockets; the others are controller slots). Returns the tree and, for each of its components, the
    index it had in ``tree``. FormatError when the tree is broken."""
    parents = tree.parents()
    out = copy.deepcopy(tree)
    for component, attach in moved.items():
        if not 0 < component < len(out.components):
            raise FormatError.single("unit", component, "no such part to move")
        out.components[component].attach = attach
    children: dict[int | None, list[int]] = {}
    for i, parent in enumerate(parents):
        children.setdefault(parent, []).append(i)
    reordered = {parents[c] for c in moved}
    for parent in reordered:
        children[parent] = sorted(children.get(parent, []), key=lambda c: (
            c in external, out.components[c].attach if c in external else 0, c))
    order: list[int] = []
    stack = list(reversed(children.get(None, [])))
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children.get(node, [])))
    out.components = [out.components[i] for i in order]
    return out, order
