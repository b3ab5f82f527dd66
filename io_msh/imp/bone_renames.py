"""A bone renamed reaches every action of its model.

Blender renames the F-curve paths (``pose.bones["name"]``) of a renamed bone only in the actions some ID
uses (the assigned one, NLA strips): a clip action not shown, or the timeline while a clip is shown, keeps the
old name, animates no bone, and the node would be exported without its animation. Each bone remembers the name
its model's actions use (the import's name, ``P.IMPORTED_NAME``, then ``P.PATH_NAME`` once a rename was
followed); ``follow_bone_renames`` renames the paths (and groups) of every action of the model that still uses
the old names: the timeline, every clip action, whatever holders show or hold in NLA strips. It runs after
every depsgraph update that touches an armature (a rename in the interface) and again where the clips are read
(the export, Write Clip to Timeline, Update Clips), so a rename made by a script is followed too.

An action is renamed only when it uses an old name no bone has any more (it missed the rename); one that uses a
new name (Blender renamed it) is left alone. Names swapped between bones by a script with no update in between
use only names the bones still have and cannot be told apart: they are left as they are.
"""

from __future__ import annotations

import bpy
from bpy.app.handlers import persistent

from ..com import compat
from ..com import props as P
from ..com.curves import pose_bone_of, pose_bone_path
from .clip_actions import model_clip_actions, model_holders, timeline_actions


def follow_bone_renames(root: bpy.types.Object) -> list[str]:
    """Rename the paths of ``root``'s renamed bones in every action of the model that missed the rename;
    returns the names of the actions changed."""
    if root.type != "ARMATURE":
        return []
    claims: dict[str, list[str]] = {}
    for bone in root.data.bones:
        known = bone.get(P.PATH_NAME, bone.get(P.IMPORTED_NAME))
        if isinstance(known, str):
            claims.setdefault(known, []).append(bone.name)
    # A name two bones claim (a bone duplicated with its properties, then one renamed) is left: which is the
    # bone the actions mean cannot be told (missing_bones names it).
    renamed = {known: names[0] for known, names in claims.items() if len(names) == 1 and names[0] != known}
    if not renamed:
        return []
    gone = set(renamed) - {b.name for b in root.data.bones}
    changed = []
    for action in sorted(model_actions(root), key=lambda a: a.name):
        fcurves = compat.action_fcurves(action)
        if not any(pose_bone_of(f.data_path)[0] in gone for f in fcurves):
            continue
        for fcurve in fcurves:
            bone, rest = pose_bone_of(fcurve.data_path)
            if bone in renamed:
                fcurve.data_path = pose_bone_path(renamed[bone], rest)
                if fcurve.group is not None and fcurve.group.name == bone:
                    fcurve.group.name = renamed[bone]
        changed.append(action.name)
    for bone in root.data.bones:
        if bone.get(P.PATH_NAME, bone.get(P.IMPORTED_NAME)) in renamed:
            bone[P.PATH_NAME] = bone.name
    return changed


def missing_bones(root: bpy.types.Object) -> list[str]:
    """A line per action of the model whose F-curves name bones the armature does not have (renamed by a
    script twice, with no update between, while the action was not shown): those keys animate nothing."""
    if root.type != "ARMATURE":
        return []
    bones = {b.name for b in root.data.bones}
    out = []
    for action in sorted(model_actions(root), key=lambda a: a.name):
        missing = sorted({pose_bone_of(f.data_path)[0] for f in compat.action_fcurves(action)} - bones - {None})
        if missing:
            out.append(f"action {action.name!r} keys bone(s) {', '.join(map(repr, missing))}, which "
                       f"{root.name!r} does not have (renamed?): those keys animate nothing and are not exported")
    return out


def model_actions(root: bpy.types.Object) -> set[bpy.types.Action]:
    """Every action of the model: its timeline, its clips, and what its holders show or hold in NLA strips."""
    holders = model_holders(root)
    found = timeline_actions(holders) | model_clip_actions([root], holders)
    for holder in holders:
        anim = holder.animation_data
        if anim is None:
            continue
        found |= {anim.action} | {s.action for t in anim.nla_tracks for s in t.strips}
    return found - {None}


@persistent
def _on_depsgraph_update(scene, depsgraph) -> None:
    armatures = {u.id.original for u in depsgraph.updates if isinstance(u.id, bpy.types.Armature)}
    if not armatures:
        return
    for obj in [o for o in bpy.data.objects if o.type == "ARMATURE" and o.data in armatures and P.MODEL in o]:
        follow_bone_renames(obj)


def register() -> None:
    bpy.app.handlers.depsgraph_update_post.append(_on_depsgraph_update)


def unregister() -> None:
    if _on_depsgraph_update in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.remove(_on_depsgraph_update)
