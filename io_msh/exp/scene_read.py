"""The export's first stage in plain Python: the scene as read back (io_msh.exp.readback, a ``SceneModel``) made
ready for the decisions: a scaled node's scale baked into its parts, the poses at the exported frames
(evaluated a bounded block at a time, io_msh.exp.frames), their times, and the model the scene was imported
from, parsed once (docs/export-pipeline.md)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.errors import FormatError
from ...core.msh.model import Model
from ..com import conversion as C
from .frames import Poses, hold_every_frame
from .options import KEY_MODES, ExportOptions
from .scene_model import SceneModel


@dataclass
class SceneRead:
    """What every later stage reads: the scene, its poses and times, and the source model (None: a new one)."""

    scene: SceneModel
    poses: Poses
    times: np.ndarray             # float32 MSH times of the exported frames
    source: Model | None
    scale_warnings: list[str]


def read_for_export(scene: SceneModel, options: ExportOptions) -> SceneRead:
    """The scene made ready for the decisions; changes ``scene`` in place (a baked scale). Raises FormatError
    naming what cannot be written."""
    if options.keys not in KEY_MODES:
        raise FormatError.single("scene", None, f"unknown key mode {options.keys!r}")
    hold_every_frame(scene)
    scale_warnings = bake_node_scale(scene)
    poses = Poses(scene)
    times = (scene.frames - scene.frames[0]).astype(np.float32)
    return SceneRead(scene, poses, times, _source_model(scene), scale_warnings)


def _source_model(scene: SceneModel) -> Model | None:
    if scene.source is None:
        return None
    return Model.parse(scene.source, scene.model_name)


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
