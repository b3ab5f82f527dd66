"""Import planning: everything the importer will create, decided in plain Python before any Blender data.

Like glTF-Blender-IO's virtual node tree: names, parents, rest matrices,
mesh arrays and F-curve values are computed here (no bpy), so a bad file
fails before the scene is touched and the mapping is testable anywhere.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...core.animation.tracks import track_starts
from ...core.appearance.mat0 import material_of
from ...core.appearance.resolve import Libraries, Look, find_libraries, resolve_looks, wear_file
from ...core.appearance.wear import Wear, parse_wear, wear_entry
from ...core.container.nres import Entry
from ...core.effects.attach import node_spheres
from ...core.errors import FormatError, SelectionError, has_errors
from ...core.files import Container, open_container
from ...core.msh import streams as S
from ...core.msh.model import Model
from ...core.msh.validate import validate_model
from ..com import conversion as C
from .animation import ChannelPlan, KeyCount, has_non_canonical_maps, plan_channels
from .clips import ControllerPlan, plan_controller
from .effect_plan import EffectPlan, plan_effects
from .hallway_plan import HallwayPlan, plan_hallway
from .material_keys import MaterialKeys, plan_belt_keys, plan_material_keys

BONE_NAME_BYTES = 63
BLENDER_LAST_FRAME = 1_048_574  # MAXFRAME: the scene range cannot end later


@dataclass
class ImportOptions:
    node_mode: str = "ARMATURE"
    animation: str = "FAITHFUL"
    slots: str = "CHOSEN"            # CHOSEN: the slot of ``stage`` and ``lod``; ALL: every slot
    stage: int = 0                   # damage stage: 0 intact
    lod: int = 0                     # 0..3 distance LOD, 4 first-person view
    entry_filter: str = ""           # patterns separated by ',' or ';'; empty: every model
    entry_indices: tuple[int, ...] | None = None  # archive entries by index (batch): names may repeat
    name_bytes: int = BONE_NAME_BYTES  # the longest name Blender keeps (bones: 63 bytes)
    game_folders: tuple[str, ...] = ()  # where to look for Material.lib, Textures.lib, LightMap.lib
    clips: str = "NONE"              # the controller's clips (io_msh.imp.clips): NONE, ACTIONS or NLA
    root_motion: str = "IN_PLACE"    # IN_PLACE: node 0's translation cleared; MOVING: moved by the stride
    frame_rate: float = 24.0         # Blender frames per second of the controller's time

    @property
    def slot_position(self) -> int:
        return S.slot_position(self.stage, self.lod)


@dataclass
class NodePlan:
    index: int
    name: str                  # the name Blender will get
    original_name: str | None  # set when ``name`` had to be shortened or de-duplicated
    parent: int | None
    rest_location: np.ndarray  # (3,) local, first key (the rest pose)
    rest_rotation: np.ndarray  # (4,) Blender quaternion, local, normalised
    rest_world: np.ndarray     # (4, 4) relative to the model root
    bone_length: float
    flags: int = 0             # Res1 +0 (io_msh.com.flags)


@dataclass
class MeshPlan:
    node: int
    slot_position: int         # a * 5 + b in the node's slot table
    slot_index: int            # index into Res2's slots
    name: str
    positions: np.ndarray      # (n, 3) node-local
    normals: np.ndarray        # (n, 3)
    triangles: np.ndarray      # (m, 3) indices into positions
    uvs: np.ndarray            # (3m, 2) per loop, Blender V
    lightmap_uvs: np.ndarray | None
    face_materials: np.ndarray  # (m,) index into ``materials``
    materials: list[int]       # batch material words used by this mesh (keys of ModelPlan.looks)
    face_flags: np.ndarray | None = None  # (m,) Res7 flag word of each triangle (io_msh.com.flags)


@dataclass
class ModelPlan:
    name: str
    source: bytes
    source_path: str
    options: ImportOptions
    frame_count: int
    nodes: list[NodePlan]
    meshes: list[MeshPlan]
    looks: dict[int, Look]     # by batch material word
    channels: list[ChannelPlan]
    warnings: list[str] = field(default_factory=list)
    wear: bytes | None = None  # the model's WEAR text as read (for a lossless export)
    entry_index: int | None = None  # the archive entry it came from (an export replaces that entry)
    controller: ControllerPlan | None = None  # clips and channel sliders (io_msh.imp.clips)
    material_keys: dict[int, MaterialKeys] = field(default_factory=dict)  # animated materials by batch word
    effects: list[EffectPlan] = field(default_factory=list)  # what the controller attaches (io_msh.imp.effects)
    hallway: HallwayPlan | None = None  # a building's path graph, mesh stream 17 (io_msh.imp.hallway)
    node_spheres: dict = field(default_factory=dict)  # node -> (centre, radius): where an explosion plays


def plan_file(path: str | Path, options: ImportOptions) -> list[ModelPlan]:
    """Plans for the models of a file (every model of an archive, filtered by ``entry_filter``).

    One bad model entry of an archive (or an unreadable directory record) does not keep the others from
    importing: it is named in a warning. Raises FormatError when the file, or every chosen model, is invalid,
    SelectionError when the chosen slot is missing, OSError when unreadable.
    """
    container = open_container(path, tolerant=True)
    if container.is_model:
        return [plan_model(container, None, options)]
    entries, aliases = _chosen(container, options, str(path))
    plans, failures = [], []
    for entry in entries:
        try:
            plans.append(plan_model(container, entry, options))
        except SelectionError:
            raise
        except FormatError as exc:  # findings named by the entry, for the file
            failures += [f if f.where else f.located(entry.name_str) for f in exc.findings if f.severity == "error"]
    if not plans:
        raise FormatError(failures, str(path))
    plans[0].warnings[:0] = [f"{f.format(str(path))} (this model is not imported)" for f in failures] + aliases
    return plans


def matching_models(models: list[str], patterns: str) -> list[str]:
    """The model names matching any wildcard pattern (separated by ',' or ';', case-insensitive); all if none."""
    wanted = [p.strip().lower() for p in patterns.replace(";", ",").split(",") if p.strip()]
    return [m for m in models if not wanted or any(fnmatch.fnmatchcase(m.lower(), p) for p in wanted)]


def _chosen(container: Container, options: ImportOptions, path: str) -> tuple[list[Entry], list[str]]:
    """The model entries to import, and a warning for each one whose bytes an earlier one already holds
    (entries may alias one payload: each payload is imported once)."""
    models = container.model_entries()
    if options.entry_indices is not None:
        entries = container.archive.entries
        chosen = [entries[i] for i in options.entry_indices if 0 <= i < len(entries) and entries[i].is_model]
        if len(chosen) != len(options.entry_indices):
            raise FormatError.single("entry", None, f"entries {list(options.entry_indices)} are not all models", path)
    else:
        names = set(matching_models([e.name_str for e in models], options.entry_filter))
        chosen = [e for e in models if e.name_str in names]
    if not chosen:
        what = f"no model matches {options.entry_filter!r}" if models else not_a_model(container)
        raise FormatError.single("entry", None, what, path)
    taken = set(map(id, chosen))
    unique, aliases = [], []
    for entry in chosen:
        if entry.alias_of is not None and id(entry.alias_of) in taken:  # Archive found the shared payload
            aliases.append(f"{path}: entry {entry.name_str!r} holds the same bytes as {entry.alias_of.name_str!r}: "
                           "imported once")
        else:
            unique.append(entry)
    return unique, aliases


def not_a_model(container: Container) -> str:
    """Why an archive without models imports nothing; a map's file (a Land.msh is an archive of terrain
    streams) names the map's importer."""
    if container.map_kind is not None:
        return ("the file is a map's (its terrain, not a model): import the map with File > Import > Parkan Map "
                "(Land.msh, data.tma)")
    return "the archive holds no model"


def plan_model(container: Container, entry: Entry | None, options: ImportOptions) -> ModelPlan:
    model = container.open_model() if entry is None else container.open_entry(entry)
    findings = validate_model(model)
    where = f"{container.path}:{entry.name_str}" if entry is not None else container.path
    if has_errors(findings):
        raise FormatError(findings, where)
    warnings = [f.format(where) for f in findings]
    if model.is_legacy:  # one retail model (MTCHECK.MSH): the root carries the bytes; an export copies them through
        return ModelPlan(model.name, model.to_bytes(), container.path, options, model.frame_count,
                         [], [], {}, [], warnings)
    nodes = plan_nodes(model, options)
    meshes, used_materials, mesh_warnings = _plan_meshes(model, nodes, options)
    mesh_warnings += _missing_slot(model, meshes, options, where)
    wear_bytes, wear, wear_warnings = _model_wear(container, model.name)
    libraries = Libraries(find_libraries(container.path, list(options.game_folders)))
    looks, look_warnings = resolve_looks(sorted(used_materials), wear, libraries)
    if used_materials and not libraries.paths:
        look_warnings.append("Material.lib, Textures.lib and LightMap.lib were not found next to the file, in its "
                             "parent folders or in the game folder: materials are placeholders")
    elif used_materials and wear is None and wear_bytes is None:
        look_warnings.append(_no_material_list(container, model.name))
    look_warnings += _untextured(looks, libraries)
    material_keys, key_warnings = plan_material_keys(looks, libraries, options.frame_rate)
    look_warnings += key_warnings
    warnings += [f"{where}: {w}" for w in dict.fromkeys(mesh_warnings + wear_warnings + look_warnings)]
    channels = []
    if options.animation != "NONE":
        try:  # counted before any is written
            channels = plan_channels(model, nodes, options.animation, options.node_mode, KeyCount(options.animation))
        except FormatError as exc:
            raise FormatError(exc.findings, where) from None
        if options.animation == "KEYS" and has_non_canonical_maps(model):
            warnings.append(f"{where}: the frame map is not canonical; KEYS shows the keys, "
                            "FAITHFUL shows what the game plays")
        if channels and model.frame_count - 1 > BLENDER_LAST_FRAME:
            warnings.append(f"{where}: frame count {model.frame_count} runs past Blender's last frame "
                            f"{BLENDER_LAST_FRAME}; the scene's frame range stops there")
    index = next((i for i, e in enumerate(container.archive.entries) if e is entry), None)
    controller, clip_warnings = plan_controller(container, entry, model, nodes, options)
    if controller is not None and controller.belts:
        belt_keys, belt_warnings = plan_belt_keys(controller.belts, meshes, looks, libraries)
        material_keys.update(belt_keys)  # a belt's materials play by its slider, not by the clock
        clip_warnings += belt_warnings
    warnings += [f"{where}: {w}" for w in clip_warnings]
    effects, effect_warnings = plan_effects(container, entry, model.node_count, tuple(options.game_folders))
    warnings += [f"{where}: {w}" for w in effect_warnings]
    hallway, hallway_warnings = plan_hallway(model, np.array([n.rest_world for n in nodes]).reshape(-1, 4, 4))
    warnings += [f"{where}: {w}" for w in hallway_warnings]
    return ModelPlan(model.name, model.to_bytes(), container.path, options, model.frame_count,
                     nodes, meshes, looks, channels, warnings, wear_bytes, index, controller, material_keys,
                     effects=effects, hallway=hallway, node_spheres=node_spheres(model))


def _no_material_list(container: Container, model_name: str) -> str:
    """Why the materials are placeholders although the libraries were found, and what to do."""
    if container.is_model:
        stem = Path(container.path).stem
        return (f"no material list {stem}.wea was found beside the model, so its batches cannot be matched to "
                f"Material.lib: materials are placeholders. Put the model's {stem}.wea (it is in the game's "
                "archive beside the model) next to the file, or import the .rlb archive that holds both")
    return (f"the archive holds no material list (WEAR entry) for {model_name!r}, so its batches cannot be matched "
            "to Material.lib: materials are placeholders")


def _untextured(looks: dict[int, Look], libraries: Libraries) -> list[str]:
    """A warning when materials name textures but Textures.lib was not found (Material.lib was)."""
    if "textures" in libraries.paths or libraries.archive("materials") is None:
        return []
    named = set()
    for look in looks.values():
        entry = libraries.find("materials", look.material_entry) if look.material_entry else None
        if entry is None:
            continue
        try:
            texture = material_of(entry, look.material_entry).texture_name(0)
        except FormatError:
            continue
        if texture:
            named.add(look.label)
    if not named:
        return []
    return [f"Textures.lib was not found next to the file, in its parent folders or in the game folder: "
            f"{len(named)} material(s) that name a texture ({', '.join(sorted(named)[:5])}"
            f"{', ...' if len(named) > 5 else ''}) are shown untextured; set the Game Folder"]


def _missing_slot(model: Model, meshes: list[MeshPlan], options: ImportOptions, where: str) -> list[str]:
    """The chosen damage stage and LOD must have geometry when the model has any: refuse (CHOSEN) or warn
    (ALL), naming the stages and LODs the model has."""
    if any(m.slot_position == options.slot_position for m in meshes):
        return []
    present = slots_with_geometry(model)
    if not present:
        return []
    what = (f"the model has no geometry for {S.slot_label(options.slot_position)} (Damage Stage {options.stage}, "
            f"LOD {_lod_name(options.lod)}); it has {describe_slots(present)}")
    if options.slots == "CHOSEN":
        raise SelectionError.single("slots", None, f"{what}: choose one of these", where)
    return [f"{what}: nothing is visible until you show another slot's collection"]


def _lod_name(lod: int) -> str:
    return "First-Person" if lod == S.FIRST_PERSON else str(lod)


def slots_with_geometry(model: Model) -> list[int]:
    """The slot positions (stage * 5 + lod) where some node has at least one triangle."""
    slots, batches = model.slots, model.batches
    table = np.asarray(model.nodes["slots"]).reshape(len(model.nodes), -1)
    present = []
    for position in range(min(table.shape[1], S.STAGES * S.LODS)):
        for slot_index in table[:, position]:
            if slot_index == S.NO_INDEX or slot_index >= len(slots):
                continue
            slot = slots[int(slot_index)]
            first, count = int(slot["batch_start"]), int(slot["batch_count"])
            if any(int(b["index_count"]) >= 3 for b in batches[first:first + count]):
                present.append(position)
                break
    return present


def describe_slots(positions: list[int]) -> str:
    """'Damage Stage 0 (LOD 0, 1, First-Person), Damage Stage 1 (LOD 0)'."""
    by_stage: dict[int, list[str]] = {}
    for position in positions:
        stage, lod = divmod(position, S.LODS)
        by_stage.setdefault(stage, []).append(_lod_name(lod))
    return ", ".join(f"Damage Stage {stage} (LOD {', '.join(lods)})" for stage, lods in sorted(by_stage.items()))


def _model_wear(container: Container, model_name: str) -> tuple[bytes | None, Wear | None, list[str]]:
    """The model's WEAR text: its archive's entry, or for a model file a ``STEM.wea`` file beside it."""
    if container.is_model:
        sibling = wear_file(container.path)
        data = sibling.read_bytes() if sibling is not None and sibling.is_file() else None
    else:
        entry = wear_entry(container.archive, model_name)
        data = bytes(entry.data) if entry is not None else None
    if data is None:
        return None, None, []
    try:
        return data, parse_wear(data), []
    except FormatError as exc:
        return data, None, [f"the material list is unreadable ({exc.findings[0].message}): materials are "
                            "placeholders"]


def plan_geometry(model: Model, options: ImportOptions) -> list[MeshPlan]:
    """Only the meshes an import makes of a valid model (what the exporter compares against)."""
    return _plan_meshes(model, plan_nodes(model, options), options)[0]


# --------------------------------------------------------------------- nodes
def unique_names(wanted: list[str], limit: int) -> list[str]:
    """Names shortened to ``limit`` UTF-8 bytes and de-duplicated with ``.NNN`` suffixes."""
    taken: set[str] = set()
    out = []
    for name in wanted:
        base = _shorten(name, limit)
        candidate, n = base, 0
        while candidate in taken:
            n += 1
            suffix = f".{n:03d}"
            candidate = _shorten(name, limit - len(suffix)) + suffix
        taken.add(candidate)
        out.append(candidate)
    return out


def _shorten(name: str, limit: int) -> str:
    raw = name.encode("utf-8")[:limit]
    return raw.decode("utf-8", "ignore")


def plan_nodes(model: Model, options: ImportOptions) -> list[NodePlan]:
    nodes = model.nodes
    keys = model.keys
    wanted = [model.node_name(i) or f"node_{i}" for i in range(len(nodes))]
    final = unique_names(wanted, options.name_bytes)
    starts = track_starts(model)
    rest_rot = C.normalized(C.blender_quaternions(S.decode_rotations(keys["rot"][starts])))
    rest_loc = keys["pos"][starts].astype(np.float64)
    local = C.matrices(rest_rot, rest_loc)
    parents = [None if p == S.NO_INDEX else int(p) for p in nodes["parent"]]
    world = np.array(local)
    for i, p in enumerate(parents):  # validated: parents precede or the model has no cycle
        if p is not None:
            world[i] = world[p] @ local[i]
    size = _model_size(model)
    plans = []
    for i in range(len(nodes)):
        children = [world[c][:3, 3] for c, p in enumerate(parents) if p == i]
        distances = [np.linalg.norm(c - world[i][:3, 3]) for c in children]
        length = max(min([d for d in distances if d > 1e-4], default=size * 0.1), size * 0.02, 1e-3)
        plans.append(NodePlan(i, final[i], wanted[i] if final[i] != wanted[i] else None, parents[i],
                              rest_loc[i], rest_rot[i], world[i], float(length),
                              int(nodes[i]["flags"]) if "flags" in (nodes.dtype.names or ()) else 0))
    return plans


def _model_size(model: Model) -> float:
    positions = model.positions
    if not len(positions):
        return 1.0
    return float(max(np.ptp(positions, axis=0).max(), 1e-3))


# --------------------------------------------------------------------- meshes
def slot_face_flags(model: Model, slot: np.void, count: int) -> np.ndarray:
    """The Res7 flag word of each of a slot's ``count`` triangles in batch order: triangle k is record
    tri_start + k (as core.authoring.build writes them); triangles past the slot's range get 0."""
    records = model.triangles if model.stream(7) is not None else np.zeros(0, S.TRIANGLE)
    start = int(slot["tri_start"])
    known = records[start:start + min(int(slot["tri_count"]), count)]["flags"].astype(np.int64)
    return np.concatenate([known, np.zeros(count - len(known), np.int64)])


def _plan_meshes(model: Model, nodes: list[NodePlan], options: ImportOptions):
    slots, batches, indices = model.slots, model.batches, model.indices
    positions = model.positions
    normals = S.decode_normals(model.normals_raw) if len(model.normals_raw) >= len(positions) else None
    uvs = S.decode_uvs(model.uvs_raw) if len(model.uvs_raw) >= len(positions) else None
    lightmap = model.lightmap_uvs_raw
    lightmap = lightmap.astype(np.float64) / 1024.0 if model.stream(18) is not None and \
        len(lightmap) >= len(positions) else None
    positions_wanted = range(15) if options.slots == "ALL" else (options.slot_position,)
    meshes, used, warnings = [], set(), []
    for node in nodes:
        for position in positions_wanted:
            slot_index = int(model.nodes[node.index]["slots"][position])
            if slot_index == S.NO_INDEX:
                continue
            slot = slots[slot_index]
            faces, materials = [], []
            for b in range(int(slot["batch_start"]), int(slot["batch_start"]) + int(slot["batch_count"])):
                batch = batches[b]
                start, count = int(batch["index_start"]), int(batch["index_count"])
                if count % 3:
                    warnings.append(f"Res13[{b}]: {count} indices is not a whole number of triangles; "
                                    f"the last {count % 3} are ignored")
                tri = indices[start:start + count - count % 3].astype(np.int64).reshape(-1, 3)
                tri += int(batch["base_vertex"])
                faces.append(tri)
                materials.append(np.full(len(tri), int(batch["material"])))
            if not faces or not sum(len(f) for f in faces):
                continue
            tri = np.concatenate(faces)
            face_material = np.concatenate(materials)
            used_vertices, local_tri = np.unique(tri, return_inverse=True)
            local_tri = local_tri.reshape(-1, 3)
            mesh_materials = sorted(set(face_material.tolist()))
            used.update(mesh_materials)
            loops = local_tri.reshape(-1)
            uv = C.blender_uvs(uvs[used_vertices][loops]) if uvs is not None else np.zeros((len(loops), 2))
            name = node.name if position == options.slot_position else f"{node.name} {S.slot_label(position)}"
            meshes.append(MeshPlan(
                node.index, position, slot_index, name, positions[used_vertices].astype(np.float64),
                normals[used_vertices] if normals is not None else np.zeros((len(used_vertices), 3)),
                local_tri, uv,
                C.blender_uvs(lightmap[used_vertices][loops]) if lightmap is not None else None,
                np.searchsorted(mesh_materials, face_material), mesh_materials,
                slot_face_flags(model, slot, len(local_tri))))
    return meshes, used, warnings
