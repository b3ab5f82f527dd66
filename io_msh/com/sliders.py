"""The channel sliders an import with a controller makes (io_msh.imp.clip_actions): custom properties on the model
root named ``msh_channel <index> <node>``, read by drivers on their nodes. They are a view of the controller, not
part of the model: the export reads the model with them muted (``sliders_muted``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .hierarchy import descendants
from .props import CHANNEL as CHANNEL_PROPERTY


def is_slider_driver(fcurve) -> bool:
    """Whether a driver F-curve reads one of the root's channel sliders."""
    return any(target.data_path.startswith(f'["{CHANNEL_PROPERTY} ')
               for variable in fcurve.driver.variables for target in variable.targets)


def slider_drivers(root) -> list:
    """The slider drivers on the model: on the armature object's pose bones, or on the node Empties."""
    out = []
    for holder in (root, *descendants(root)):
        anim = holder.animation_data
        if anim is not None:
            out += [(holder, fcurve) for fcurve in anim.drivers if is_slider_driver(fcurve)]
    return out


@contextmanager
def sliders_muted(root) -> Iterator[None]:
    """The model shown without its slider drivers (the timeline's pose), then as before."""
    muted = [(holder, fcurve) for holder, fcurve in slider_drivers(root) if not fcurve.mute]
    for holder, fcurve in muted:
        fcurve.mute = True
        holder.update_tag()
    try:
        yield
    finally:
        for holder, fcurve in muted:
            fcurve.mute = False
            holder.update_tag()
