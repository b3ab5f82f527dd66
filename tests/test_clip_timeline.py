"""Clip to Timeline (object.parkan_clip_to_timeline): the part of a partly blended step that
shows pair B alone is written, node 0's location is written as a delta over the timeline's (both root motions),
and the timeline and clips are found again after the objects and actions were renamed; a deleted timeline is a
clean error that changes nothing."""

import json

import numpy as np
import pytest
from test_clips_blender import NAMES, RATE, import_walker, local_poses, tweak_clip_strip

from core.animation.controller import clips_of
from core.animation.sampler import AnimationData, sample, sample_node
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.msh.model import Model

RUN, WALK = NAMES[2], NAMES[1]


def partly_blended_controller():
    """The walker's, with state 10 (after state 9's q 0.75) blending from pair A 24..28: with A unused the
    runtime shows B alone whatever the weight, so the step would be pure all through."""
    controller = walker_controller()
    controller.states[10]["pair_a"] = (24.0, 28.0)
    return controller


KEYS = 8  # the key stream (msh-animation.md 2.2)


def assert_same_up_to_rounding(a: bytes, b: bytes) -> None:
    """Two exports of one scene that the export may read by different routes (the F-curves evaluated, or Blender
    stepped through the frames: io_msh.exp.readback.read_scene), whose float32 rounding can differ by an ulp in a
    rewritten track (seen once in CI): every stream but the keys byte for byte, the keys' times exact, their
    positions within 4 ulp and rotations within one int16 step."""
    x, y = Model.parse(a), Model.parse(b)
    assert [(e.type_id, bytes(e.data)) for e in x.archive.entries if e.type_id != KEYS] == \
        [(e.type_id, bytes(e.data)) for e in y.archive.entries if e.type_id != KEYS]
    p, q = AnimationData.from_model(x), AnimationData.from_model(y)
    assert all(np.array_equal(getattr(p, f), getattr(q, f)) for f in ("times", "map_start", "fallback", "words"))
    np.testing.assert_array_max_ulp(p.pos, q.pos, maxulp=4)
    assert np.abs(p.rot.astype(np.float64) - q.rot).max(initial=0) <= 1.01 / 32767


def model_with(tmp_path_factory, name, controller):
    folder = tmp_path_factory.mktemp(name)
    data = build_model(walker_model()).to_bytes()
    (folder / "walker.msh").write_bytes(data)
    (folder / "walker.ctl").write_bytes(controller.to_bytes())
    return folder, data


@pytest.fixture(scope="module")
def walker_files(tmp_path_factory):
    return model_with(tmp_path_factory, "walker", walker_controller())


@pytest.fixture(scope="module")
def partly_files(tmp_path_factory):
    return model_with(tmp_path_factory, "partly", partly_blended_controller())


def holders(bpy, root):
    if root.type == "ARMATURE":
        return [root]
    return sorted([o for o in bpy.data.objects if o.type == "EMPTY" and "msh_node_index" in o],
                  key=lambda o: o["msh_node_index"])


def node_holder(bpy, root, node):
    """(the ID animating node ``node``, its F-curves' data path prefix)."""
    if root.type == "ARMATURE":
        bone = next(b for b in root.data.bones if b["msh_node_index"] == node)
        return root, f'pose.bones["{bone.name}"].'
    return holders(bpy, root)[node], ""


def fcurve_of(blender, holder, path, index):
    return next(f for f in blender.ext.io_msh.com.compat.assigned_fcurves(holder)
                if f.data_path == path and f.array_index == index)


def show(blender, root, clip):
    """Assign clip ``clip`` (None: each holder's timeline, found through the import's pointer)."""
    module = blender.ext.io_msh.imp.clip_actions
    for h in holders(blender.bpy, root):
        module.assign(h, module.clip_actions(h, clip) if clip else module.timeline_of(h)[0])


def edit(fcurve, change):
    """Each key's value plus ``change(frame)``."""
    co = np.zeros(2 * len(fcurve.keyframe_points), np.float32)
    fcurve.keyframe_points.foreach_get("co", co)
    co[1::2] += change(co[0::2])
    fcurve.keyframe_points.foreach_set("co", co)
    fcurve.update()


def keys(fcurve):
    co = np.zeros(2 * len(fcurve.keyframe_points), np.float32)
    fcurve.keyframe_points.foreach_get("co", co)
    return dict(zip(co[0::2].tolist(), co[1::2].tolist()))


def step_frames(data, clip_index, controller=None):
    controller = controller or walker_controller()
    clip = clips_of(controller, AnimationData.from_model(Model.parse(data)))[clip_index]
    durations = np.array([s.duration_ms for s in clip.steps])
    return np.concatenate([[0], np.cumsum(durations)]) * RATE / 1000


def write(bpy, root, clip):
    bpy.context.view_layer.objects.active = root
    return bpy.ops.object.parkan_clip_to_timeline(clip=clip)


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_the_pure_part_of_a_partly_blended_step_is_written(blender, partly_files, tmp_path, node_mode, capfd):
    """The run clip: states 7, 8 (pure, B 14..18, 18..22), 9 (q 0.75: blended all through, B 22..26) and 10
    (q 1 after q 0.75: blended for s < 0.25, then B alone: timeline frames 27..30 are written)."""
    bpy = blender.bpy
    folder, data = partly_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=RATE)
    holder, prefix = node_holder(bpy, root, 3)
    timeline = {p: dict(keys(fcurve_of(blender, holder, prefix + p, i))) for p, i in
                (("location", 2), ("rotation_quaternion", 1))}
    show(blender, root, RUN)
    lift = fcurve_of(blender, holder, prefix + "location", 2)
    edit(lift, lambda f: 0.1 + 0.02 * f)  # varying over the clip
    turn = fcurve_of(blender, holder, prefix + "rotation_quaternion", 1)
    edit(turn, lambda f: 0.05)
    capfd.readouterr()
    assert write(bpy, root, RUN) == {"FINISHED"}
    out = capfd.readouterr()
    text = out.out + out.err
    assert f"{RUN}: the steps of states 9 blend two timeline frames all through; their keys are not written" in text
    assert f"{RUN}: the steps of states 10 blend two timeline frames in their first quarter" in text
    starts = step_frames(data, 2, partly_blended_controller())
    parts = {14: (0, 14, 18), 18: (1, 18, 22), 27: (3, 26, 30)}  # first written frame: (step, B0, B1)
    expected = {}
    for first, (k, b0, b1) in parts.items():
        for f in range(first, int(b1) + 1):
            t = starts[k] + (f - b0) / (b1 - b0) * (starts[k + 1] - starts[k])
            expected[f] = (lift.evaluate(t), turn.evaluate(t))
    show(blender, root, None)
    for (path, index), column in ((("location", 2), 0), (("rotation_quaternion", 1), 1)):
        written = keys(fcurve_of(blender, holder, prefix + path, index))
        for f in range(14, 31):
            if f in expected:
                assert written[f] == pytest.approx(expected[f][column], abs=1e-6), (path, f)
            else:  # 23..26: state 9 blends, left as they were
                assert written[f] == timeline[path][f], (path, f)
        assert {f: v for f, v in written.items() if not 14 <= f <= 30} == {
            f: v for f, v in timeline[path].items() if not 14 <= f <= 30}
    shown = {}
    for f in range(0, 41):
        blender.evaluated_frame(f)
        shown[f] = local_poses(bpy, root)
    path = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    old = AnimationData.from_model(Model.parse(data))
    new = AnimationData.from_model(Model.parse(path.read_bytes()))
    frames = np.arange(0, 41, dtype=np.float32)
    a, b = sample(old, frames), sample(new, frames)
    for f in range(41):  # the exported leg plays what Blender shows on the timeline
        assert np.abs(b.pos[3, f] - shown[f][3][:3, 3]).max() < 2e-4, f
    assert np.abs(b.pos[3, 23:27] - a.pos[3, 23:27]).max() < 2e-4
    assert np.abs(b.pos[3, 27:31] - a.pos[3, 27:31]).max() > 0.05
    others = [0, 1, 2, 4]
    assert np.array_equal(a.pos[others], b.pos[others]) and np.array_equal(a.rot[others], b.rot[others])


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("root_motion", ["IN_PLACE", "MOVING"])
def test_node_0_location_is_written_as_a_delta(blender, walker_files, tmp_path, node_mode, root_motion):
    """The walk clip (B 4..12, pure): the body lifted 0.2 and pushed 0.03 per clip frame forward in the clip
    moves the timeline's body by as much over frames 4..12, whatever the clip showed (In Place: 0, Moving:
    the stride's travel)."""
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS",
                         root_motion=root_motion, frame_rate=RATE)
    holder, prefix = node_holder(bpy, root, 0)
    before = {i: keys(fcurve_of(blender, holder, prefix + "location", i)) for i in range(3)}
    before_curves = {i: fcurve_of(blender, holder, prefix + "location", i) for i in range(3)}
    base = {i: {f: before_curves[i].evaluate(f) for f in range(4, 13)} for i in range(3)}
    show(blender, root, WALK)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.2)
    edit(fcurve_of(blender, holder, prefix + "location", 1), lambda f: 0.03 * f)
    assert write(bpy, root, WALK) == {"FINISHED"}
    starts = step_frames(data, 1)
    show(blender, root, None)
    for i in range(3):
        written = keys(fcurve_of(blender, holder, prefix + "location", i))
        for f in range(4, 13):
            k = min((f - 4) // 2, 3)  # the step playing f (B 4..6, 6..8, 8..10, 10..12; shared ends: later)
            t = starts[k] + (f - (4 + 2 * k)) / 2 * (starts[k + 1] - starts[k])
            offset = {0: 0.0, 1: 0.03 * t, 2: 0.2}[i]
            assert written[f] == pytest.approx(base[i][f] + offset, abs=1e-5), (i, f)
        assert {f: v for f, v in written.items() if not 4 <= f <= 12} == {
            f: v for f, v in before[i].items() if not 4 <= f <= 12}
    shown = {}
    for f in range(0, 16):
        blender.evaluated_frame(f)
        shown[f] = local_poses(bpy, root)[0][:3, 3]
    path = tmp_path / "out.msh"
    assert bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    new = sample(AnimationData.from_model(Model.parse(path.read_bytes())), np.arange(0, 16, dtype=np.float32))
    old = sample(AnimationData.from_model(Model.parse(data)), np.arange(0, 16, dtype=np.float32))
    for f in range(16):
        assert np.abs(new.pos[0, f] - shown[f]).max() < 2e-4, f
    assert np.abs(new.pos[0, 4:13, 2] - old.pos[0, 4:13, 2] - 0.2).max() < 2e-4  # the body's own z
    assert np.array_equal(new.pos[0, :4], old.pos[0, :4]) or np.abs(new.pos[0, :4] - old.pos[0, :4]).max() < 2e-4


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_renamed_objects_and_actions_still_write(blender, walker_files, node_mode):
    bpy = blender.bpy
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=RATE)
    holder, prefix = node_holder(bpy, root, 3)
    before = keys(fcurve_of(blender, holder, prefix + "location", 2))
    root.name = "renamed model"
    for obj in holders(bpy, root):
        obj.name = "renamed " + obj.name
    for action in list(bpy.data.actions):
        action.name = "renamed " + action.name
    show(blender, root, WALK)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1)
    assert write(bpy, root, "") == {"FINISHED"}  # the clip shown, found by its action's mark
    show(blender, root, WALK)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1)
    renamed = next(a.name for a in bpy.data.actions if a.get("msh_clip") == WALK)  # 4.2 Empties: one of several
    assert renamed.startswith("renamed ")
    assert write(bpy, root, renamed) == {"FINISHED"}  # the clip named by its action's new name
    show(blender, root, None)
    written = keys(fcurve_of(blender, holder, prefix + "location", 2))
    for f, value in before.items():
        assert written[f] == pytest.approx(value + (0.2 if 4 <= f <= 12 else 0.0), abs=1e-5), f


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_deleted_timeline_is_a_clean_error(blender, walker_files, node_mode):
    bpy = blender.bpy
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=RATE)
    holder, prefix = node_holder(bpy, root, 3)
    timeline = blender.ext.io_msh.imp.clip_actions.timeline_of(holder)[0]
    show(blender, root, WALK)
    clip_curve = fcurve_of(blender, holder, prefix + "location", 2)
    edit(clip_curve, lambda f: 0.1)
    edited = keys(clip_curve)
    assigned = [(h.animation_data.action, h.animation_data.action_slot if hasattr(h.animation_data, "action_slot")
                 else None) for h in holders(bpy, root)]
    bpy.data.actions.remove(timeline)
    with pytest.raises(RuntimeError, match=r"the timeline action of .* was deleted: nothing was written"):
        write(bpy, root, WALK)
    assert [(h.animation_data.action, h.animation_data.action_slot if hasattr(h.animation_data, "action_slot")
             else None) for h in holders(bpy, root)] == assigned
    assert keys(fcurve_of(blender, holder, prefix + "location", 2)) == edited
    with pytest.raises(RuntimeError, match="has no clip 'nothing'"):
        write(bpy, root, "nothing")
    root["msh_clip_steps"] = "{not json"
    with pytest.raises(RuntimeError, match=r"the clip data \(msh_clip_steps\) of .* is unreadable"):
        write(bpy, root, WALK)


@pytest.fixture
def russian(blender, monkeypatch):
    """Reports as a Russian Blender makes them (the wheels have no translations: test_translations.russian)."""
    table = blender.ext.io_msh.ui.translations.translations()["ru_RU"]
    monkeypatch.setattr(blender.ext.io_msh.ui.translations, "_translate",
                        lambda english: table.get(("*", english), english))


def test_the_reports_come_out_in_russian(blender, partly_files, russian, capfd):
    bpy = blender.bpy
    folder, _data = partly_files
    root = import_walker(blender, folder / "walker.msh", clips="ACTIONS", frame_rate=RATE)
    show(blender, root, RUN)
    edit(fcurve_of(blender, root, 'pose.bones["leg_l"].location', 2), lambda f: 0.1)
    capfd.readouterr()
    assert write(bpy, root, "") == {"FINISHED"}
    out = capfd.readouterr()
    text = out.out + out.err
    assert f"{RUN}: шаги состояний 9 всё время смешивают два кадра временной шкалы; их ключи не записаны" in text
    assert f"{RUN}: шаги состояний 10 смешивают два кадра временной шкалы в первой четверти" in text
    assert f"{RUN}: изменённых узлов записано во временную шкалу: 1" in text
    show(blender, root, None)
    bpy.data.actions.remove(blender.ext.io_msh.imp.clip_actions.timeline_of(root)[0])
    show(blender, root, RUN)
    edit(fcurve_of(blender, root, 'pose.bones["leg_l"].location', 2), lambda f: 0.1)  # the first is written
    with pytest.raises(RuntimeError, match=r"действие временной шкалы .* удалено: ничего не записано"):
        write(bpy, root, "")


def test_a_model_imported_before_the_marks_still_writes(blender, walker_files, capfd):
    """msh_clip_steps as the first version wrote it (a bool per step, no states, no node-0 keys), no pointers
    or marks: the timeline and clips are found by name; node 0's location is not written, with a warning."""
    import json

    bpy = blender.bpy
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode="EMPTIES", clips="ACTIONS", frame_rate=RATE)
    stored = json.loads(root["msh_clip_steps"])
    for meta in stored["clips"].values():
        meta["steps"] = [[*step[:4], step[4] == 0.0] for step in meta["steps"]]
        del meta["root"]
    root["msh_clip_steps"] = json.dumps(stored)
    for obj in holders(bpy, root):
        del obj["msh_timeline"]
        obj.pop("msh_timeline_slot", None)
    for action in bpy.data.actions:
        action.pop("msh_clip", None)
        action.pop("msh_clip_holder", None)
    leg, body = holders(bpy, root)[3], holders(bpy, root)[0]
    before = keys(fcurve_of(blender, leg, "location", 2))
    body_before = keys(fcurve_of(blender, body, "location", 2))
    module = blender.ext.io_msh.imp.clip_actions
    module.show_clip(root, WALK, holders(bpy, root))
    edit(fcurve_of(blender, leg, "location", 2), lambda f: 0.1)
    edit(fcurve_of(blender, body, "location", 2), lambda f: 0.1)
    capfd.readouterr()
    assert write(bpy, root, WALK) == {"FINISHED"}
    out = capfd.readouterr()
    assert "node 0's location is root motion and the model was imported before" in out.out + out.err
    for h in holders(bpy, root):
        module.assign(h, bpy.data.actions[stored["timeline"][h.name]])
    written = keys(fcurve_of(blender, leg, "location", 2))
    for f, value in before.items():
        assert written[f] == pytest.approx(value + (0.1 if 4 <= f <= 12 else 0.0), abs=1e-5), f
    assert keys(fcurve_of(blender, body, "location", 2)) == body_before


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_two_imports_of_one_model_keep_their_own_clips_and_timelines(blender, walker_files, node_mode):
    """The second import's clip and timeline actions are its own (4.2 names its Empties' clip actions alike:
    '<clip>|leg_l' and '<clip>|leg_l.001'), whatever they are called."""
    bpy = blender.bpy
    folder, _data = walker_files
    for _ in range(2):
        assert bpy.ops.import_scene.parkan_msh(filepath=str(folder / "walker.msh"), node_mode=node_mode,
                                               clips="ACTIONS", frame_rate=RATE) == {"FINISHED"}
    first, second = sorted((o for o in bpy.data.objects if "msh_model" in o), key=lambda o: o.name)
    module = blender.ext.io_msh.imp.clip_actions

    def leg(root):
        if node_mode == "ARMATURE":
            return root, 'pose.bones["leg_l"].'
        return next(o for o in root.children_recursive if o.get("msh_node_index") == 3), ""

    def show_on(root, clip):
        for h in ([root] if node_mode == "ARMATURE" else [o for o in root.children_recursive if o.type == "EMPTY"]):
            module.assign(h, module.clip_actions(h, list(root["msh_clips"])[1]) if clip else module.timeline_of(h)[0])

    before = {r: keys(fcurve_of(blender, *(lambda h, p: (h, p + "location"))(*leg(r)), 2)) for r in (first, second)}
    for action in list(bpy.data.actions):
        action.name = "renamed " + action.name
    show_on(second, True)
    holder, prefix = leg(second)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1)
    assert write(bpy, second, "") == {"FINISHED"}
    for root, lift in ((first, 0.0), (second, 0.1)):
        show_on(root, False)
        holder, prefix = leg(root)
        written = keys(fcurve_of(blender, holder, prefix + "location", 2))
        for f, value in before[root].items():
            assert written[f] == pytest.approx(value + (lift if 4 <= f <= 12 else 0.0), abs=1e-5), (root.name, f)


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_clip_edited_in_its_nla_strip_is_written(blender, walker_files, node_mode):
    """Clips: NLA Strips, the walk's strip tweaked (Tab): the operator leaves the tweak mode while it writes
    and comes back to it."""
    bpy = blender.bpy
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="NLA", frame_rate=RATE)
    holder, prefix = node_holder(bpy, root, 3)
    before = keys(fcurve_of(blender, holder, prefix + "location", 2))
    tweak_clip_strip(holders(bpy, root), WALK)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1)
    assert write(bpy, root, "") == {"FINISHED"}
    assert holder.animation_data.use_tweak_mode
    assert holder.animation_data.action == blender.ext.io_msh.imp.clip_actions.clip_actions(holder, WALK)
    for h in holders(bpy, root):
        if h.animation_data.use_tweak_mode:
            h.animation_data.use_tweak_mode = False
    show(blender, root, None)
    written = keys(fcurve_of(blender, holder, prefix + "location", 2))
    for f, value in before.items():
        assert written[f] == pytest.approx(value + (0.1 if 4 <= f <= 12 else 0.0), abs=1e-5), f


def export(bpy, root, path):
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.export_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    return path.read_bytes()


def scene_state(bpy, root):
    """What the export must leave as it found it: each holder's action, its NLA tracks' mute and solo and its
    tweak mode, and every action with its keys."""
    state = []
    for h in holders(bpy, root):
        anim = h.animation_data
        state.append((h.name, anim.action.name if anim and anim.action else None, anim.use_tweak_mode if anim
                      else None, [(t.name, t.mute, t.is_solo) for t in anim.nla_tracks] if anim else None))
    actions = {}
    for action in bpy.data.actions:
        fcurves = blender_fcurves(action)
        actions[action.name] = sorted((f.data_path, f.array_index, tuple(keys(f).items())) for f in fcurves)
    return state, actions


def blender_fcurves(action):
    if hasattr(action, "fcurves") and not hasattr(action, "layers"):
        return list(action.fcurves)
    if hasattr(action, "layers") and action.layers:
        return [f for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                for f in bag.fcurves]
    return list(action.fcurves)


@pytest.mark.parametrize("node_mode, clips, how", [("ARMATURE", "ACTIONS", "assigned"),
                                                   ("EMPTIES", "ACTIONS", "assigned"),
                                                   ("ARMATURE", "NLA", "solo"), ("EMPTIES", "NLA", "tweak")])
def test_the_export_writes_the_timeline_whatever_clip_is_shown(blender, walker_files, tmp_path, node_mode, clips,
                                                               how):
    """A clip shown (assigned, its NLA track soloed, or its strip tweaked) is not the model's animation: an
    unedited import exports byte for byte, and the scene is left as it was (no action added or changed)."""
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips=clips, frame_rate=RATE)
    if how == "assigned":
        show(blender, root, WALK)
    elif how == "tweak":
        tweak_clip_strip(holders(bpy, root), WALK)
    else:
        for h in holders(bpy, root):
            next(t for t in h.animation_data.nla_tracks if t.name == WALK).is_solo = True
    before = scene_state(bpy, root)
    assert export(bpy, root, tmp_path / "out.msh") == data
    assert scene_state(bpy, root) == before


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_clip_edited_and_exported_writes_as_write_clip_to_timeline(blender, walker_files, tmp_path, node_mode,
                                                                     capfd):
    """The export writes an edited clip into (a copy of) the timeline itself: the file equals the one exported
    after Write Clip to Timeline, and the scene keeps the clip edit without touching the timeline."""
    bpy = blender.bpy
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=RATE)
    show(blender, root, WALK)
    holder, prefix = node_holder(bpy, root, 3)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1)
    before = scene_state(bpy, root)
    direct = export(bpy, root, tmp_path / "direct.msh")
    assert scene_state(bpy, root) == before
    assert Model.parse(direct).frame_count == Model.parse(_data).frame_count
    assert write(bpy, root, WALK) == {"FINISHED"}
    show(blender, root, None)
    assert_same_up_to_rounding(export(bpy, root, tmp_path / "written.msh"), direct)
    frames = np.arange(4.0, 13.0)  # the walk's timeline frames: node 3 lifted by 0.1 there, the same elsewhere
    old, new = AnimationData.from_model(Model.parse(_data)), AnimationData.from_model(Model.parse(direct))
    for frame in [0.0, 2.0, *frames, 20.0, 40.0]:
        lifted = 0.1 if 4 <= frame <= 12 else 0.0
        (_q0, p0, *_), (_q1, p1, *_) = sample_node(old, 3, frame), sample_node(new, 3, frame)
        assert p1[2] - p0[2] == pytest.approx(lifted, abs=1e-4), frame


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_a_clip_written_twice_or_written_then_exported_adds_its_change_once(blender, walker_files, tmp_path,
                                                                           node_mode):
    """Write Clip to Timeline records the clip as written: running it again, or exporting afterwards (which
    writes edited clips itself), does not add node 0's lift a second time; a further edit adds only itself."""
    bpy = blender.bpy
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=RATE)
    holder, prefix = node_holder(bpy, root, 0)
    base = {f: fcurve_of(blender, holder, prefix + "location", 2).evaluate(f) for f in range(4, 13)}

    def lift():
        show(blender, root, None)
        curve = fcurve_of(blender, holder, prefix + "location", 2)
        lifted = {f: curve.evaluate(f) - base[f] for f in range(4, 13)}
        show(blender, root, WALK)
        return lifted

    show(blender, root, WALK)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.2)
    assert write(bpy, root, WALK) == {"FINISHED"}
    assert write(bpy, root, WALK) == {"FINISHED"}
    assert all(v == pytest.approx(0.2, abs=1e-5) for v in lift().values())
    first = export(bpy, root, tmp_path / "a.msh")
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1)
    second = export(bpy, root, tmp_path / "b.msh")  # the further edit, written by the export alone
    assert all(v == pytest.approx(0.2, abs=1e-5) for v in lift().values())  # the scene is unchanged
    assert write(bpy, root, WALK) == {"FINISHED"}
    assert all(v == pytest.approx(0.3, abs=1e-5) for v in lift().values())
    show(blender, root, None)
    assert export(bpy, root, tmp_path / "c.msh") == second
    old, new = AnimationData.from_model(Model.parse(first)), AnimationData.from_model(Model.parse(second))
    for frame in range(4, 13):
        (_q0, p0, *_), (_q1, p1, *_) = sample_node(old, 0, float(frame)), sample_node(new, 0, float(frame))
        assert p1[2] - p0[2] == pytest.approx(0.1, abs=2e-4), frame


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("root_motion", ["IN_PLACE", "MOVING"])
def test_a_written_clip_is_not_written_again(blender, walker_files, tmp_path, node_mode, root_motion):
    """Write Clip to Timeline twice, then export with the clip still edited: the body is lifted once (node 0's
    location is a delta: written again, it was added again). A later edit is added to the first exactly, a
    curve edited between the step starts too."""
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS",
                         root_motion=root_motion, frame_rate=RATE)
    show(blender, root, WALK)
    holder, prefix = node_holder(bpy, root, 0)
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1 + 0.01 * (f - 3.1) ** 2)
    direct = export(bpy, root, tmp_path / "direct.msh")  # the edit written once, into the export's copy
    assert write(bpy, root, WALK) == {"FINISHED"}
    assert write(bpy, root, WALK) == {"FINISHED"}
    once = export(bpy, root, tmp_path / "once.msh")
    old, new, expected = (sample(AnimationData.from_model(Model.parse(d)), np.arange(4, 13, dtype=np.float32))
                          for d in (data, once, direct))
    assert (expected.pos[0, :, 2] - old.pos[0, :, 2]).min() > 0.09
    assert np.abs(new.pos[0, :, 2] - expected.pos[0, :, 2]).max() < 2e-4
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.05)
    assert write(bpy, root, WALK) == {"FINISHED"}
    show(blender, root, None)
    twice = sample(AnimationData.from_model(Model.parse(export(bpy, root, tmp_path / "twice.msh"))),
                   np.arange(4, 13, dtype=np.float32))
    assert np.abs(twice.pos[0, :, 2] - new.pos[0, :, 2] - 0.05).max() < 2e-4


@pytest.mark.parametrize("tamper", ["root rows", "root text", "root frames", "step text", "curves list", "not json",
                                    "timeline list"])
def test_clip_data_not_as_written_is_a_clean_error_and_the_export_a_warning(blender, walker_files, tmp_path,
                                                                           tamper, capfd):
    """msh_clip_steps changed by hand (a script, a bad merge): Write Clip to Timeline refuses with a message,
    the export writes the timeline and says that clip was not written; no traceback."""
    bpy = blender.bpy
    folder, _data = walker_files
    root = import_walker(blender, folder / "walker.msh", clips="ACTIONS", frame_rate=RATE)
    show(blender, root, WALK)
    edit(fcurve_of(blender, root, 'pose.bones["body"].location', 2), lambda f: 0.1)
    stored = json.loads(root["msh_clip_steps"])
    clip = stored["clips"][WALK]
    change = {"root rows": lambda: clip.__setitem__("root", [[0.0, 0.0, 0.0]]),
              "root text": lambda: clip.__setitem__("root", [["a", "b", "c"]] * len(clip["root"])),
              "root frames": lambda: clip.__setitem__("root_frames", [0.0]),
              "step text": lambda: clip["steps"][0].__setitem__(2, "x"),
              "curves list": lambda: clip.__setitem__("curves", []),
              "timeline list": lambda: stored.__setitem__("timeline", [1])}
    if tamper in change:
        change[tamper]()
    root["msh_clip_steps"] = "[not json" if tamper == "not json" else json.dumps(stored)
    with pytest.raises(RuntimeError, match=r"the clip data \(msh_clip_steps\) of .* is unreadable"):
        write(bpy, root, WALK)
    capfd.readouterr()
    export(bpy, root, tmp_path / "out.msh")
    assert f"{WALK}: the clip data (msh_clip_steps) of walker.msh is unreadable" in capfd.readouterr().out


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
def test_update_clips_keeps_clip_edits_not_yet_written(blender, walker_files, tmp_path, node_mode):
    """A leg lifted in the walk clip, then a state's step length edited and Update Clips run: the lift is written
    into the timeline first and the clips made again show it; the export writes it."""
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", node_mode=node_mode, clips="ACTIONS", frame_rate=RATE)
    holder, prefix = node_holder(bpy, root, 3)
    show(blender, root, WALK)
    clip_before = keys(fcurve_of(blender, holder, prefix + "location", 2))
    edit(fcurve_of(blender, holder, prefix + "location", 2), lambda f: 0.1)
    root["msh_state 0 step ms"] = 80.0
    bpy.context.view_layer.objects.active = root
    assert bpy.ops.object.parkan_update_clips() == {"FINISHED"}
    show(blender, root, WALK)
    clip_after = keys(fcurve_of(blender, holder, prefix + "location", 2))
    assert clip_after.keys() == clip_before.keys()  # the walk's timing did not change (state 0 is the stand)
    for frame, value in clip_before.items():
        assert clip_after[frame] == pytest.approx(value + 0.1, abs=2e-4), frame
    show(blender, root, None)
    written = export(bpy, root, tmp_path / "out.msh")
    old, new = AnimationData.from_model(Model.parse(data)), AnimationData.from_model(Model.parse(written))
    for frame in range(4, 13):
        (_q0, p0, *_), (_q1, p1, *_) = sample_node(old, 3, float(frame)), sample_node(new, 3, float(frame))
        assert p1[2] - p0[2] == pytest.approx(0.1, abs=2e-4), frame


def test_a_deleted_unedited_clip_action_does_not_make_the_export_warn(blender, walker_files, tmp_path, capfd):
    bpy = blender.bpy
    folder, data = walker_files
    root = import_walker(blender, folder / "walker.msh", clips="ACTIONS", frame_rate=RATE)
    bpy.data.actions.remove(blender.ext.io_msh.imp.clip_actions.clip_actions(root, WALK))
    capfd.readouterr()
    assert export(bpy, root, tmp_path / "out.msh") == data
    assert "was deleted" not in capfd.readouterr().out
