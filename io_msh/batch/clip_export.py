"""``batch convert --clips``: one model, or one unit (a ``.dat``: every part with clips, the rest
following, io_msh.exp.engine_units), imported with its clips, laid out for other engines
(io_msh.exp.engine_clips), written as .glb or .fbx."""

from __future__ import annotations

import dataclasses
import os
from contextlib import nullcontext

import bpy

from ..com import props as P
from ..exp.engine_clips import clip_roots, engine_tracks, fbx_options, gltf_options
from ..exp.engine_materials import animated_materials, base_colour_held

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
    plans = worker.load(item, clips="ACTIONS", root_motion="IN_PLACE",
                         frame_rate=scene.render.fps / scene.render.fps_base)
    roots = clip_roots(bpy.data.objects)
    if not roots and plans and isinstance(plans[0], UnitPlan):
        worker.warnings.append(UNIT_WITHOUT_CLIPS)
        name_parts(bpy.data.objects)
        return False
    moving = {}
    if args.root_motion != "IN_PLACE":
        try:
            moving = _moving_controllers(item.source, plans, roots)
        except FormatError as exc:
            raise ValueError(exc.describe(item.source)) from None
    glb = args.format == "glb"
    base_colour = getattr(args, "base_colour_animation", False)
    animated = [] if glb else animated_materials()
    if animated:
        worker.warnings.append(f"FBX carries no material animation: {len(animated)} animated material(s) not "
                               f"written ({', '.join(animated)})")
    with engine_tracks(roots, moving, args.root_motion, args.material_animation and glb, bake_units=glb), \
            worker.writing(os.path.basename(path), item.output):
        if glb:
            with nullcontext() if base_colour else base_colour_held():
                bpy.ops.export_scene.gltf(**gltf_options(path, args.material_animation))
        else:
            from ..imp.materials import textures_for_fbx

            with textures_for_fbx(bpy.data.materials):  # FBX follows no Mix node: textures go straight in
                bpy.ops.export_scene.fbx(**fbx_options(path))
    return True


def name_parts(objects) -> None:
    """Each unit part other than the chassis, its mount and its timeline action named by its model and its
    component (``e_gun_ll_01.msh 4``, ``e_gun_ll_01.msh 4 mount``, ``e_gun_ll_01.msh 4|Action``), as the clip
    animations of a unit's parts are (io_msh.exp.engine_units.part_prefix): the glTF animations take these
    names, so that Blender's numbering of parts sharing a model (``e_gun_ll_01.msh.001``, ``|Action.001``) stays
    out of them. Only for the batch's own scene, which is not kept."""

    renamed = set()  # an action two parts play (none does as imported) takes the first one's name
    for root in [o for o in objects if P.MODEL in o and P.shown_int(o, P.UNIT_COMPONENT, 0) > 0]:
        name = f"{root[P.MODEL]} {P.shown_int(root, P.UNIT_COMPONENT)}"
        anim = root.animation_data
        if anim is not None and anim.action is not None and anim.action.session_uid not in renamed:
            renamed.add(anim.action.session_uid)
            anim.action.name = f"{name}|Action"
        mount = root.parent
        if mount is not None and P.UNIT_COMPONENT in mount and P.MODEL not in mount:
            mount.name = f"{name} mount"
        root.name = name


def _moving_controllers(source: str, plans: list, roots: list) -> dict:
    """By root name, the controller planned again with MOVING root motion and the import options (of a model,
    or of each unit part with a controller). No controller: the import's warning says so; the model's timeline
    is written."""
    from ..imp.plan import plan_file
    from ..imp.unit_plan import UnitPlan, plan_unit

    moving = {}
    if plans and isinstance(plans[0], UnitPlan):
        parts = plans[0].parts
        first = next((p.model for p in parts if p.model is not None and p.model.controller is not None), None)
        if first is None:
            return moving
        again = plan_unit(source, dataclasses.replace(first.options, root_motion="MOVING")).parts
        for root in roots:
            component = P.shown_int(root, P.UNIT_COMPONENT, -1)
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
