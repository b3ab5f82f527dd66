"""``batch convert --clips`` (issue 30 item 3): one model imported with its clips, laid out for other engines
(io_msh.exp.engine_clips), written as .glb or .fbx."""

from __future__ import annotations

import dataclasses
import os

import bpy

from ..com import props as P
from ..exp.engine_clips import clip_roots, engine_tracks, fbx_options, gltf_options

UNIT_CLIPS_WARNING = ("--clips: a unit (.dat) is written with its timeline only: the batch does not export a unit's "
                      "clips yet")


def convert_with_clips(worker, item, path: str) -> None:
    """The item's model imported with Clips (as armature, at the scene's frame rate, so that a glTF second is a
    game second), with its clips planned again with MOVING root motion unless only IN_PLACE is asked for, then
    exported to ``path`` (the stage folder's .glb or .fbx)."""
    from ...core.errors import FormatError
    from ..imp.plan import plan_file

    args = worker.args
    scene = bpy.context.scene
    plans = worker._load(item, clips="ACTIONS", root_motion="IN_PLACE",
                         frame_rate=scene.render.fps / scene.render.fps_base)
    roots = clip_roots(bpy.data.objects)
    moving = {}
    for plan in plans:
        root = next((r for r in roots if r[P.MODEL] == plan.name and r.name not in moving), None)
        if root is None or plan.controller is None or args.root_motion == "IN_PLACE":
            continue  # no controller: the import's warning says so; the model's timeline is written
        try:
            again = plan_file(item.source, dataclasses.replace(plan.options, root_motion="MOVING"))
        except FormatError as exc:
            raise ValueError(exc.describe(item.source)) from None
        controller = next((p.controller for p in again if p.name == plan.name), None)
        if controller is not None:
            moving[root.name] = (controller, plan.options)
    with engine_tracks(roots, moving, args.root_motion, args.material_animation), \
            worker._writing(os.path.basename(path), item.output):
        if args.format == "glb":
            bpy.ops.export_scene.gltf(**gltf_options(path, args.material_animation))
        else:
            from ..imp.materials import textures_for_fbx

            with textures_for_fbx(bpy.data.materials):  # FBX follows no Mix node: textures go straight in
                bpy.ops.export_scene.fbx(**fbx_options(path))
