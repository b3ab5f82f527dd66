"""The model's meshes read back for export: each mesh object evaluated (modifiers, shape keys) and split per
MSH vertex in its node's space, and the materials its faces use."""

from __future__ import annotations

import numpy as np

from ...core.errors import FormatError
from ..com import compat
from ..com import conversion as C
from ..com import props as P
from ..com.hierarchy import descendants, shown_beside
from ..com.material_curves import material_animation_edited
from .game_fields import mesh_face_flags
from .scene_model import SceneImage, SceneMaterial, SceneMesh
from .skin import rigid_parts, strongest_bones


def read_mesh(obj, depsgraph) -> tuple[dict[str, np.ndarray], list, tuple]:
    """An object's mesh as ``read_meshes`` takes it: evaluated and split (``_split_vertices``), its slots'
    materials, and as stored (``stored_geometry``)."""
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    try:
        split, slots = _split_vertices(mesh, obj.name), list(mesh.materials)
    finally:
        evaluated.to_mesh_clear()
    return split, slots, stored_geometry(obj.data)


def read_meshes(depsgraph, root, nodes, mode, node_world, read: dict | None = None
                ) -> tuple[list[SceneMesh], list[SceneMaterial], list[str]]:
    """The model's meshes; ``read``: ``read_mesh`` of objects already read from this depsgraph (by name)."""
    root_inverse = np.linalg.inv(np.array(root.evaluated_get(depsgraph).matrix_world))
    node_inverse = C.affine_inverse(node_world)
    by_handle = {n.handle: i for i, n in enumerate(nodes)}
    keys_by_name: dict[str, int] = {}
    materials: list[SceneMaterial] = []

    def key_of(material) -> int:
        name = material.name if material is not None else ""
        if name not in keys_by_name:
            keys_by_name[name] = len(materials)
            materials.append(_scene_material(material))
        return keys_by_name[name]

    meshes, warnings = [], []
    for obj in descendants(root):
        if obj.type != "MESH":
            continue
        if shown_beside(obj):
            warnings.append(f"{obj.name!r} is shown beside the model (an effect's preview, a hall way or a ground "
                            "plan), not a part of it: it is not exported as a mesh")
            continue
        strongest = strongest_bones(obj, root, by_handle) if mode == "ARMATURE" else None
        node = _mesh_node(obj, root, by_handle, mode) if strongest is None else 0
        evaluated = obj.evaluated_get(depsgraph)
        mesh_in_root = root_inverse @ np.array(evaluated.matrix_world)
        split, slots, stored = read[obj.name] if read and obj.name in read else read_mesh(obj, depsgraph)
        keys = [key_of(slot) for slot in slots] or [key_of(None)]
        face_keys = np.array(keys)[np.minimum(split["face_slots"], len(keys) - 1)]
        modified = any(m.show_viewport for m in obj.modifiers) or obj.data.shape_keys is not None
        if strongest is None:
            meshes.append(_scene_mesh(obj, node, stored, split, face_keys, node_inverse, mesh_in_root, modified))
            meshes[-1].face_flags = split["face_flags"]
            continue
        parts = rigid_parts(split, strongest)
        warnings.append(f"mesh {obj.name!r} is skinned to {len(parts)} bones; MSH parts move rigidly with one "
                        "node, so it is split into one part per bone: each vertex goes to the bone of its largest "
                        "weight, each triangle to the bone two of its corners share, else to its first corner's")
        for part_node, part, chosen in parts:
            meshes.append(_scene_mesh(obj, part_node, stored, part, face_keys[chosen], node_inverse, mesh_in_root,
                                      True))
            meshes[-1].face_flags = split["face_flags"][chosen]
    return meshes, materials, warnings


def _scene_mesh(obj, node: int, stored, split, face_keys, node_inverse, mesh_in_root, modified) -> SceneMesh:
    """The mesh (or one rigid part of it) in its node's space (``node_inverse``: each node's inverse matrix)."""
    to_node = node_inverse[node] @ mesh_in_root
    positions = split["positions"] @ to_node[:3, :3].T + to_node[:3, 3]
    normals = split["normals"] @ _inverse(to_node[:3, :3])
    scale = max(1.0, float(np.abs(mesh_in_root[:3, 3]).max()), float(np.abs(to_node[:3, 3]).max()))
    return SceneMesh(obj.name, node, int(obj.get(P.SLOT, 0)), *stored, positions, normals, split["uvs"],
                     split["triangles"], face_keys, to_node, modified, scale)


_INVERSES: dict[bytes, np.ndarray] = {}


def _inverse(matrix: np.ndarray) -> np.ndarray:
    """``np.linalg.inv(matrix)``, kept by the matrix's bytes: most meshes sit on their nodes alike, and a LAPACK
    call inside Blender costs far more than its arithmetic (the panel's live check reads every mesh)."""
    key = np.ascontiguousarray(matrix, np.float64).tobytes()
    if key not in _INVERSES:
        if len(_INVERSES) > 256:
            _INVERSES.clear()
        _INVERSES[key] = np.linalg.inv(matrix)
    return _INVERSES[key]


def _mesh_node(obj, root, by_handle, mode) -> int:
    if mode == "ARMATURE":
        if obj.parent == root and obj.parent_type == "BONE" and obj.parent_bone in by_handle:
            return by_handle[obj.parent_bone]
        groups = [g.name for g in obj.vertex_groups if g.name in by_handle]
        if obj.parent == root and len(groups) == 1:
            return by_handle[groups[0]]
        named = f"; its vertex groups ({', '.join(sorted(g.name for g in obj.vertex_groups))}) name no bone" \
            if obj.vertex_groups and not groups else ""
        raise FormatError.single("scene", None, f"mesh {obj.name!r} is not attached to a node: parent it to a "
                                                f"bone or weight it to bones (MSH parts move rigidly with one "
                                                f"node){named}")
    parent = obj.parent
    while parent is not None and parent.name not in by_handle:
        parent = parent.parent
    if parent is None:
        raise FormatError.single("scene", None, f"mesh {obj.name!r} is not attached to a node: "
                                                "parent it to one of the model's Empties")
    return by_handle[parent.name]


def stored_geometry(mesh) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    co = np.zeros(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    loops = np.zeros(len(mesh.loops), np.int64)
    mesh.loops.foreach_get("vertex_index", loops)
    totals = np.zeros(len(mesh.polygons), np.int64)
    mesh.polygons.foreach_get("loop_total", totals)
    triangles = loops.reshape(-1, 3) if np.all(totals == 3) else None
    uvs = None
    if mesh.uv_layers:
        uvs = np.zeros(len(mesh.loops) * 2)
        mesh.uv_layers[0].data.foreach_get("uv", uvs)
        uvs = uvs.reshape(-1, 2)
    return co.reshape(-1, 3), triangles, uvs


def _split_vertices(mesh, name: str) -> dict[str, np.ndarray]:
    """Triangulate and give every distinct (vertex, normal, uv) corner its own MSH vertex."""
    mesh.calc_loop_triangles()
    count = len(mesh.loop_triangles)
    if count == 0 and len(mesh.polygons):
        raise FormatError.single("scene", None, f"mesh {name!r} has polygons that cannot be triangulated")
    loops = np.zeros(count * 3, np.int64)
    mesh.loop_triangles.foreach_get("loops", loops)
    face_slots = np.zeros(count, np.int64)
    mesh.loop_triangles.foreach_get("material_index", face_slots)
    polygons = np.zeros(count, np.int64)
    mesh.loop_triangles.foreach_get("polygon_index", polygons)
    vertex_of_loop = np.zeros(len(mesh.loops), np.int64)
    mesh.loops.foreach_get("vertex_index", vertex_of_loop)
    co = np.zeros(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    normals = np.zeros(len(mesh.loops) * 3)
    mesh.corner_normals.foreach_get("vector", normals)
    normals = normals.reshape(-1, 3)
    uvs = np.zeros((len(mesh.loops), 2))
    if mesh.uv_layers:
        flat = np.zeros(len(mesh.loops) * 2)
        mesh.uv_layers.active.data.foreach_get("uv", flat)
        uvs = flat.reshape(-1, 2)
    corner_key = np.column_stack([vertex_of_loop[loops], np.round(normals[loops] * 127), np.round(uvs[loops] * 1024)])
    # Rows compared as bytes (+ 0.0 turns -0.0 into 0.0): faster than np.unique(axis=0), which compares
    # column by column; then put in the order of their values (vertex index first), as that gave them.
    rows = np.ascontiguousarray(corner_key + 0.0).view(np.dtype((np.void, corner_key.dtype.itemsize * 6)))[:, 0]
    _unique, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.lexsort(corner_key[first].T[::-1])
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first, inverse = first[order], rank[inverse.ravel()]
    chosen = loops[first]
    return {
        "positions": co[vertex_of_loop[chosen]],
        "normals": normals[chosen],
        "uvs": uvs[chosen],
        "triangles": inverse.reshape(-1, 3),
        "face_slots": face_slots,
        "face_flags": mesh_face_flags(mesh, polygons),
        "vertices": vertex_of_loop[chosen],
    }


def _scene_material(material) -> SceneMaterial:
    if material is None:
        return SceneMaterial("")
    image = _base_image(material)
    principled = next((n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None) \
        if material.node_tree else None
    diffuse = tuple(material.diffuse_color)
    if principled is not None and not principled.inputs["Base Color"].is_linked:
        diffuse = (*principled.inputs["Base Color"].default_value[:3], principled.inputs["Alpha"].default_value)
    return SceneMaterial(
        material.name, material.get(P.MATERIAL), material.get(P.WEAR_NAME), material.get(P.LIGHTMAP),
        tuple(float(c) for c in diffuse), _blend(material), image, material_animation_edited(material),
        compat.ID_NAME_BYTES)


def _blend(material) -> str:
    """ADD for an emission-over-transparency tree, BLEND for blended materials, else OPAQUE."""
    kinds = {n.type for n in material.node_tree.nodes} if material.node_tree else set()
    if {"ADD_SHADER", "EMISSION", "BSDF_TRANSPARENT"} <= kinds:
        return "ADD"
    blended = material.blend_method == "BLEND" or material.surface_render_method == "BLENDED"
    return "BLEND" if blended else "OPAQUE"


def _base_image(material) -> SceneImage | None:
    """The first image of the tree that is not on the lightmap UV map, with its pixels if it is new."""
    if not material.node_tree:
        return None
    for node in material.node_tree.nodes:
        if node.type != "TEX_IMAGE" or node.image is None:
            continue
        uv = node.inputs["Vector"].links[0].from_node if node.inputs["Vector"].is_linked else None
        if uv is not None and uv.type == "UVMAP" and uv.uv_map == P.LIGHTMAP_UV:
            continue
        image = node.image
        key = image.get(P.TEXTURE)
        return SceneImage(image.name, key, None if key else _pixels(image))
    return None


def _pixels(image) -> np.ndarray | None:
    width, height = image.size[:2]
    if not width or not height:
        return None
    flat = np.zeros(width * height * 4, np.float32)
    image.pixels.foreach_get(flat)
    return np.flipud(np.rint(np.clip(flat, 0, 1) * 255).astype(np.uint8).reshape(height, width, 4))
