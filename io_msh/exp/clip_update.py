"""Update Clips: the model's clip actions made again from its state values as edited (the root's
``msh_state`` properties), so that the new frames and step lengths show before the export writes them into
the ``.ctl``. The controller is the one the model was imported with, read again, with the edits written in
(nothing is written to disk); the poses are the model's timeline as the export would write it, with the clips'
own edits written into it first."""

from __future__ import annotations

import json
from types import SimpleNamespace

import bpy

from ...core.animation.controller.edit import edit_states
from ...core.errors import FormatError, printable
from ...core.msh.model import Model
from ..com import props as P
from ..com.hierarchy import descendants
from ..imp.build import Created, on_bone_rests
from ..imp.clip_actions import (
    assign,
    build_clips,
    clip_actions,
    model_clip_actions,
    model_holders,
    show_clip,
    timeline_of,
)
from ..imp.clips import FoundController, plan_clips, read_for_model, shadowed_warnings
from ..imp.plan import ImportOptions, plan_nodes
from .clip_timeline import TimelineError, write_clip_to_timeline
from .export import model_of
from .plan import ExportOptions
from .state_edits import imported_controller, imported_states, state_edits


def update_clips(context, root: bpy.types.Object) -> tuple[int, list[str]]:
    """Rebuild the root's clip actions (and NLA tracks) from its state values; the number of clips made, and
    warnings. Clip keys edited since the import (or the last write) are first written into the timeline, as
    Write Clip to Timeline writes them, and the clips are then made from the timeline as the export would
    write it: no edit is lost. FormatError naming what stops it (a bad value, the controller gone, a node
    missing, a clip whose edits cannot be written); the old clips are kept then."""
    P.check_root(root)
    imported = imported_states(root)
    if imported is None or P.CLIPS not in root or P.SOURCE not in root:
        raise FormatError.single("clip", None, f"{root.name!r} was not imported with clips and their states")
    edits = state_edits(root, Model.parse(bytes(root[P.SOURCE]), str(root.get(P.MODEL, ""))))
    data, where = imported_controller(imported)
    if data is None:
        raise FormatError.single("ctl", None, f"the clips cannot be made again: {where}")
    warnings = _write_edited_clips(root)
    model = model_of(context, root, ExportOptions()).model
    read, findings = read_for_model(data, where, model)
    controller = edit_states(read, edits, model.frame_count, where)
    warnings += [f.format(where) for f in findings] + shadowed_warnings(controller)  # as the import says them
    kept = json.loads(str(root[P.STATES_IMPORTED])).get("options", {})
    mode = str(root.get(P.NODE_MODE, "ARMATURE"))
    options = ImportOptions(node_mode=mode, clips=str(kept.get("clips", "ACTIONS")),
                            root_motion=str(kept.get("root_motion", "IN_PLACE")),
                            frame_rate=float(kept.get("frame_rate", 24.0)))
    node_objects, holders = _node_objects(root, mode, model.node_count)
    nodes = plan_nodes(model, options)
    plan = SimpleNamespace(controller=plan_clips(controller, FoundController(data, where, imported.file,
                                                                             imported.entry),
                                                 model, nodes, options),
                           options=options, frame_count=model.frame_count)
    if mode == "ARMATURE":  # in the bones' terms, as the import wrote its clips
        on_bone_rests(nodes, [], plan.controller, root, node_objects)
    shown = _shown_clip(root, holders)
    _remove_clips(root, holders)
    created = Created()
    try:
        build_clips(plan, root, node_objects, created)
    except BaseException:
        created.remove_all()
        raise
    if shown is not None and shown in P.text_list_property(root, P.CLIPS):
        show_clip(root, shown, holders if mode != "ARMATURE" else None)
    return len(plan.controller.clips), warnings


def _write_edited_clips(root) -> list[str]:
    """Every clip's edits written into the timeline (a clip whose action was deleted has none); FormatError
    when a clip's edits cannot be written (its timeline deleted): the clips made again would lose them."""
    warnings = []
    holders = model_holders(root)
    for name in P.text_list_property(root, P.CLIPS):
        if not any(clip_actions(h, name) for h in holders):
            continue
        try:
            warnings += write_clip_to_timeline(root, name, rebase=True)[1]
        except TimelineError as exc:
            raise FormatError.single("clip", None, f"{name}: {exc}; the clips are not made again, as that would "
                                                   "lose the clip's edits") from None
    return warnings


def _node_objects(root, mode: str, count: int) -> tuple[list, list]:
    """What the clips key, by node index (bone names, or the Empties), and the IDs that hold the actions."""
    if mode == "ARMATURE":
        found = {int(b[P.NODE_INDEX]): b.name for b in root.data.bones if P.NODE_INDEX in b}
    else:
        found = {int(o[P.NODE_INDEX]): o for o in descendants(root) if o.type == "EMPTY" and P.NODE_INDEX in o}
    missing = [i for i in range(count) if i not in found]
    if missing:
        holder = "bone" if mode == "ARMATURE" else "Empty"
        raise FormatError.single("Res1", missing[0], f"node {missing[0]} has no {holder} in "
                                                     f"{printable(root.name)!r}: the clips cannot be made again")
    nodes = [found[i] for i in range(count)]
    return nodes, ([root] if mode == "ARMATURE" else nodes)


def _shown_clip(root, holders) -> str | None:
    """The clip whose action a holder shows, if any."""
    for name in P.text_list_property(root, P.CLIPS):
        for holder in holders:
            anim = holder.animation_data
            if anim is not None and anim.action is not None and anim.action == clip_actions(holder, name):
                return str(name)
    return None


def _remove_clips(root, holders) -> None:
    """The old clip actions and their NLA tracks; a holder showing a clip, or nothing (a clip shown leaves the
    nodes it does not key without an action), gets its timeline action back."""
    names = P.text_list_property(root, P.CLIPS)
    timeline = json.loads(str(root.get(P.CLIP_STEPS, "{}"))).get("timeline", {})
    old = model_clip_actions([root], holders)
    for holder in holders:
        anim = holder.animation_data
        if anim is not None and anim.use_tweak_mode:  # a clip's strip being edited (Tab): its action is fixed
            anim.use_tweak_mode = False
        current = anim.action if anim is not None else None
        if current is None or current in old:
            action, marked = timeline_of(holder)
            if not marked:  # imported before the timeline was kept as a pointer
                action = bpy.data.actions.get(timeline.get(holder.name, ""))
            if action is not None or current is not None:
                assign(holder, action)
        for track in [t for t in holder.animation_data.nla_tracks if t.name in names
                      or (len(t.strips) and all(s.action in old for s in t.strips))] \
                if holder.animation_data is not None else []:  # by their actions: renamed, or a second import's
            holder.animation_data.nla_tracks.remove(track)
    for action in old:
        bpy.data.actions.remove(action)
