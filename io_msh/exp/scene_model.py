"""The scene read back for export, as plain data (no Blender): its nodes and their poses, its meshes and
materials; what io_msh.exp.plan decides from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class SceneNode:
    name: str
    parent: int | None          # position in SceneModel.nodes
    index: int | None           # msh_node_index when the node came from an import
    handle: str                 # bone name, or object name
    renamed: bool = False       # an imported node the user renamed: ``name`` is the new one
    flags: int | None = None    # Res1 +0 from its properties (io_msh.exp.flags); None: a node without them


@dataclass
class SceneImage:
    name: str
    texture: str | None          # msh_texture: 'library|entry' when it came from a game library
    pixels: np.ndarray | None    # RGBA8, row 0 at the top (read only for images not from a library)


@dataclass
class SceneMaterial:
    """A material as the export needs it: its import properties, or what a new MAT0 would hold."""

    name: str                    # the Blender name ('' for faces without a material)
    wear_index: int | None = None  # msh_material: the WEAR row it was imported from
    wear_name: str | None = None   # msh_wear_name: that row's name
    lightmap: int | None = None    # msh_lightmap
    diffuse: tuple[float, float, float, float] = (0.8, 0.8, 0.8, 1.0)
    blend: str = "OPAQUE"
    image: SceneImage | None = None
    animation_edited: bool = False  # its MAT0 track's F-curves differ from the import's (not written back)
    name_bytes: int = 63           # the longest name Blender keeps (io_msh.com.compat.ID_NAME_BYTES)


@dataclass
class SceneMesh:
    """One mesh object: as stored (for the lossless check) and evaluated, split per MSH vertex."""

    name: str
    node: int                   # position in SceneModel.nodes
    slot: int
    stored_positions: np.ndarray    # the mesh's own vertex coordinates (object space)
    stored_triangles: np.ndarray | None  # (m, 3) when every polygon is a triangle, else None
    stored_uvs: np.ndarray | None   # per loop, as stored
    positions: np.ndarray       # (n, 3) node-local, evaluated and triangulated
    normals: np.ndarray         # (n, 3)
    uvs: np.ndarray             # (n, 2) Blender convention
    triangles: np.ndarray       # (m, 3)
    face_materials: np.ndarray  # (m,) material keys (see SceneModel.materials)
    # The object's evaluated placement relative to its node (identity as imported), and whether modifiers
    # or shape keys make the evaluated mesh differ from the stored one.
    offset: np.ndarray = field(default_factory=lambda: np.eye(4))
    modified: bool = False
    # The largest coordinate the placement was computed from: float32 matrices round relative to it.
    placement_scale: float = 1.0
    face_flags: np.ndarray | None = None  # (m,) Res7 flag word of each triangle (io_msh.exp.flags)


@dataclass
class SceneModel:
    root_name: str
    model_name: str
    source: bytes | None
    node_mode: str
    frames: np.ndarray          # integer Blender frames sampled
    nodes: list[SceneNode]
    local_matrices: np.ndarray  # (nodes, frames, 4, 4): each node relative to its parent (or the root)
    meshes: list[SceneMesh]
    materials: list[SceneMaterial] = field(default_factory=list)  # by the key in SceneMesh.face_materials
    keyframes: dict[int, np.ndarray] = field(default_factory=dict)  # node -> Blender keyframe times
    slots_imported: str = "ALL"  # which slots the import made meshes for (P.SLOTS)
    slot_position: int = 0       # the slot shown when one was chosen (P.SLOT_POSITION)
    wear: bytes | None = None    # the WEAR text the import read (P.WEAR)
    # The nodes show the source's runtime pose at every frame (io_msh.exp.unedited); then ``frames`` and
    # ``local_matrices`` hold the first frame only.
    as_imported: bool = False
    animation_mode: str | None = None  # the import's Animation option (P.ANIMATION_MODE)
    warnings: list[str] = field(default_factory=list)
    # Positions in ``nodes`` of the nodes whose F-curves are exactly the ones the import wrote, when the
    # curves alone give the poses shown: their tracks are kept when their first frame shows the runtime's.
    curves_as_imported: set[int] = field(default_factory=set)
    # When the F-curves alone give the poses (io_msh.exp.poses.curve_poses): ``poses(frames, nodes)`` gives the
    # local matrices of any nodes at any frames, and ``local_matrices`` hold the first frame only, so that the
    # export evaluates only the nodes and frames it needs, a bounded block at a time (io_msh.exp.frames).
    poses: Callable[..., np.ndarray] | None = None
    # Whether something the user sets may scale a node (a scale channel or key other than 1, an Empty's parent
    # inverse that is not a rotation, or anything but F-curves moving the nodes); when not, the matrices'
    # departure from rotations is float32 rounding and no node counts as scaled (io_msh.exp.readback.scale_set).
    scale_set: bool = True
    hallway: object | None = None  # a building's hall way as shown (io_msh.exp.hallway_edit.SceneHallway)
