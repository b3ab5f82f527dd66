"""A building's hall way (mesh stream 17) and ground plan (``.bas``) in Blender: one mesh object of loose vertices
and edges per hall way, each vertex placed through its joint node's rest pose, with integer point attributes
``flags`` and ``joint``, integer edge attributes ``tail_0`` .. ``tail_7`` (the links' tail words, u32 stored as
their signed 32 bits) and a vertex group per named place; a ground plan as two closed edge loops ``inner`` and
``outer``. Both go into a hidden "Navigation" collection, follow their model root by a Child Of constraint (so
they are no part of the model: its export does not see them) and carry the root in ``msh_hallway``."""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix

from ..com import props as P
from ..com.hierarchy import layer_collection
from .hallway_plan import HallwayPlan

TAIL_WORDS = 8
NAVIGATION = "Navigation"
PLAN_FORM = "msh_ground_plan_form"        # core.interior.bas TWO_RINGS or OTHER
PLAN_ARCHIVE = "msh_ground_plan_archive"  # the archive's name as the building's record gives it
PLAN_ENTRY = "msh_ground_plan_entry"      # its entry's name
PLAN_READ = "msh_ground_plan_read"        # the entry's bytes as read (or as Export Unit last wrote them)


def signed(words: np.ndarray) -> np.ndarray:
    """u32 words as the int32 with the same bits (Blender's integer attributes are signed 32-bit)."""
    return np.ascontiguousarray(words, np.uint32).view(np.int32)


def navigation_collection(context, root, created) -> bpy.types.Collection:
    """The hidden collection beside the root's for its navigation objects (made once per root's collection)."""
    parent = root.users_collection[0] if root.users_collection else context.scene.collection
    found = next((c for c in parent.children if c.get(P.HALLWAY) == NAVIGATION), None)
    if found is not None:
        return found
    collection = created.add(bpy.data.collections.new(f"{parent.name} {NAVIGATION}"))
    collection[P.HALLWAY] = NAVIGATION
    parent.children.link(collection)
    layer_collection(context, collection).hide_viewport = True
    collection.hide_render = True
    return collection


def _follow(obj, root) -> None:
    constraint = obj.constraints.new("CHILD_OF")
    constraint.target = root
    constraint.inverse_matrix = Matrix()
    obj.matrix_basis = Matrix()
    obj[P.HALLWAY] = root


def build_hallway(context, plan, root, created) -> bpy.types.Object | None:
    """The hall-way object of ``plan`` (a ModelPlan) following ``root``; None when the model has none."""
    graph: HallwayPlan | None = getattr(plan, "hallway", None)
    if graph is None:
        return None
    mesh = created.add(bpy.data.meshes.new(f"{plan.name} hall way"))
    mesh.vertices.add(len(graph.positions))
    mesh.vertices.foreach_set("co", graph.positions.astype(np.float32).reshape(-1))
    mesh.edges.add(len(graph.edges))
    mesh.edges.foreach_set("vertices", graph.edges.astype(np.int32).reshape(-1))
    mesh.update()
    for name, words in (("flags", graph.flags), ("joint", graph.joints)):
        mesh.attributes.new(name, "INT", "POINT").data.foreach_set("value", signed(words))
    for w in range(TAIL_WORDS):
        mesh.attributes.new(f"tail_{w}", "INT", "EDGE").data.foreach_set("value", signed(graph.tails[:, w]))
    obj = created.add(bpy.data.objects.new(mesh.name, mesh))
    navigation_collection(context, root, created).objects.link(obj)
    for name, members in graph.places.items():
        group = obj.vertex_groups.new(name=name)
        if len(members):
            group.add([int(i) for i in members], 1.0, "REPLACE")
    _follow(obj, root)
    obj.display_type = "WIRE"
    obj.show_in_front = True
    return obj


def build_ground_plan(context, name: str, reference: str, inner: np.ndarray, outer: np.ndarray, root,
                      created) -> bpy.types.Object:
    """The plan's two rings (corners n x 3 each, in the model's frame) as closed edge loops in one object, with
    a point attribute ``ring`` (0 inner, 1 outer) and vertex groups ``inner`` and ``outer``."""
    points = np.concatenate([inner, outer]).astype(np.float32)
    edges = [(i, (i + 1) % len(inner)) for i in range(len(inner))]
    edges += [(len(inner) + i, len(inner) + (i + 1) % len(outer)) for i in range(len(outer))]
    mesh = created.add(bpy.data.meshes.new(name))
    mesh.vertices.add(len(points))
    mesh.vertices.foreach_set("co", points.reshape(-1))
    mesh.edges.add(len(edges))
    mesh.edges.foreach_set("vertices", np.asarray(edges, np.int32).reshape(-1))
    mesh.update()
    ring = np.r_[np.zeros(len(inner), np.int32), np.ones(len(outer), np.int32)]
    mesh.attributes.new("ring", "INT", "POINT").data.foreach_set("value", ring)
    obj = created.add(bpy.data.objects.new(name, mesh))
    navigation_collection(context, root, created).objects.link(obj)
    for index, group_name in enumerate(("inner", "outer")):
        group = obj.vertex_groups.new(name=group_name)
        group.add([int(i) for i in np.flatnonzero(ring == index)], 1.0, "REPLACE")
    _follow(obj, root)
    obj[P.GROUND_PLAN] = reference
    obj.display_type = "WIRE"
    obj.show_in_front = True
    return obj


def build_unit_ground_plans(context, plan, roots: list, created) -> list[bpy.types.Object]:
    """A ground-plan object for each building part of a unit (``plan``, a UnitPlan) whose record names one,
    following that part's root; on failure nothing of them is left (``created``: an io_msh.imp.build.Created)."""
    made = []
    try:
        for part in plan.parts:
            ground = getattr(part, "ground_plan", None)
            root = roots[part.component]
            if ground is None or root is None:
                continue
            made.append(build_ground_plan(context, f"{root.name} ground plan", ground.reference, ground.inner,
                                          ground.outer, root, created))
            made[-1][PLAN_FORM] = ground.form
            made[-1][PLAN_ARCHIVE], made[-1][PLAN_ENTRY] = ground.archive, ground.entry
            P.store_bytes(made[-1], PLAN_READ, ground.raw)
    except BaseException:
        created.remove_all()
        raise
    return made
