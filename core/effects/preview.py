"""What a Blender preview of an FXID emitter shows, in plain numbers from its named fields (core.effects.fxid
FIELDS; dragonee/openparkan docs/11-effects.md "How an effect runs", the burst and stream tables): for a burst
(types 7, 10) and a stream (8) a particle system's count, emission start and end, lifetime, speed and size; for
a sprite (3, 4, 9) a camera-facing square's window and its size at the window's start and end.

A preview approximates: the game's channels (low + (high - low) x progress^exponent, a jitter added at spawn)
and its random generator are not reproduced; a particle flies at one speed, |position high - position low| over
its life, in a direction Blender picks; a sprite grows linearly. Times are seconds from the effect's start (the
window, a fraction of the effect's duration, times that duration). Nothing here is written back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BURSTS, STREAM = (7, 10), 8
PARTICLE_TYPES = (*BURSTS, STREAM)
SPRITE_TYPES = (3, 4, 9)
MOST_PARTICLES = 10_000   # a preview's cap (retail counts are far below it)
LEAST_SIZE = 0.05         # a size of 0 (or garbage) is shown this big, so that the preview can be seen


@dataclass(frozen=True)
class ParticlePreview:
    count: int
    start: float       # seconds
    end: float         # seconds (a burst: its start)
    lifetime: float    # seconds
    speed: float       # metres per second
    size: float        # metres


@dataclass(frozen=True)
class SpritePreview:
    start: float
    end: float
    size_start: float
    size_end: float
    material: str      # the material the emitter names ("" when none)


def _number(value, default: float) -> float:
    """A named field's value as a finite float (the summary gives garbage words as text)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return default
    return float(value)


def _triple(value) -> tuple[float, float, float]:
    if not isinstance(value, list | tuple) or len(value) < 3:
        return 0.0, 0.0, 0.0
    return tuple(_number(v, 0.0) for v in value[:3])


def _window(header: dict, block: dict) -> tuple[float, float]:
    duration = _number(header.get("duration"), 1.0)
    duration = duration if duration > 0 else 1.0
    window = block.get("window") or (0.0, 1.0)
    low, high = (min(max(_number(v, d), 0.0), 1.0) for v, d in zip(window, (0.0, 1.0)))
    return low * duration, max(low, high) * duration


def _size(triple) -> float:
    size = max(abs(v) for v in _triple(triple))
    return size if size > 0 else LEAST_SIZE


def particle_preview(header: dict, block: dict) -> ParticlePreview | None:
    """A burst's or stream's particle system; None for another type."""
    kind = block.get("type")
    if kind not in PARTICLE_TYPES:
        return None
    start, end = _window(header, block)
    travel = math.dist(_triple(block.get("position_high")), _triple(block.get("position_low")))
    size = _size(block.get("size_low"))
    if kind in BURSTS:  # all at once as its window opens; age = (phase - spawn) / life divisor
        counts = block.get("particle_count") or (1, 1)
        count = int(_number(counts[0], 1)) * int(_number(counts[1], 1)) if len(counts) == 2 else 1
        divisor = _number(block.get("life_divisor"), 0.0)
        lifetime = divisor if divisor > 0 else max(end - start, 0.1)
        end = start
    else:               # one particle an interval over its window; each lives ring-size intervals
        low, high = (_number(v, 0.05) for v in (block.get("interval") or (0.05, 0.05))[:2])
        interval = (low + high) / 2 if low > 0 and high > 0 else 0.05
        count = round((end - start) / interval)
        lifetime = max(1, int(_number(block.get("ring_size"), 1))) * interval
    return ParticlePreview(min(max(count, 1), MOST_PARTICLES), start, end, lifetime, travel / lifetime, size)


def sprite_preview(header: dict, block: dict) -> SpritePreview | None:
    """A sprite's camera-facing square; None for another type."""
    if block.get("type") not in SPRITE_TYPES:
        return None
    start, end = _window(header, block)
    reference = block.get("reference") or ("", "")
    material = reference[1] if isinstance(reference, list | tuple) and len(reference) == 2 else ""
    return SpritePreview(start, end, _size(block.get("size_low")), _size(block.get("size_high")), str(material))


def sprite_textures(names, libraries) -> dict:
    """Material name -> the TextureRef (core.appearance.resolve) of its first phase's texture, for the names that
    are in the material library (``libraries``: a resolve.Libraries) and whose texture is in the texture library;
    the rest are left out (their previews are plain)."""
    from ..appearance.mat0 import MAT0_TYPE_ID, material_of
    from ..errors import FormatError
    out = {}
    for name in sorted(set(names)):
        entry = libraries.find("materials", name) if name else None
        if entry is None or entry.type_id != MAT0_TYPE_ID:
            continue
        try:
            texture = material_of(entry, name).texture_name(0)
        except FormatError:
            continue
        ref = libraries.texture("textures", texture)[0]
        if ref is not None:
            out[name] = ref
    return out
