"""The hall-way object of a model root (io_msh.imp.hallway), read back as plain data for the export
(io_msh.exp.hallway_edit writes it into stream 17)."""

from __future__ import annotations

import bpy
import numpy as np

from ..com import props as P
from .hallway_edit import SceneHallway

TAIL_WORDS = 8


def hallway_object(root) -> bpy.types.Object | None:
    return next((o for o in bpy.data.objects if o.type == "MESH" and P.GROUND_PLAN not in o
                 and o.get(P.HALLWAY) == root), None)


def _words(mesh, name: str, domain: str, size: int) -> np.ndarray | None:
    attribute = mesh.attributes.get(name)
    if attribute is None or attribute.domain != domain or attribute.data_type != "INT":
        return None
    out = np.zeros(size, np.int32)
    attribute.data.foreach_get("value", out)
    return out.view(np.uint32)


def read_shown_hallway(root) -> SceneHallway | None:
    """The root's hall way as shown, in the root's frame (an object left in Edit Mode read from its edit mesh:
    the user stays there); None without one."""
    obj = hallway_object(root)
    if obj is None:
        return None
    co, edges, flags, joints, tails = _edit_mesh(obj) if obj.mode == "EDIT" else _mesh(obj.data)
    to_root = np.array(root.matrix_world.inverted_safe() @ obj.matrix_world)
    if not np.allclose(to_root, np.eye(4), atol=1e-6):  # the object itself was moved
        co = co @ to_root[:3, :3].T + to_root[:3, 3]
    return SceneHallway(obj.name, co, flags, joints, edges,
                        None if any(t is None for t in tails) else np.stack(tails, axis=1))


def _mesh(mesh) -> tuple:
    co = np.zeros(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    edges = np.zeros(len(mesh.edges) * 2, np.int32)
    mesh.edges.foreach_get("vertices", edges)
    count = len(mesh.vertices)
    tails = [_words(mesh, f"tail_{w}", "EDGE", len(mesh.edges)) for w in range(TAIL_WORDS)]
    return (co.reshape(-1, 3).astype(np.float64), edges.reshape(-1, 2), _words(mesh, "flags", "POINT", count),
            _words(mesh, "joint", "POINT", count), tails)


def _edit_mesh(obj) -> tuple:
    import bmesh

    mesh = bmesh.from_edit_mesh(obj.data)
    mesh.verts.index_update()
    co = np.array([v.co[:] for v in mesh.verts], np.float64).reshape(-1, 3)
    edges = np.array([[e.verts[0].index, e.verts[1].index] for e in mesh.edges], np.int64).reshape(-1, 2)

    def words(items, layers, name):
        layer = layers.int.get(name)
        return None if layer is None else np.array([item[layer] for item in items], np.int32).view(np.uint32)

    tails = [words(mesh.edges, mesh.edges.layers, f"tail_{w}") for w in range(TAIL_WORDS)]
    return (co, edges, words(mesh.verts, mesh.verts.layers, "flags"), words(mesh.verts, mesh.verts.layers, "joint"),
            tails)
