"""The export's fourth stage in plain Python: the model, from the scene read, the decisions and the new tracks
(docs/export-pipeline.md).

- A model that came from an import keeps its original bytes for everything Blender did not change: the
  untouched nodes' tracks, and every geometry stream of the unchanged meshes (core.authoring.splice puts the
  edited parts in); the edited nodes' tracks are written by the canonical rules.
- A new model (or one whose node structure changed) is built from the scene by core.authoring.build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...core.animation.tracks import Animation, read_animation, track_starts, write_animation
from ...core.authoring.build import ModelDef, NodeDef, Part, build_model
from ...core.authoring.splice import EXTRA_VERTEX_STREAMS, NewPart, splice_slots
from ...core.errors import FormatError, has_errors
from ...core.msh import streams as S
from ...core.msh.model import Model
from ...core.msh.validate import validate_model
from ..com import conversion as C
from ..imp.plan import ImportOptions, plan_geometry
from .game_fields import area_warnings, write_flags
from .hallway_edit import write_shown_hallway
from .materials import MaterialExport
from .node_decisions import EDITED, Decisions, KeptTrack
from .node_names import NAME_BYTES, rename_nodes, stored_name
from .options import ExportOptions
from .scene_model import SceneMesh, SceneModel
from .scene_read import SceneRead
from .track_authoring import AuthoredTracks

if TYPE_CHECKING:
    from .check_cache import PlanMemo


@dataclass
class ExportResult:
    model: Model
    warnings: list[str]
    edited_nodes: list[int]
    geometry_rebuilt: bool
    materials: MaterialExport | None = None
    written: list[str] = field(default_factory=list)  # the files export_to_file wrote, the target last
    kept_changed: bool = False  # the model in its source file, changed by another program, is kept as it is
    placed: tuple[str, str] | None = None  # (archive, entry) of its source the model's bytes are put into


def assemble(read: SceneRead, decisions: Decisions, authored: AuthoredTracks, options: ExportOptions,
             memo: PlanMemo | None = None) -> ExportResult:
    """The model to write, validated; raises FormatError naming what cannot be written. ``memo``: what the last
    export check planned of the geometry, for the next check (io_msh.exp.check_cache)."""
    scene, source, materials = read.scene, read.source, decisions.materials
    warnings = list(decisions.warnings)
    if decisions.built:
        model = _new_model(scene, decisions, authored, materials.words)
        warnings += area_warnings(scene, [(m.node, m.slot) for m in scene.meshes if len(m.triangles)])
        return _checked(ExportResult(model, warnings, list(range(len(scene.nodes))), True, materials), scene)
    anim = read_animation(source)
    edited = [i for i, node in enumerate(decisions.nodes) if node.kind == EDITED]
    for i in edited:
        anim.tracks[i] = authored.tracks[i]
    warnings += _fit_frame_count(anim, edited, len(read.times))
    new_parts, removed = _changed_slots(scene, source, materials.words, memo)
    if not new_parts and not removed:
        write_animation(source, anim)
        rename_nodes(source, scene)
        write_flags(source, scene, set())
        return _checked(ExportResult(source, warnings, edited, False, materials), scene)
    # Only the edited parts are rebuilt; every other slot (imported and unchanged, or not imported at all)
    # keeps its geometry, per-vertex streams and slot record as the source has them.
    model = splice_slots(source, new_parts, removed, anim)
    write_animation(model, anim)
    rename_nodes(model, scene)
    write_flags(model, scene, {(n.part.node, n.part.slot) for n in new_parts})
    warnings += area_warnings(scene, [(n.part.node, n.part.slot) for n in new_parts if n.unknown is None])
    changed = [n.label for n in new_parts] + [f"{S.slot_label(p)} of node {scene.nodes[i].name!r} (its mesh was "
                                              "deleted)" for i, p in removed]
    warnings.append(f"geometry changed: {', '.join(changed)} rebuilt; every other slot is kept as it was")
    return _checked(ExportResult(model, warnings, edited, True, materials), scene)


def _fit_frame_count(anim: Animation, edited: list[int], exported: int) -> list[str]:
    """The frame count of an animation whose ``edited`` tracks were rewritten over ``exported`` frames: those
    frames, but never fewer than the source's while a node keeps its source track (a map block of the source's
    frame count; its keys and the controller's frames reach that far)."""
    if not edited:
        return []
    rewritten = set(edited)
    kept = any(t.has_map for i, t in enumerate(anim.tracks) if i not in rewritten)
    if not kept or exported >= anim.frame_count:
        anim.frame_count = exported
        return []
    return [f"the exported frames 0..{exported - 1} end before the model's frame count {anim.frame_count}, and "
            "nodes left unchanged keep their tracks: the frame count is kept (the rewritten nodes hold their last "
            "exported pose after it)"]


def _checked(result: ExportResult, scene: SceneModel | None = None) -> ExportResult:
    if scene is not None and write_shown_hallway(result.model, scene.hallway):  # the building's path graph
        result.warnings.append("the hall way (stream 17) is written as the scene shows it")
    findings = validate_model(result.model)
    if has_errors(findings):
        raise FormatError(findings, result.model.name)
    return result


# --------------------------------------------------------------------- geometry
def _changed_slots(scene: SceneModel, source: Model, words: list[int],
                   memo: PlanMemo | None = None) -> tuple[list[NewPart], set]:
    """The meshes that are not exactly what the import made from the source (or were added), as parts to
    rebuild, and the imported slots whose mesh was deleted.

    A mesh is unchanged when it is placed on its node as imported, has no modifier or shape key, and holds
    the imported vertices, faces, UVs and batch material of every face. Slots the import did not make meshes
    for are not compared: they stay as the source has them.
    """
    stage, lod = divmod(scene.slot_position, S.LODS)
    options = ImportOptions(slots=scene.slots_imported, stage=stage, lod=lod)
    planned = plan_geometry(source, options) if memo is None else \
        memo.geometry((scene.source, scene.model_name, options), lambda: plan_geometry(source, options))
    expected = {(m.node, m.slot_position): m for m in planned}
    changed = [m for m in scene.meshes if (m.node, m.slot) not in expected
               or not _unchanged(m, expected[(m.node, m.slot)], words)]
    removed = set(expected) - {(m.node, m.slot) for m in scene.meshes}
    new_parts = []
    for mesh in changed:
        plan = expected.get((mesh.node, mesh.slot))
        part = _part(mesh, words)
        if part is None:  # a mesh without triangles: its slot is emptied
            removed.add((mesh.node, mesh.slot))
            continue
        old = int(source.nodes[mesh.node]["slots"][mesh.slot]) if mesh.node < source.node_count else S.NO_INDEX
        new_parts.append(NewPart(part, _kept_vertex_streams(source, mesh, plan, old), f"mesh {mesh.name!r}",
                                 source.slots[old]["unknown"].copy() if old < len(source.slots) else None))
    return new_parts, removed


PLACEMENT_ROUNDING = 4e-6  # float32 matrix products (about 32 ulp), relative to the coordinates they hold


def _placed_as_imported(mesh: SceneMesh) -> bool:
    """Whether the mesh sits on its node as imported: its offset is the identity up to the rounding of the
    float32 matrices it was computed from, which grows with the model's coordinates (not with a fixed
    tolerance, which a large model's rounding alone exceeds)."""
    deviation = np.abs(mesh.offset - np.eye(4))
    return bool(deviation[:3, :3].max() <= PLACEMENT_ROUNDING and deviation[3].max() <= 1e-12
                and deviation[:3, 3].max() <= PLACEMENT_ROUNDING * mesh.placement_scale)


def _unchanged(mesh: SceneMesh, plan, words: list[int]) -> bool:
    return not (mesh.modified or not _placed_as_imported(mesh)
                or mesh.stored_triangles is None or mesh.stored_positions.shape != plan.positions.shape
                or not np.array_equal(mesh.stored_triangles, plan.triangles)
                or np.abs(mesh.stored_positions - plan.positions).max(initial=0) > 1e-6
                or mesh.stored_uvs is None or np.abs(mesh.stored_uvs - plan.uvs).max(initial=0) > 1e-6
                or not np.array_equal(np.array(words)[mesh.face_materials],
                                      np.array(plan.materials)[plan.face_materials]))


def _kept_vertex_streams(source: Model, mesh: SceneMesh, plan, record: int) -> dict[int, np.ndarray] | None:
    """The source's Res15/16/18 records of an edited mesh's vertices, when they are still the imported ones
    (same faces, one MSH vertex per Blender vertex, in the import's order); else None."""
    if plan is None or record >= len(source.slots) or mesh.stored_triangles is None \
            or not np.array_equal(mesh.stored_triangles, plan.triangles) \
            or len(mesh.positions) != len(plan.positions) or len(mesh.stored_positions) != len(plan.positions):
        return None
    used = _slot_vertices(source, record)
    if len(used) != len(plan.positions):
        return None
    return {t: S.records(source.data(t), S.SPECS[t].dtype)[used] for t in EXTRA_VERTEX_STREAMS
            if source.stream(t) is not None and len(source.data(t)) // S.SPECS[t].dtype.itemsize > used.max()}


def _slot_vertices(source: Model, record: int) -> np.ndarray:
    """The vertices a slot record's batches use, in order (as the import numbers them)."""
    slot, batches, indices = source.slots[record], source.batches, source.indices
    used = [indices[int(b["index_start"]):int(b["index_start"]) + int(b["index_count"]) // 3 * 3].astype(np.int64)
            + int(b["base_vertex"])
            for b in batches[int(slot["batch_start"]):int(slot["batch_start"]) + int(slot["batch_count"])]]
    return np.unique(np.concatenate(used)) if used else np.zeros(0, np.int64)


def _parts(scene: SceneModel, words: list[int]) -> list[Part]:
    return [part for part in (_part(mesh, words) for mesh in scene.meshes) if part is not None]


def _part(mesh: SceneMesh, words: list[int]) -> Part | None:
    """The mesh as a part (None when it has no triangles); raises FormatError when a part cannot hold it."""
    refuse_oversized(mesh)
    if len(mesh.triangles) == 0:
        return None
    return Part(mesh.node, mesh.positions, mesh.triangles, _unit(mesh.normals), C.file_uvs(mesh.uvs),
                slot=mesh.slot, face_words=np.array(words)[mesh.face_materials], face_flags=mesh.face_flags)


def refuse_oversized(mesh: SceneMesh) -> None:
    """Raises FormatError when a part cannot hold the mesh: too many vertices, or triangles of one material."""
    if len(mesh.positions) > 0x10000:
        raise FormatError.single("scene", None, f"mesh {mesh.name!r} has {len(mesh.stored_positions)} vertices, "
                                                f"{len(mesh.positions)} once split where normals or UVs differ "
                                                "(MSH stores one normal and UV per vertex); a part holds at "
                                                "most 65536: split the mesh or merge by distance")
    if len(mesh.triangles) == 0:
        return
    per_material = np.bincount(mesh.face_materials)
    if per_material.max() * 3 > 0xFFFF:
        raise FormatError.single("scene", None, f"mesh {mesh.name!r} has {per_material.max()} triangles with one "
                                                "material; MSH draws at most 21845 per material and part: "
                                                "split the mesh or give its faces more materials")


def _unit(v: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.where(length > 0, v / np.where(length > 0, length, 1), 0.0)


# --------------------------------------------------------------------- models built from the scene
def _carry_maps(model: Model, kept: dict[int, KeptTrack]) -> None:
    """Write the kept non-canonical maps into the rebuilt ``model``, each moved to its node's keys there; frames
    past the source's show the fallback key, as they did."""
    carried = {i: k for i, k in kept.items() if k.offsets is not None}
    if not carried:
        return
    words, frame_count, starts = model.map_words.astype(np.int64), model.frame_count, track_starts(model)
    for i, k in carried.items():
        offsets = np.concatenate([k.offsets[:frame_count],
                                  np.full(max(0, frame_count - len(k.offsets)), len(k.track) - 1)])
        map_start = int(model.nodes[i]["map_start"])
        words[map_start:map_start + frame_count] = np.minimum(starts[i] + offsets, S.NO_INDEX)
    model.set_stream(19, words.astype(S.MAP_WORD).tobytes())


def _node_defs(scene: SceneModel, labels: list[bytes | None]) -> list[NodeDef]:
    return [NodeDef(stored_name(node, NAME_BYTES), node.parent, label, node.flags or 0)
            for node, label in zip(scene.nodes, labels, strict=True)]


def _new_model(scene: SceneModel, decisions: Decisions, authored: AuthoredTracks, words: list[int]) -> Model:
    kept = decisions.kept
    anim = Animation(1, [kept[i].track if i in kept else authored.tracks[i] for i in range(len(scene.nodes))])
    anim.fit_frame_count()
    if any(k.offsets is not None for k in kept.values()):  # a kept map covers the source's frames
        anim.frame_count = max(anim.frame_count, *(k.frame_count for k in kept.values()))
    model = build_model(ModelDef(_node_defs(scene, decisions.labels), _parts(scene, words), anim,
                                 stream_name=_stream_name(scene)))
    _carry_maps(model, kept)
    return model


def _stream_name(scene: SceneModel) -> str:
    return scene.model_name.encode("cp1251", "replace")[:35].decode("cp1251")
