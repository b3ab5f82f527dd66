"""MSH fields the game reads that the export writes from the scene: face flags (Res7 +0) and node flags
(Res1 +0), which io_msh.com.flags names, and the slot area (Res2 +0x30) a new slot cannot get. A part
rebuilt from the scene takes its face flags through ``core.authoring.build.Part.face_flags``; a part whose
geometry is unchanged keeps its records and only the flag words the scene changed are written in place, so
that a flag edit rewrites nothing else."""

from __future__ import annotations

import numpy as np

from ...core.msh import streams as S
from ...core.msh.model import Model
from ..com import flags as F
from .scene_model import SceneModel


def mesh_face_flags(mesh, polygon_of_triangle: np.ndarray) -> np.ndarray:
    """The flag word of each loop triangle of a Blender mesh, from its polygon's face attributes."""
    count = len(mesh.polygons)
    raw = None
    attribute = mesh.attributes.get(F.FACE_WORD)
    if attribute is not None and attribute.domain == "FACE" and attribute.data_type == "INT":
        raw = np.zeros(count, np.int32)
        attribute.data.foreach_get("value", raw)
    bits = {}
    for name in F.FACE_BITS:
        attribute = mesh.attributes.get(name)
        if attribute is not None and attribute.domain == "FACE" and attribute.data_type == "BOOLEAN":
            values = np.zeros(count, bool)
            attribute.data.foreach_get("value", values)
            bits[name] = values
    return F.face_words(raw, bits, count)[polygon_of_triangle]


def node_flags(item) -> int | None:
    """A bone's or Empty's node flag word; None when it carries none of the flag properties (a new node)."""
    if F.NODE_WORD not in item and not any(name in item for name in F.NODE_BITS):
        return None
    return F.node_word(item)


def write_flags(model: Model, scene: SceneModel, rebuilt: set[tuple[int, int]]) -> bool:
    """Write the scene's node flags, and the face flags of the parts not in ``rebuilt`` (node, slot), into
    ``model`` (nodes in the source's numbering) where they differ; returns whether anything changed."""
    changed = False
    if not model.is_legacy:
        nodes = model.nodes.copy()
        for node in scene.nodes:
            if node.index is not None and node.flags is not None and node.index < len(nodes) \
                    and int(nodes[node.index]["flags"]) != node.flags:
                nodes[node.index]["flags"] = node.flags
                changed = True
        if changed:
            model.set_stream(1, nodes.tobytes())
    if model.stream(7) is None or model.is_legacy:
        return changed
    triangles, touched = model.triangles.copy(), False
    for mesh in scene.meshes:
        if mesh.face_flags is None or (mesh.node, mesh.slot) in rebuilt or mesh.node >= model.node_count:
            continue
        record = int(model.nodes[mesh.node]["slots"][mesh.slot])
        if record == S.NO_INDEX or record >= len(model.slots):
            continue
        slot = model.slots[record]
        start, count = int(slot["tri_start"]), min(int(slot["tri_count"]), len(mesh.face_flags))
        wanted = np.asarray(mesh.face_flags[:count], np.uint16)
        if not np.array_equal(triangles["flags"][start:start + count], wanted):
            triangles["flags"][start:start + count] = wanted
            touched = True
    if touched:
        model.set_stream(7, triangles.tobytes())
    return changed or touched


def area_warnings(scene: SceneModel, new_slots: list[tuple[int, int]]) -> list[str]:
    """A warning naming the new slots (node position, slot position) whose area (Res2 +0x30) is written as 0:
    the game's formula for it is not known (docs/formats/msh.md, "Slot area and
    volume"). Their volume (+0x34) is computed."""
    if not new_slots:
        return []
    named = ", ".join(f"{S.slot_label(slot)} of node {scene.nodes[node].name!r}" for node, slot in sorted(new_slots))
    return [f"slot area (Res2 +0x30) written as 0 for the new slot(s) {named}: how the game computes it is not "
            "known (armour mass in the game = armour value x area); the volume (+0x34) is computed"]
