"""``batch convert --clips`` (issue 30 item 3): one model, or one unit (a ``.dat``: every part with clips, the rest
following, io_msh.exp.engine_units), imported with its clips, laid out for other engines
(io_msh.exp.engine_clips), written as .glb or .fbx."""

from __future__ import annotations

import dataclasses
import os

import bpy

from ..com import props as P
from ..exp.engine_clips import clip_roots, engine_tracks, fbx_options, gltf_options

UNIT_WITHOUT_CLIPS = "--clips: no part of the unit has clips (no controller with states): written with its timeline"


def convert_with_clips(worker, item, path: str) -> bool:
    """The item's model (or unit) imported with Clips (as armature, at the scene's frame rate, so that a glTF
    second is a game second), with its clips planned again with MOVING root motion unless only IN_PLACE is
    asked for, then exported to ``path`` (the stage folder's .glb or .fbx). False (nothing written, a warning)
    for a unit none of whose parts has clips: the caller writes it as without --clips."""
    from ...core.errors import FormatError
    from ..imp.unit_plan import UnitPlan

    args = worker.args
    scene = bpy.context.scene
    plans = worker._load(item, clips="ACTIONS", root_motion="IN_PLACE",
                         frame_rate=scene.render.fps / scene.render.fps_base)
    roots = clip_roots(bpy.data.objects)
    if not roots and plans and isinstance(plans[0], UnitPlan):
        worker.warnings.append(UNIT_WITHOUT_CLIPS)
        return False
    moving = {}
    if args.root_motion != "IN_PLACE":
        try:
            moving = _moving_controllers(item.source, plans, roots)
        except FormatError as exc:
            raise ValueError(exc.describe(item.source)) from None
    glb = args.format == "glb"
    with engine_tracks(roots, moving, args.root_motion, args.material_animation, bake_units=glb), \
            worker._writing(os.path.basename(path), item.output):
        if glb:
            bpy.ops.export_scene.gltf(**gltf_options(path, args.material_animation))
        else:
            from ..imp.materials import textures_for_fbx

            with textures_for_fbx(bpy.data.materials):  # FBX follows no Mix node: textures go straight in
                bpy.ops.export_scene.fbx(**fbx_options(path))
    return True


def _moving_controllers(source: str, plans: list, roots: list) -> dict:
    """By root name, the controller planned again with MOVING root motion and the import options (of a model,
    or of each unit part with a controller). No controller: the import's warning says so; the model's timeline
    is written."""
    from ..imp.plan import plan_file
    from ..imp.unit import COMPONENT
    from ..imp.unit_plan import UnitPlan, plan_unit

    moving = {}
    if plans and isinstance(plans[0], UnitPlan):
        parts = plans[0].parts
        first = next((p.model for p in parts if p.model is not None and p.model.controller is not None), None)
        if first is None:
            return moving
        again = plan_unit(source, dataclasses.replace(first.options, root_motion="MOVING")).parts
        for root in roots:
            component = P.shown_int(root, COMPONENT, -1)
            if 0 <= component < len(parts) and parts[component].model is not None \
                    and again[component].model is not None and again[component].model.controller is not None:
                moving[root.name] = (again[component].model.controller, parts[component].model.options)
        return moving
    again = None
    for plan in plans:
        root = next((r for r in roots if r[P.MODEL] == plan.name and r.name not in moving), None)
        if root is None or plan.controller is None:
            continue
        if again is None:
            again = plan_file(source, dataclasses.replace(plan.options, root_motion="MOVING"))
        controller = next((p.controller for p in again if p.name == plan.name), None)
        if controller is not None:
            moving[root.name] = (controller, plan.options)
    return moving
