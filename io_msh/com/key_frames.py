"""Where keys can sit on one F-curve (no bpy).

Blender takes two keys of an F-curve closer than 0.01 frame for one: ``FCurve.update`` (which the import calls
after writing keys) merges them into a key at the first one's frame holding the last one's value
(``BEZT_BINARYSEARCH_THRESH``). A key at a step start or an interval end that close to an integer frame's key
would change the value shown at that integer frame; ``spaced`` drops it, the integer frame's key standing for it.
"""

from __future__ import annotations

import numpy as np

MERGE_DISTANCE = 0.01 + 1e-4  # frames: keys this close are one for Blender (with room for float32 key frames)


def spaced(frames: np.ndarray, whole: np.ndarray | None = None) -> np.ndarray:
    """bool mask over sorted, distinct key ``frames`` (``whole``: which are integer frames; default: those equal
    to an integer): every integer frame is kept, and every other frame farther than Blender's merge distance
    from the integer frames and from the other frames kept before it."""
    frames = np.asarray(frames, np.float64)
    whole = frames == np.round(frames) if whole is None else np.asarray(whole, bool)
    keep = whole.copy()
    integers = frames[whole]
    others = np.flatnonzero(~whole)
    if len(integers):
        at = np.searchsorted(integers, frames[others])
        below = np.abs(frames[others] - integers[np.maximum(at - 1, 0)])
        above = np.abs(integers[np.minimum(at, len(integers) - 1)] - frames[others])
        others = others[np.minimum(below, above) > MERGE_DISTANCE]
    last = -np.inf
    for i in others:  # usually all of them: only a step or interval shorter than 0.01 frame drops one here
        if frames[i] - last > MERGE_DISTANCE:
            keep[i] = True
            last = frames[i]
    return keep
