"""Clips for other engines of a unit imported with Clips: what io_msh.exp.engine_clips lays out for the
models with clips, extended to the rest of the unit for the glTF exporter.

Blender's glTF exporter (NLA Tracks mode) samples one object at a time, only that object's track of the
animation unmuted: a mount Empty following its socket through a Child Of constraint, or a part playing its
timeline, would be sampled with the chassis anywhere but in the clip. So every animation is played here as
*Show Unit Clip* shows it (io_msh.imp.unit_clips) and baked, one key per frame, onto what follows:

- each mount Empty gets, per animation, an action of its world matrix (the Child Of constraint muted
  meanwhile: the keys hold where the socket put it), and as its own pose its world with the unit at rest
  (no clip playing, every part at its first key), where glTF's static bones put its socket;
- each part without clips (a turret or gun with no controller) plays its own timeline over the animation's
  frames (what the scene shows while the chassis plays a clip; docs/formats/units.md), baked as an
  action of its bones;
- a part with clips that lacks the animation sits at its rest pose (the exporter resets every bone), as a
  model's node a track does not key.

The baked actions go on NLA tracks of the animation's name, which the exporter merges into one glTF animation.
The FBX exporter bakes the whole scene for each NLA strip itself (constraints followed), one take per strip, so
baked strips would be takes of their own: it gets none (a part without clips holds the pose it shows).
"""

from __future__ import annotations

import bpy
import numpy as np
from mathutils import Matrix

from ..com import compat
from ..com import props as P
from ..com.curves import pose_bone_path
from ..imp.build import write_keys
from ..imp.unit_clips import unit_parts


def part_prefix(root) -> str:
    """What a unit part's animation names start with: nothing for the unit's root part (component 0, the
    chassis) or a model outside a unit, else ``<model> <component> `` (``e_tur_mt_01.msh 5 walk 1``: the
    component tells apart parts sharing one model, and no clip, channel or material name starts so)."""
    if P.UNIT_COMPONENT not in root or P.shown_int(root, P.UNIT_COMPONENT) == 0:
        return ""
    return f"{root[P.MODEL]} {P.shown_int(root, P.UNIT_COMPONENT)} "


def unit_tracks(laid_out: dict[str, list[str]], track, unassign, undo) -> None:
    """For every unit holding a model laid out (``laid_out``: the animation names on each root, by root name),
    each animation baked onto the unit's mount Empties and its parts without clips as NLA tracks of its name.
    ``track``, ``unassign`` and ``undo`` are engine_clips' (everything is put back by ``undo``)."""
    scene = bpy.context.scene
    frame = scene.frame_current, scene.frame_subframe
    baked = False
    for unit in [c for c in bpy.data.collections if P.UNIT in c]:
        parts = unit_parts(unit)
        shown = [p for p in parts if p.name in laid_out]
        if shown:
            _bake_unit(unit, parts, shown, laid_out, track, unassign, undo)
            baked = True
    if baked:
        scene.frame_set(frame[0], subframe=frame[1])


def _bake_unit(unit, parts, shown, laid_out, track, unassign, undo) -> None:
    scene = bpy.context.scene
    mounts = [o for o in unit.all_objects if o.type == "EMPTY" and P.UNIT_MOUNT in o.constraints]
    # the parts without clips that play something (a static part shows its rest: no track, as glTF's bones)
    followers = [p for p in parts if p.name not in laid_out and p.type == "ARMATURE"
                 and p.animation_data is not None and p.animation_data.action is not None]
    if not mounts and not followers:
        return
    armatures = [p for p in parts if p.type == "ARMATURE"]
    rest = _rest_worlds(mounts)
    _keep_poses(armatures, undo)
    names = list(dict.fromkeys(name for root in shown for name in laid_out[root.name]))
    samples: dict[str, tuple[np.ndarray, list, list]] = {}
    mutes = {(root.name, i): t.mute for root in shown for i, t in enumerate(root.animation_data.nla_tracks)}
    try:
        for name in names:
            end = 0.0
            for root in shown:  # only this animation's track plays, on bones at rest
                for t in root.animation_data.nla_tracks:
                    t.mute = t.name != name
                    if t.name == name:
                        end = max([end] + [s.frame_end for s in t.strips])
                _rest(root)
            # the exporter samples whole frames up to int(end) (its track range)
            frames = np.arange(int(end) + 1, dtype=np.float64)
            worlds, poses = [], []
            for f in frames:
                scene.frame_set(int(f))
                worlds.append([np.array(m.matrix_world) for m in mounts])
                poses.append([[np.array(b.matrix_basis) for b in a.pose.bones] for a in followers])
            samples[name] = (frames, worlds, poses)
    finally:
        for root in shown:
            for i, t in enumerate(root.animation_data.nla_tracks):
                t.mute = mutes[root.name, i]
    for holder in mounts + followers:
        if holder.animation_data is None:  # made for the tracks: removed last
            undo(holder.animation_data_clear)
        unassign(holder, undo)  # a mount's node-0 keys, a part's timeline: baked into every animation
    for mount, world in zip(mounts, rest):
        constraint = mount.constraints[P.UNIT_MOUNT]
        if not constraint.mute:
            constraint.mute = True
            undo(lambda c=constraint: setattr(c, "mute", False))
        before = tuple(mount.location), tuple(mount.rotation_quaternion), tuple(mount.scale)
        undo(lambda m=mount, b=before: (setattr(m, "location", b[0]), setattr(m, "rotation_quaternion", b[1]),
                                        setattr(m, "scale", b[2])))
        mount.matrix_basis = world  # the node's own pose: on its socket, the unit at rest
    for name, (frames, worlds, poses) in samples.items():
        for k, mount in enumerate(mounts):
            matrices = np.array([w[k] for w in worlds])
            action = _baked(mount, f"{mount.name} {name}", [("", mount.name, matrices)], frames, undo)
            _muted(mount, track(mount, action, name, undo))
        for k, part in enumerate(followers):
            bones = [(pose_bone_path(b.name), b.name, np.array([p[k][j] for p in poses]))
                     for j, b in enumerate(part.pose.bones)]
            action = _baked(part, f"{part.name} {name}", bones, frames, undo)
            _muted(part, track(part, action, name, undo))


def _rest_worlds(mounts: list) -> list[Matrix]:
    """Each mount's world with the unit at rest (every bone at its rest, a mount's node-0 keys at their first
    key, the part's rest: imp.plan NodePlan), worked out rather than evaluated: an evaluation with every track
    of a model muted can leave Blender's depsgraph without the model's time dependency, so that the later
    frames of the bake would all show the first one."""
    own = {m.name for m in mounts}
    cache: dict[str, Matrix] = {}

    def world(obj) -> Matrix:
        if obj.name not in cache:
            if obj.name in own:  # Child Of with every channel: target @ inverse @ basis (io_msh.imp.unit._mount)
                constraint = obj.constraints[P.UNIT_MOUNT]
                target = world(constraint.target)
                if constraint.subtarget:
                    target = target @ constraint.target.data.bones[constraint.subtarget].matrix_local
                cache[obj.name] = target @ constraint.inverse_matrix @ _first_basis(obj)
            elif obj.parent is not None:
                cache[obj.name] = world(obj.parent) @ obj.matrix_parent_inverse @ obj.matrix_basis
            else:
                cache[obj.name] = obj.matrix_world.copy()
        return cache[obj.name]

    return [world(m) for m in mounts]


def _first_basis(obj) -> Matrix:
    """The object's basis at its action's first key (its own values without one)."""
    action = obj.animation_data.action if obj.animation_data else None
    if action is None:
        return obj.matrix_basis.copy()
    from mathutils import Quaternion, Vector

    location, rotation = list(obj.location), list(obj.rotation_quaternion)
    for fcurve in compat.action_fcurves(action):
        first = fcurve.keyframe_points[0].co[0] if len(fcurve.keyframe_points) else 0.0
        if fcurve.data_path == "location":
            location[fcurve.array_index] = fcurve.evaluate(first)
        elif fcurve.data_path == "rotation_quaternion":
            rotation[fcurve.array_index] = fcurve.evaluate(first)
    return Matrix.LocRotScale(Vector(location), Quaternion(rotation).normalized(), obj.scale)


def _muted(holder, name: str) -> None:
    """A baked track muted: the glTF exporter plays each track alone whatever its mute (and puts the mute back);
    playing meanwhile, the tracks would set the pose the exporter writes as the nodes' own (a mount's)."""
    holder.animation_data.nla_tracks[name].mute = True


def _keep_poses(armatures, undo) -> None:
    """The pose bones' values put back afterwards (a bone no action keys keeps what it was given)."""
    kept = [(b, tuple(b.location), tuple(b.rotation_quaternion), tuple(b.rotation_euler), tuple(b.scale))
            for a in armatures for b in a.pose.bones]

    def back():
        for bone, location, quaternion, euler, scale in kept:
            bone.location, bone.rotation_quaternion, bone.rotation_euler, bone.scale = location, quaternion, \
                euler, scale
    undo(back)


def _rest(root) -> None:
    for bone in root.pose.bones:
        bone.matrix_basis = Matrix.Identity(4)


def _baked(holder, name: str, channels: list[tuple[str, str, np.ndarray]], frames: np.ndarray,
           undo) -> bpy.types.Action:
    """A new action (left unassigned) keying, at ``frames``, each (data path prefix, group, (frames, 4, 4) local
    matrices) as location, rotation and scale, in its owner's rotation mode."""
    action = bpy.data.actions.new(name)
    undo(lambda a=action: bpy.data.actions.remove(a))
    target = compat.ChannelTarget(action, holder, holder.name)
    holder.animation_data.action = None
    for prefix, group, matrices in channels:
        owner = holder.path_resolve(prefix[:-1]) if prefix else holder
        values = [Matrix(m.tolist()).decompose() for m in matrices]
        location = np.array([tuple(v[0]) for v in values])
        rotation = np.array([tuple(v[1]) for v in values])
        for i in range(1, len(rotation)):  # the shortest path between consecutive keys
            if np.dot(rotation[i], rotation[i - 1]) < 0:
                rotation[i] = -rotation[i]
        if owner.rotation_mode != "QUATERNION":
            rotation = np.array([tuple(v[1].to_euler(owner.rotation_mode)) for v in values])
            path = "rotation_euler"
        else:
            path = "rotation_quaternion"
        scale = np.array([tuple(v[2]) for v in values])
        for attribute, data in (("location", location), (path, rotation), ("scale", scale)):
            for index in range(data.shape[1]):
                write_keys(target.new_fcurve(prefix + attribute, index, group), frames, data[:, index])
    return action
