"""The channel sliders an import with a controller makes (io_msh.imp.clip_actions, io_msh.imp.material_animation):
custom properties on the model root named ``msh_channel <index> <node>``, read by drivers on their nodes (or, for
a belt, on its materials' node trees). They are a view of the controller, not part of the model: the export reads
the model with them muted (``sliders_muted``)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import bpy

from .hierarchy import descendants
from .props import CHANNEL as CHANNEL_PROPERTY
from .undo import Undo


def is_slider_driver(fcurve) -> bool:
    """Whether a driver F-curve reads one of the root's channel sliders."""
    return any(target.data_path.startswith(f'["{CHANNEL_PROPERTY} ')
               for variable in fcurve.driver.variables for target in variable.targets)


def _drivers(root) -> Iterator[tuple]:
    for holder in (root, *descendants(root)):
        if holder.animation_data is not None:
            for fcurve in holder.animation_data.drivers:
                yield holder, fcurve


def slider_drivers(root) -> list:
    """The slider drivers on the model: on the armature object's pose bones, or on the node Empties."""
    return [(holder, fcurve) for holder, fcurve in _drivers(root) if is_slider_driver(fcurve)]


def muted_drivers(root) -> list:
    """The drivers on the model that are muted and are not slider drivers (a user's)."""
    return [(holder, fcurve) for holder, fcurve in _drivers(root) if fcurve.mute and not is_slider_driver(fcurve)]


PARKED_PATH = '["io_msh parked driver {}"]'  # a custom property no object has
_PARKED = itertools.count()


def park_driver(holder, fcurve, undo: Undo) -> None:
    """Mute the driver ``fcurve`` of ``holder`` and park it on a custom property no object has, ``undo`` putting
    it back as it was (its step is given before anything changes; a driver removed meanwhile is not looked for
    through its old F-curve, which Blender freed). Blender 4.4 and later (not 4.2) evaluate a property that an
    action animates and a muted driver drives racily: a channel now and then keeps an earlier frame's value (a
    few in a hundred evaluations of a driven object; tests/test_parked_drivers_blender.py). A driver of no
    property takes no part in it."""
    path, index, mute = fcurve.data_path, fcurve.array_index, fcurve.mute
    parked = PARKED_PATH.format(next(_PARKED))

    def put_back() -> None:
        anim = holder.animation_data
        found = anim.drivers.find(parked, index=index) if anim is not None else None
        if found is not None:
            found.data_path = path
            found.mute = mute
            holder.update_tag()
    undo(put_back)
    fcurve.mute = True
    fcurve.data_path = parked
    holder.update_tag()


@contextmanager
def sliders_muted(root) -> Iterator[None]:
    """The model shown without its slider drivers (the timeline's pose), then as before: each slider driver, and
    each driver a user muted on the model, parked meanwhile (``park_driver``)."""
    undo = Undo()
    try:
        for holder, fcurve in [(h, f) for h, f in _drivers(root) if f.mute or is_slider_driver(f)]:
            park_driver(holder, fcurve, undo)
        yield
    finally:
        undo.run()


def add_slider(root, name: str, initial: float, description: str) -> None:
    """The 0..1 custom property ``name`` on the model root."""
    root[name] = initial
    root.id_properties_ui(name).update(min=0.0, max=1.0, soft_min=0.0, soft_max=1.0, default=initial,
                                       description=description)


def slider_fcurve(holder, data_path: str, index: int, root, name: str, scale: float | None = None,
                  id_type: str = "OBJECT"):
    """A driver F-curve on ``holder`` reading the property ``name`` of ``root`` (the model root's slider, or an
    ID of ``id_type``), with no keys or modifiers: the keys the caller adds map the property's value (their x;
    times ``scale`` when given) to the value."""
    is_array = hasattr(holder.path_resolve(data_path), "__len__")
    fcurve = holder.driver_add(data_path, index) if is_array else holder.driver_add(data_path)
    driver = fcurve.driver
    if scale is None:
        driver.type = "AVERAGE"
    else:  # a simple expression: Blender evaluates it without Python, so with auto-run off too
        driver.type = "SCRIPTED"
        driver.expression = f"value * {float(scale)!r}"
    variable = driver.variables.new()
    variable.name = "value"
    variable.type = "SINGLE_PROP"
    variable.targets[0].id_type = id_type
    variable.targets[0].id = root
    variable.targets[0].data_path = f'["{bpy.utils.escape_identifier(name)}"]'
    for modifier in list(fcurve.modifiers):
        fcurve.modifiers.remove(modifier)
    for point in reversed(list(fcurve.keyframe_points)):
        fcurve.keyframe_points.remove(point)
    return fcurve
