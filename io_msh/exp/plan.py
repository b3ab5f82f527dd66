"""Export decisions in plain Python: from a scene read back (io_msh.exp.readback) to a model.

- A model that came from an import keeps its original bytes for everything
  Blender did not change: a node whose pose at every exported frame equals
  the runtime's sample of its original track keeps that track (keys, raw
  rotations, map words); unchanged meshes keep every geometry stream.
- Changed nodes get new keys (core.animation.keys: reduced within tolerance, every
  frame, or at the Blender keyframes), written by the canonical rules.
- A new model (or one whose node structure changed) is built from the
  scene by core.authoring.build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...core.animation.keys import author_tracks, quantize_rotations
from ...core.animation.tracks import Animation, Track, canonical_words, read_animation, track_starts, write_animation
from ...core.authoring.build import ModelDef, NodeDef, Part, build_model
from ...core.authoring.splice import EXTRA_VERTEX_STREAMS, NewPart, splice_slots
from ...core.container.nres import game_bytes
from ...core.errors import FormatError, has_errors
from ...core.msh import streams as S
from ...core.msh.labels import encode_labels
from ...core.msh.model import Model
from ...core.msh.validate import validate_model
from ..com import conversion as C
from ..imp.plan import ImportOptions, plan_geometry
from .frames import Held, Poses, blocks, hold_every_frame
from .game_fields import area_warnings, write_flags
from .hallway_edit import write_shown_hallway
from .materials import MaterialExport, plan_materials
from .options import KEY_MODES, ExportOptions, exported_frames
from .scene_model import SceneMesh, SceneModel
from .unedited import same_as_imported, same_in_blocks

if TYPE_CHECKING:
    from .check_cache import PlanMemo

NAME_BYTES = 31  # Res9: 32-byte names with a NUL

__all__ = ["ExportOptions", "exported_frames"]  # as before: the dialogs, the check and the writers name them here


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


def export_model(scene: SceneModel, options: ExportOptions, memo: PlanMemo | None = None) -> ExportResult:
    """The model to write; raises FormatError naming what cannot be written. ``memo``: what the last export
    check planned, for the next check (io_msh.exp.check_cache; the export passes none)."""
    if options.keys not in KEY_MODES:
        raise FormatError.single("scene", None, f"unknown key mode {options.keys!r}")
    hold_every_frame(scene)
    scale_warnings = bake_node_scale(scene)
    poses = Poses(scene)
    times = (scene.frames - scene.frames[0]).astype(np.float32)
    source = _source_model(scene)
    materials = plan_materials(scene.materials, scene.wear, options.materials)
    warnings: list[str] = [*scene.warnings, *scale_warnings, *materials.warnings]
    _check_slots(scene.meshes)
    rebuilt = source is not None and not _same_structure(scene, source)
    if rebuilt:
        _refuse_losing_slots(scene, source)
        warnings.append("the node structure differs from the imported model: the model is rebuilt from the "
                        "scene, and the original's unknown streams and fields are not carried over")
    if source is None or rebuilt:
        labels = _carried_labels(scene, source) if rebuilt else [None] * len(scene.nodes)
        kept = _kept_tracks(scene, source, poses, times, options) if rebuilt else {}
        model = _new_model(scene, poses, times, options, materials.words, labels, kept, memo)
        warnings += area_warnings(scene, [(m.node, m.slot) for m in scene.meshes if len(m.triangles)])
        return _checked(ExportResult(model, warnings, list(range(len(scene.nodes))), True, materials), scene)
    anim = read_animation(source)
    edited = _update_tracks(anim, source, scene, poses, times, options, memo)
    warnings += _fit_frame_count(anim, edited, len(times))
    new_parts, removed = _changed_slots(scene, source, materials.words, memo)
    if not new_parts and not removed:
        write_animation(source, anim)
        _rename_nodes(source, scene)
        write_flags(source, scene, set())
        return _checked(ExportResult(source, warnings, edited, False, materials), scene)
    # Only the edited parts are rebuilt; every other slot (imported and unchanged, or not imported at all)
    # keeps its geometry, per-vertex streams and slot record as the source has them.
    model = splice_slots(source, new_parts, removed, anim)
    write_animation(model, anim)
    _rename_nodes(model, scene)
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


def _source_model(scene: SceneModel) -> Model | None:
    if scene.source is None:
        return None
    return Model.parse(scene.source, scene.model_name)


def _same_structure(scene: SceneModel, source: Model) -> bool:
    if [n.index for n in scene.nodes] != list(range(source.node_count)):
        return False
    parents = [None if p == S.NO_INDEX else int(p) for p in source.nodes["parent"]]
    return [n.parent for n in scene.nodes] == parents


# --------------------------------------------------------------------- node scale
def bake_node_scale(scene: SceneModel) -> list[str]:
    """MSH nodes have no scale. A bone or Empty scaled in Blender (directly or by a parent) is exported as it
    shows: each node's matrix relative to the root is split into a rotation and a scale (polar
    decomposition), the nodes keep the rotations and positions, and the scale goes into the geometry of
    their parts. Refused, naming the node, where that cannot show the same: a node with parts whose scale
    changes over the frames, or a mirrored node. Changes ``scene`` in place; returns the warning."""
    if not scene.scale_set:  # nothing the user sets scales a node: what differs from a rotation is rounding
        return []
    parents = [n.parent for n in scene.nodes]
    world = C.node_worlds(scene.local_matrices, parents)
    scaled = C.scaled_nodes(world, parents)
    if not scaled.any():
        return []
    basis = world[..., :3, :3]
    u, _s, vt = np.linalg.svd(basis)
    rotation = u @ vt
    stretch = np.swapaxes(rotation, -1, -2) @ basis  # basis = rotation @ stretch
    with_parts = {m.node for m in scene.meshes}
    for i in np.flatnonzero(scaled):
        name = scene.nodes[i].name
        if (np.linalg.det(basis[i]) <= 0).any():
            raise FormatError.single("scene", None, f"node {name!r} is mirrored (a negative scale); MSH nodes have "
                                                    "no scale and a mirrored part would show its faces inside "
                                                    "out: apply or remove the negative scale")
        if i in with_parts and np.abs(stretch[i] - stretch[i, :1]).max() > C.scale_tolerances(parents)[i]:
            raise FormatError.single("scene", None, f"node {name!r} has parts and a scale that changes over the "
                                                    "frames; MSH nodes have no scale and parts do not deform: "
                                                    "remove the scale animation")
    rigid = world.copy()
    rigid[..., :3, :3] = rotation
    local = rigid.copy()
    children = [i for i, p in enumerate(parents) if p is not None]
    if children:
        local[children] = C.affine_inverse(rigid[[parents[i] for i in children]]) @ rigid[children]
    scene.local_matrices = local
    for mesh in scene.meshes:
        if not scaled[mesh.node]:
            continue
        k = stretch[mesh.node, 0]  # the meshes were read at the first frame
        mesh.positions = mesh.positions @ k.T
        mesh.normals = mesh.normals @ np.linalg.inv(k)
        placement = np.eye(4)
        placement[:3, :3] = k
        mesh.offset = placement @ mesh.offset
    names = ", ".join(repr(scene.nodes[i].name) for i in np.flatnonzero(scaled))
    return [f"node(s) {names} are scaled in Blender; MSH nodes have no scale: the scale is baked into their "
            "parts' geometry and their children's positions"]


# --------------------------------------------------------------------- poses
def _update_tracks(anim: Animation, source: Model, scene: SceneModel, poses: Poses, times, options,
                   memo: PlanMemo | None = None) -> list[int]:
    """Replace the tracks of the nodes Blender changed; returns their indices. A node whose curves are the
    import's costs one frame; the others are compared with the runtime a block of frames at a time."""
    if scene.as_imported:
        return []
    same_position, same_rotation = options.same_position, options.same_rotation
    if scene.animation_mode == "EDITING":  # its curves are within the key tolerance of the runtime
        same_position = max(same_position, options.tolerance.position)
        same_rotation = max(same_rotation, np.radians(options.tolerance.rotation_deg))
    # A node whose curves are the import's and whose first frame is the import's keeps its track, even
    # where its curves do not reproduce the runtime at every frame (KEYS of a non-canonical map).
    same = np.zeros(len(scene.nodes), bool)
    if scene.curves_as_imported:
        same[sorted(scene.curves_as_imported)] = True
        same &= same_as_imported(source, *poses.at(None, slice(0, 1)), times[:1], scene.animation_mode,
                                 same_position, same_rotation)
    rest = np.flatnonzero(~same)
    split = blocks(len(rest), len(times))
    if len(split) == 1:
        poses = Held(poses, rest)
    same[rest] = same_in_blocks(source, poses.at, rest, times, split, same_position, same_rotation)
    edited = [int(i) for i in np.flatnonzero(~same)]
    for i, track in zip(edited, _authored(edited, scene, poses, times, options, memo)):
        anim.tracks[i] = track
    return edited


def _authored(nodes: list[int], scene: SceneModel, poses: Poses | Held, times, options: ExportOptions,
              memo: PlanMemo | None = None) -> list[Track]:
    if options.keys == "BLENDER_KEYS":
        return [_at_blender_keys(i, scene, poses, times) for i in nodes]
    if not nodes:
        return []

    def author(rot, pos):  # all nodes in one call: the key reduction tests them together
        return author_tracks(rot, pos, times, reduce=options.keys == "REDUCED", tolerance=options.tolerance)
    if memo is None:
        return author(*poses.at(nodes))
    common = (np.asarray(times, np.float32).tobytes(), options.keys, options.tolerance)
    return memo.tracks(*poses.at(nodes), common, author)


def _at_blender_keys(node: int, scene: SceneModel, poses: Poses | Held, times) -> Track:
    frames = scene.frames
    keyed = scene.keyframes.get(node, np.zeros(0))
    off_grid = keyed[np.abs(keyed - np.round(keyed)) > 1e-3]
    if len(off_grid):
        raise FormatError.single("scene", None, f"node {scene.nodes[node].name!r} has a keyframe at frame "
                                                f"{off_grid[0]:g}, not on an integer frame; export with "
                                                "reduced or per-frame keys instead")
    wanted = np.unique(np.concatenate([[frames[0]], np.round(keyed)]))
    columns = np.searchsorted(frames, wanted[(wanted >= frames[0]) & (wanted <= frames[-1])])
    (rot,), (pos,) = poses.at([node], columns)
    if len(columns) == 1:
        return Track(times[:1].copy(), pos[:1].astype(np.float32), quantize_rotations(rot[:1]), False)
    return Track.from_keys(times[columns], pos, quantize_rotations(rot))


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


def _refuse_losing_slots(scene: SceneModel, source: Model) -> None:
    """A changed node structure rebuilds the model from the scene: refused when that would lose slots the import
    did not bring into Blender, or per-vertex streams Blender does not hold."""
    if scene.slots_imported != "ALL" and _has_other_slots(source, scene.slot_position):
        shown = S.slot_label(scene.slot_position)
        raise FormatError.single("scene", None, f"nodes were added, removed or re-parented, so the model must be "
                                                f"rebuilt from the scene, but only its {shown} "
                                                "parts were imported and the other damage stages and LODs would be "
                                                "lost; import it with Geometry: All Slots and make the change again")
    lost = [f"{S.SPECS[t].label} ({S.label(t)})" for t in EXTRA_VERTEX_STREAMS if source.stream(t) is not None]
    if lost:
        raise FormatError.single("scene", None, f"nodes were added, removed or re-parented, so the model must be "
                                                f"rebuilt from the scene, and its {', '.join(lost)} cannot be: "
                                                "Blender does not hold them; keep the imported node structure")


def _has_other_slots(source: Model, position: int) -> bool:
    used = source.nodes["slots"] != S.NO_INDEX
    return bool(np.delete(used, position, axis=1).any())


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


def _check_slots(meshes: list[SceneMesh]) -> None:
    seen: dict[tuple[int, int], str] = {}
    for mesh in meshes:
        if not 0 <= mesh.slot < 15:
            raise FormatError.single("scene", None, f"mesh {mesh.name!r}: msh_slot {mesh.slot} is not 0..14")
        key = (mesh.node, mesh.slot)
        if key in seen:
            raise FormatError.single("scene", None, f"meshes {seen[key]!r} and {mesh.name!r} are on the same node "
                                                    f"and slot {mesh.slot}: join them or set msh_slot")
        seen[key] = mesh.name


# --------------------------------------------------------------------- names
def _rename_nodes(model: Model, scene: SceneModel) -> None:
    """Store the new names of renamed nodes where the import read their names: Res9 when the node has a
    name there, else its Res10 label (msh-core.md 8.3 names Res10 for a rename)."""
    renamed = [(i, node) for i, node in enumerate(scene.nodes) if node.renamed]
    if not renamed:
        return
    names = model.node_names_raw.copy()
    labels = list(model.labels) + [None] * max(0, model.node_count - len(model.labels))
    for i, node in renamed:
        if _named_by_label(names, i):
            labels[i] = _stored_name(node, None)
        else:
            names[i] = _stored_name(node, NAME_BYTES)
    if len(names):
        model.set_stream(9, names.tobytes())
    model.set_stream(10, encode_labels(labels), attr1=len(labels))


def _named_by_label(names: np.ndarray, index: int) -> bool:
    """Whether the import read node ``index``'s name from its Res10 label (it has no Res9 name)."""
    return not (index < len(names) and names[index].rstrip(b"\0"))


@dataclass
class KeptTrack:
    """An imported node's source track kept in a rebuilt model (``_kept_tracks``)."""

    track: Track
    offsets: np.ndarray | None  # a non-canonical frame map relative to the track's first key; None: canonical
    frame_count: int            # the source's (a kept map covers its frames)


def _kept_tracks(scene: SceneModel, source: Model, poses: Poses, times, options: ExportOptions
                 ) -> dict[int, KeptTrack]:
    """In a model rebuilt for a changed node structure, the source tracks of the imported nodes nothing moved
    (by position in ``scene.nodes``), as the imported structure keeps them (``_update_tracks``): curves the
    import's, the same parent node, the first frame the import's. Their keys are kept, and so is a frame map
    that is not canonical when it refers to the node's own keys only (moved to where they now lie, as
    ``core.animation.tracks`` moves unedited maps): the rebuilt model shows the game's pose of the source at
    every frame (msh-animation.md sections 3 and 5). The other nodes are authored from what Blender shows."""
    parents = [None if p == S.NO_INDEX else int(p) for p in source.nodes["parent"]]
    offsets = {i: _map_offsets(source, scene.nodes[i].index) for i in sorted(scene.curves_as_imported)
               if _same_place(scene, i, parents)}
    candidates = [i for i, found in offsets.items() if found is not False]
    if not candidates:
        return {}
    rot, pos = poses.at(candidates, slice(0, 1))
    rows = [scene.nodes[i].index for i in candidates]
    all_rot, all_pos = np.zeros((source.node_count, 1, 4)), np.zeros((source.node_count, 1, 3))
    all_rot[rows], all_pos[rows] = rot, pos
    same_position, same_rotation = options.same_position, options.same_rotation
    if scene.animation_mode == "EDITING":
        same_position = max(same_position, options.tolerance.position)
        same_rotation = max(same_rotation, np.radians(options.tolerance.rotation_deg))
    same = same_as_imported(source, all_rot, all_pos, times[:1], scene.animation_mode, same_position, same_rotation)
    tracks = read_animation(source).tracks
    return {i: KeptTrack(Track(*(a.copy() for a in (t.times, t.pos, t.rot)), t.has_map), offsets[i],
                         source.frame_count)
            for i, t in ((i, tracks[scene.nodes[i].index]) for i in candidates) if same[scene.nodes[i].index]}


def _same_place(scene: SceneModel, position: int, parents: list[int | None]) -> bool:
    """Whether the scene's node ``position`` is an imported node under the node its source parent is."""
    node = scene.nodes[position]
    if node.index is None or not 0 <= node.index < len(parents):
        return False
    parent = None if node.parent is None else scene.nodes[node.parent].index
    return parent == parents[node.index] and (node.parent is None or parent is not None)


def _map_offsets(source: Model, index: int) -> np.ndarray | bool | None:
    """Node ``index``'s frame map relative to its first key: None when it has none or the canonical one (laid
    out anew, its keys give it again), False when a word refers to another node's keys (it cannot be moved).
    Words at or past the node's fallback key keep their distance past it (they all show the fallback)."""
    node = source.nodes[index]
    map_start = int(node["map_start"])
    if map_start == S.NO_INDEX:
        return None
    start, fallback = track_starts(source)[index], int(node["fallback_key"])
    words = source.map_words[map_start:map_start + source.frame_count].astype(np.int64)
    if np.array_equal(words, canonical_words(source.keys["time"][start:fallback + 1], start, source.frame_count)):
        return None
    if (words < start).any():
        return False
    return words - start


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


def _carried_labels(scene: SceneModel, source: Model) -> list[bytes | None]:
    """The Res10 labels of a model rebuilt from the scene: each imported node keeps its source label (a
    socket's label says which parts it takes: docs/formats/animation.md, Node names), a renamed node whose name was its
    label takes the new name as _rename_nodes does, a new node has none. A source Res10 that does not parse
    gives none (validate reports it on the source)."""
    try:
        labels = source.labels
    except FormatError:
        return [None] * len(scene.nodes)
    names = source.node_names_raw
    carried: list[bytes | None] = []
    for node in scene.nodes:
        index = node.index if node.index is not None and 0 <= node.index < source.node_count else None
        if index is None:
            carried.append(None)
        elif node.renamed and _named_by_label(names, index):
            carried.append(_stored_name(node, None))
        else:
            carried.append(labels[index] if index < len(labels) else None)
    return carried


def _stored_name(node, limit: int | None) -> bytes:
    """The node's name in code page 1251 as typed (node names carry no escapes: the import reads them with
    ``game_text``); raises FormatError naming the bone or Empty when it cannot be stored."""
    try:
        raw = game_bytes(node.name)
    except UnicodeEncodeError:
        raise FormatError.single("scene", None, f"node {node.handle!r}: the name {node.name!r} cannot be "
                                                "stored in code page 1251; rename it") from None
    if limit is not None and len(raw) > limit:
        raise FormatError.single("scene", None, f"node {node.handle!r}: the name {node.name!r} is {len(raw)} "
                                                f"bytes; MSH node names hold at most {limit}")
    return raw


# --------------------------------------------------------------------- new models
def _node_defs(scene: SceneModel, labels: list[bytes | None]) -> list[NodeDef]:
    return [NodeDef(_stored_name(node, NAME_BYTES), node.parent, label, node.flags or 0)
            for node, label in zip(scene.nodes, labels, strict=True)]


def _new_model(scene: SceneModel, poses: Poses, times, options: ExportOptions, words: list[int],
               labels: list[bytes | None], kept: dict[int, KeptTrack], memo: PlanMemo | None = None) -> Model:
    authored = [i for i in range(len(scene.nodes)) if i not in kept]
    tracks = dict(zip(authored, _authored(authored, scene, poses, times, options, memo)))
    anim = Animation(1, [kept[i].track if i in kept else tracks[i] for i in range(len(scene.nodes))])
    anim.fit_frame_count()
    if any(k.offsets is not None for k in kept.values()):  # a kept map covers the source's frames
        anim.frame_count = max(anim.frame_count, *(k.frame_count for k in kept.values()))
    model = build_model(ModelDef(_node_defs(scene, labels), _parts(scene, words), anim,
                                 stream_name=_stream_name(scene)))
    _carry_maps(model, kept)
    return model


def _stream_name(scene: SceneModel) -> str:
    return scene.model_name.encode("cp1251", "replace")[:35].decode("cp1251")
