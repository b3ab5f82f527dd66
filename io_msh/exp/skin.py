"""A mesh skinned to several bones, exported as MSH parts, which move rigidly with one node: each vertex
goes to the bone of its largest weight, each triangle to the bone its corners share."""

from __future__ import annotations

import numpy as np

from ...core.errors import FormatError


def strongest_bones(obj, root, by_handle) -> np.ndarray | None:
    """For a mesh skinned to several bones (an armature child, not bone-parented, whose vertex groups name
    two or more bones): each vertex's node, the bone of its largest weight. None for a rigid mesh."""
    if obj.parent != root or obj.parent_type == "BONE":
        return None
    group_node = {g.index: by_handle[g.name] for g in obj.vertex_groups if g.name in by_handle}
    if len(group_node) < 2:
        return None
    strongest = np.full(len(obj.data.vertices), -1, np.int64)
    for vertex in obj.data.vertices:
        weights = [(g.weight, group_node[g.group]) for g in vertex.groups if g.group in group_node and g.weight > 0]
        if weights:
            strongest[vertex.index] = max(weights)[1]
    if (strongest < 0).any():
        raise FormatError.single("scene", None, f"mesh {obj.name!r}: {int((strongest < 0).sum())} vertices have no "
                                                f"weight on a bone (vertex groups: "
                                                f"{', '.join(sorted(g.name for g in obj.vertex_groups))})")
    return strongest


def rigid_parts(split: dict[str, np.ndarray], strongest: np.ndarray) -> list[tuple[int, dict, np.ndarray]]:
    """The mesh ``split`` per MSH vertex (io_msh.exp.meshes) cut into one part per bone: (node, the part's
    split, which triangles of the mesh it holds). A triangle goes to the bone two of its corners share, else to
    its first corner's."""
    corner_nodes = strongest[split["vertices"]][split["triangles"]]
    triangle_nodes = np.where(corner_nodes[:, 1] == corner_nodes[:, 2], corner_nodes[:, 1], corner_nodes[:, 0])
    parts = []
    for node in np.unique(triangle_nodes).tolist():
        chosen = triangle_nodes == node
        vertices, triangles = np.unique(split["triangles"][chosen], return_inverse=True)
        part = {**split, "positions": split["positions"][vertices], "normals": split["normals"][vertices],
                "uvs": split["uvs"][vertices], "triangles": triangles.reshape(-1, 3)}
        parts.append((node, part, chosen))
    return parts
