"""Reading a model without its channel sliders (io_msh.com.sliders.sliders_muted): Blender 4.4 and later evaluate a
property that an action animates and a muted driver drives racily (a channel now and then keeps an earlier frame's
value; measured on 4.5 and 5.0: a few in a hundred evaluations of a driven object, never on 4.2). The export's read
and the tests' pose checks step through frames with the sliders' drivers out of the way, so they are parked on a
property no object has, and put back as they were."""

import numpy as np

SLIDER = "msh_channel 0 turret"
CHANNELS = [("location", k) for k in range(3)] + [("rotation_quaternion", k) for k in range(4)]


def animated_model(bpy, sliders):
    """A root with a slider and five Empties keyed at every other frame; two of them driven by the slider on
    every keyed channel, one by a user's driver of its own (muted) on location[0]."""
    scene = bpy.context.scene
    root = bpy.data.objects.new("root", None)
    scene.collection.objects.link(root)
    sliders.add_slider(root, SLIDER, 0.5, "a channel")
    empties = []
    for i in range(5):
        obj = bpy.data.objects.new(f"node{i}", None)
        scene.collection.objects.link(obj)
        obj.parent = root if i == 0 else empties[0]
        obj.rotation_mode = "QUATERNION"
        for frame in range(0, 41, 2):
            obj.location = (np.sin(0.3 * frame + i), np.cos(0.2 * frame), 0.01 * frame)
            obj.rotation_quaternion = (np.cos(0.05 * frame), np.sin(0.05 * frame), 0.0, 0.0)
            obj.keyframe_insert("location", frame=frame)
            obj.keyframe_insert("rotation_quaternion", frame=frame)
        empties.append(obj)
    for obj in empties[1:3]:
        for path, index in CHANNELS:
            fcurve = sliders.slider_fcurve(obj, path, index, root, SLIDER)
            fcurve.keyframe_points.insert(0.0, 0.0)
            fcurve.keyframe_points.insert(1.0, 2.0)
    own = empties[3].driver_add("location", 0)
    own.driver.expression = "1.5"
    own.mute = True
    return root, empties


def keyed(obj, frame: int) -> np.ndarray:
    """What the object's action gives its channels at ``frame``."""
    action, anim = obj.animation_data.action, obj.animation_data
    fcurves = action.fcurves if hasattr(action, "fcurves") else \
        action.layers[0].strips[0].channelbag(anim.action_slot).fcurves
    return np.array([fcurves.find(path, index=index).evaluate(frame) for path, index in CHANNELS])


def shown(obj, depsgraph) -> np.ndarray:
    evaluated = obj.evaluated_get(depsgraph)
    return np.array([*evaluated.location, *evaluated.rotation_quaternion])


def test_the_timeline_pose_shows_at_every_frame_while_the_sliders_are_out_of_the_way(blender):
    bpy, sliders = blender.bpy, blender.ext.io_msh.com.sliders
    stale = []
    for attempt in range(25):
        blender.clean_scene()
        root, empties = animated_model(bpy, sliders)
        with sliders.sliders_muted(root):
            for frame in [*range(0, 41, 4)] * 2:
                blender.evaluated_frame(frame)
                depsgraph = bpy.context.evaluated_depsgraph_get()
                stale += [(attempt, frame, obj.name) for obj in empties
                          if np.abs(shown(obj, depsgraph) - keyed(obj, frame)).max() > 1e-5]
    assert not stale, f"{len(stale)} of {25 * 22 * 5} evaluations showed another frame: {stale[:5]}"


def test_the_drivers_are_put_back_as_they_were(blender):
    bpy, sliders = blender.bpy, blender.ext.io_msh.com.sliders
    root, empties = animated_model(bpy, sliders)
    user = bpy.data.objects.new("user driver", None)  # a driver of the user's, not muted: left alone
    bpy.context.scene.collection.objects.link(user)
    user.parent = empties[0]
    user.driver_add("location", 2).driver.expression = "0.25"

    def drivers():
        return [(o.name, f.data_path, f.array_index, f.mute, f.driver.is_valid, f.is_valid)
                for o in (root, *empties, user) if o.animation_data for f in o.animation_data.drivers]
    before = drivers()
    assert len(before) == 2 * 7 + 2
    bpy.context.scene.frame_set(10)
    driven = shown(empties[1], bpy.context.evaluated_depsgraph_get())
    with sliders.sliders_muted(root):
        parked = drivers()
        prefix = sliders.PARKED_PATH.split("{")[0]
        assert len({d[1] for d in parked[:15]}) == 15 and all(d[1].startswith(prefix) and d[3] for d in parked[:15])
        assert parked[-1] == before[-1]
        bpy.context.scene.frame_set(10)
        assert np.abs(shown(empties[1], bpy.context.evaluated_depsgraph_get()) - keyed(empties[1], 10)).max() < 1e-6
    assert drivers() == before
    bpy.context.scene.frame_set(10)
    assert np.abs(shown(empties[1], bpy.context.evaluated_depsgraph_get()) - driven).max() < 1e-6
    assert abs(shown(empties[1], bpy.context.evaluated_depsgraph_get())[0] - 1.0) < 1e-6  # slider 0.5 drives 1.0


def test_every_driver_is_put_back_even_when_one_is_gone(blender):
    """A driver removed while parked is not put back (nor looked for through its freed F-curve); the others are."""
    bpy, sliders = blender.bpy, blender.ext.io_msh.com.sliders
    root, empties = animated_model(bpy, sliders)
    before = [(o.name, f.data_path, f.array_index, f.mute) for o in empties if o.animation_data
              for f in o.animation_data.drivers]
    with sliders.sliders_muted(root):
        drivers = empties[1].animation_data.drivers
        drivers.remove(drivers[0])
    after = [(o.name, f.data_path, f.array_index, f.mute) for o in empties if o.animation_data
             for f in o.animation_data.drivers]
    assert after == [d for d in before if d[:3] != ("node1", "location", 0)]
    empties[2].animation_data_clear()  # a holder's drivers all gone while parked: nothing to put back
    with sliders.sliders_muted(root):
        empties[1].animation_data_clear()
    assert not empties[1].animation_data and empties[3].animation_data.drivers[0].data_path == "location"
