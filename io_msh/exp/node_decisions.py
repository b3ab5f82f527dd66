"""The export's second stage in plain Python: from the scene read (io_msh.exp.scene_read), what the export does
with each node, and why (docs/export-pipeline.md).

- A model that came from an import keeps its structure when the scene has the imported nodes under their
  imported parents: a node whose pose at every exported frame equals the runtime's sample of its original
  track is UNTOUCHED and keeps that track (keys, raw rotations, map words); the others are EDITED and get new
  keys (io_msh.exp.track_authoring).
- A new model, or one whose node structure changed, is built from the scene: its nodes are NEW, except the
  imported nodes of a changed structure nothing moved, which keep their source tracks (``KeptTrack``).
- The materials' WEAR list and batch words (io_msh.exp.materials), and the checks that refuse what cannot be
  written, before any key is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.animation.tracks import Track, canonical_words, read_animation, track_starts
from ...core.authoring.splice import EXTRA_VERTEX_STREAMS
from ...core.errors import FormatError
from ...core.msh import streams as S
from ...core.msh.model import Model
from .frames import Held, Poses, blocks
from .materials import MaterialExport, plan_materials
from .node_names import named_by_label, stored_name
from .options import ExportOptions
from .scene_model import SceneMesh, SceneModel
from .scene_read import SceneRead
from .unedited import same_as_imported, same_in_blocks

UNTOUCHED, EDITED, NEW = "UNTOUCHED", "EDITED", "NEW"
AS_IMPORTED = "the scene's animation is the import's"
CURVES_AS_IMPORTED = "its curves are the import's and so is its first frame"
SAME_AS_RUNTIME = "its pose at every exported frame is the runtime's sample of its track"
POSES_DIFFER = "its pose differs from the runtime's sample of its track"
KEPT_IN_REBUILT = "an imported node nothing moved in a rebuilt model: its track is kept"
NEW_MODEL = "the model is new"
REBUILT = "the node structure changed: the model is rebuilt from the scene"


@dataclass
class NodeDecision:
    kind: str    # UNTOUCHED (its source track is kept), EDITED (new keys), NEW (keys in a model built anew)
    reason: str


@dataclass
class Decisions:
    """What the export does with the scene: per node (by position in ``scene.nodes``), and for the model."""

    nodes: list[NodeDecision]
    built: bool                   # built from the scene (a new model, or a changed node structure)
    materials: MaterialExport
    warnings: list[str]
    labels: list[bytes | None]    # built: each node's Res10 label
    kept: dict[int, KeptTrack]    # built: the imported tracks kept
    poses: Poses | Held           # what the new keys are read from (held where the comparison held them)
    authored: list[int] = field(init=False)  # the nodes that get new tracks (EDITED or NEW), in order

    def __post_init__(self) -> None:
        self.authored = [i for i, node in enumerate(self.nodes) if node.kind != UNTOUCHED]


def decide(read: SceneRead, options: ExportOptions) -> Decisions:
    """Raises FormatError naming what cannot be written."""
    scene, source = read.scene, read.source
    materials = plan_materials(scene.materials, scene.wear, options.materials)
    warnings: list[str] = [*scene.warnings, *read.scale_warnings, *materials.warnings]
    _check_slots(scene.meshes)
    rebuilt = source is not None and not _same_structure(scene, source)
    if rebuilt:
        _refuse_losing_slots(scene, source)
        warnings.append("the node structure differs from the imported model: the model is rebuilt from the "
                        "scene, and the original's unknown streams and fields are not carried over")
    if source is None or rebuilt:
        labels = _carried_labels(scene, source) if rebuilt else [None] * len(scene.nodes)
        kept = _kept_tracks(scene, source, read.poses, read.times, options) if rebuilt else {}
        why = NodeDecision(NEW, REBUILT if rebuilt else NEW_MODEL)
        nodes = [NodeDecision(UNTOUCHED, KEPT_IN_REBUILT) if i in kept else why for i in range(len(scene.nodes))]
        return Decisions(nodes, True, materials, warnings, labels, kept, read.poses)
    nodes, poses = _node_tracks(read, source, options)
    return Decisions(nodes, False, materials, warnings, [], {}, poses)


def _node_tracks(read: SceneRead, source: Model, options: ExportOptions) -> tuple[list[NodeDecision], Poses | Held]:
    """Which nodes of the imported structure Blender changed. A node whose curves are the import's costs one
    frame; the others are compared with the runtime a block of frames at a time (held, for their new keys,
    where they fit in one block)."""
    scene, poses, times = read.scene, read.poses, read.times
    if scene.as_imported:
        return [NodeDecision(UNTOUCHED, AS_IMPORTED) for _node in scene.nodes], poses
    same_position, same_rotation = _same_tolerances(scene, options)
    # A node whose curves are the import's and whose first frame is the import's keeps its track, even
    # where its curves do not reproduce the runtime at every frame (KEYS of a non-canonical map).
    same = np.zeros(len(scene.nodes), bool)
    if scene.curves_as_imported:
        same[sorted(scene.curves_as_imported)] = True
        same &= same_as_imported(source, *poses.at(None, slice(0, 1)), times[:1], scene.animation_mode,
                                 same_position, same_rotation)
    by_curves = same.copy()
    rest = np.flatnonzero(~same)
    split = blocks(len(rest), len(times))
    if len(split) == 1:
        poses = Held(poses, rest)
    same[rest] = same_in_blocks(source, poses.at, rest, times, split, same_position, same_rotation)
    return [NodeDecision(UNTOUCHED, CURVES_AS_IMPORTED) if by_curves[i] else NodeDecision(UNTOUCHED, SAME_AS_RUNTIME)
            if same[i] else NodeDecision(EDITED, POSES_DIFFER) for i in range(len(scene.nodes))], poses


def _same_tolerances(scene: SceneModel, options: ExportOptions) -> tuple[float, float]:
    """Below these a node's pose is its source track's: the options', or for an import For Editing (its curves
    are within the key tolerance of the runtime) at least the key tolerance."""
    same_position, same_rotation = options.same_position, options.same_rotation
    if scene.animation_mode == "EDITING":
        same_position = max(same_position, options.tolerance.position)
        same_rotation = max(same_rotation, np.radians(options.tolerance.rotation_deg))
    return same_position, same_rotation


def _same_structure(scene: SceneModel, source: Model) -> bool:
    if [n.index for n in scene.nodes] != list(range(source.node_count)):
        return False
    parents = [None if p == S.NO_INDEX else int(p) for p in source.nodes["parent"]]
    return [n.parent for n in scene.nodes] == parents


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


@dataclass
class KeptTrack:
    """An imported node's source track kept in a rebuilt model (``_kept_tracks``)."""

    track: Track
    offsets: np.ndarray | None  # a non-canonical frame map relative to the track's first key; None: canonical
    frame_count: int            # the source's (a kept map covers its frames)


def _kept_tracks(scene: SceneModel, source: Model, poses: Poses, times, options: ExportOptions
                 ) -> dict[int, KeptTrack]:
    """In a model rebuilt for a changed node structure, the source tracks of the imported nodes nothing moved
    (by position in ``scene.nodes``), as the imported structure keeps them (``decide``): curves the
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
    same_position, same_rotation = _same_tolerances(scene, options)
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


def _carried_labels(scene: SceneModel, source: Model) -> list[bytes | None]:
    """The Res10 labels of a model rebuilt from the scene: each imported node keeps its source label (a
    socket's label says which parts it takes: docs/formats/animation.md, Node names), a renamed node whose name
    was its label takes the new name as rename_nodes does (io_msh.exp.node_names), a new node has none. A source
    Res10 that does not parse gives none (validate reports it on the source)."""
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
        elif node.renamed and named_by_label(names, index):
            carried.append(stored_name(node, None))
        else:
            carried.append(labels[index] if index < len(labels) else None)
    return carried
