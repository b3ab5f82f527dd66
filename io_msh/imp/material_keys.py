"""Import planning of animated materials (MAT0 tracks, docs/format-notes.md "Material animation"): the keys of the
diffuse colour and the atlas cell over one cycle of a material's track 0 (the track an object mesh draws, 3.3).

Every value is what ``core.appearance.material_tracks`` gives at that time: colours glide (linear keys at every
Blender frame and interval end, in Blender's linear colour), the cell steps (constant keys where it changes).
Time: the material's clock starts at Blender frame 0, frame = ms x frame_rate / 1000. One cycle is the period
(loop, random: mode 3 plays as a loop whose drawn start offset is 0), twice the period (ping-pong, forward then
back), or the period then held (once).

No bpy: pure numpy on top of core.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.appearance.mat0 import material_of
from ...core.appearance.material_tracks import ONCE, PING_PONG, field_values, timeline
from ...core.appearance.resolve import Libraries, Look
from ...core.errors import FormatError
from ..com.colours import linear_rgba

PERIOD_LIMIT = 1 << 17  # ms of a cycle sampled (a u16 key time gives at most 2 x 65535)


@dataclass
class MaterialKeys:
    word: int
    mode: int
    cyclic: bool                 # repeat the keys (Cycles modifier); else hold the last value
    colour_frames: np.ndarray    # (k,) Blender frames
    colour: np.ndarray           # (k, 3) linear rgb of the diffuse colour
    colour_glides: bool          # mask 0x02: linear keys; else constant
    cell_frames: np.ndarray | None  # (c,) frames where the cell changes (None: it never does)
    cell_boxes: np.ndarray | None   # (c, 4) Direct3D (u0, v0, du, dv) shown from each


def plan_material_keys(looks: dict[int, Look], libraries: Libraries, frame_rate: float
                       ) -> tuple[dict[int, MaterialKeys], list[str]]:
    """Keys for every look whose material has a track that changes something; warnings for tracks that cannot
    be shown (an entry past the material's, for instance)."""
    out, warnings = {}, []
    archive = libraries.archive("materials")
    if archive is None:
        return out, warnings
    for word, look in looks.items():
        entry = archive.find(look.material_entry) if look.material_entry else None
        if entry is None:
            continue
        try:
            material = material_of(entry, look.material_entry)
            keys = _material_keys(word, material, libraries, frame_rate)
        except FormatError as exc:
            warnings.append(f"material {look.material_entry!r}: its animation is not shown: "
                            f"{exc.findings[0].message}")
            continue
        if keys is not None:
            out[word] = keys
    return out, warnings


def _material_keys(word: int, material, libraries: Libraries, frame_rate: float) -> MaterialKeys | None:
    if not material.animations:
        return None
    block = material.animations[0]
    if len(block.keys) < 2 or int(block.keys["k1"][-1]) == 0:
        return None  # one key or no period: static (3.2)
    period, mode, mask = int(block.keys["k1"][-1]), block.header & 7, block.header >> 3
    cycle = 2 * period if mode == PING_PONG else period
    ms = np.arange(min(cycle, PERIOD_LIMIT) + 1)
    times = timeline(block, ms)
    diffuse = field_values(material, times, "diffuse")
    glides = bool(mask & 0x02)
    ms_per_frame = 1000.0 / frame_rate
    if glides:  # every Blender frame, and every interval's end
        ends = block.keys["k1"].astype(np.float64)
        at_ms = np.union1d(np.arange(0, np.floor(cycle / ms_per_frame) + 1) * ms_per_frame,
                           np.concatenate([[0], ends, 2 * period - ends if mode == PING_PONG else []]))
        at_ms = at_ms[(at_ms >= 0) & (at_ms <= cycle)]
        colour_ms = np.floor(at_ms).astype(np.int64)
    else:
        at_ms = _changes(diffuse).astype(np.float64)
        colour_ms = at_ms.astype(np.int64)
    colour = np.array([linear_rgba(c / 255.0)[:3] for c in diffuse[colour_ms]])
    cells = field_values(material, times, "cell")[:, 0].astype(np.uint8).view(np.int8)
    texture_name = material.texture_name(0)
    _ref, texture, _note = libraries.texture("textures", texture_name)
    cell_frames = cell_boxes = None
    if texture is not None and len(np.unique(cells)) > 1:
        at = _changes(cells[:, None])
        cell_frames = at * frame_rate / 1000
        cell_boxes = np.array([texture.cell(int(c)) for c in cells[at]])
    if len(np.unique(diffuse, axis=0)) == 1 and cell_frames is None:
        return None
    return MaterialKeys(word, mode, mode != ONCE, at_ms * frame_rate / 1000, colour, glides, cell_frames, cell_boxes)


def _changes(values: np.ndarray) -> np.ndarray:
    """The indices (ms) where a (ms, width) run of values changes, 0 and the last one included."""
    changed = np.flatnonzero(np.any(values[1:] != values[:-1], axis=1)) + 1
    return np.unique(np.concatenate([[0], changed, [len(values) - 1]]))
