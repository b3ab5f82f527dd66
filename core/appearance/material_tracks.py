"""The MAT0 animation tracks as the game plays them (openparkan docs/07-objects.md; fparkan materials-texm.md 7).

A track (``mat0.AnimBlock``) is a mode (``header & 7``), a mask (``header >> 3``) and keys ``(entry, time_ms,
k2)``; a key's time is when its interval *ends*. At a track time t the game takes the key i whose interval
holds t (``key[i-1].time <= t < key[i].time``, ``key[-1].time = 0``) and shows
``lerp(entry[key i], entry[key (i+1) mod n], f)``, ``f = (t - key[i-1].time) / (key[i].time - key[i-1].time)``,
for the colours the mask names; every other field (texture, cell, power, the other alphas) comes from key i's
entry unchanged. So colours glide, texture and cell step.

Everything here works on arrays of times at once and returns plain numpy arrays. Decisions the sources leave
open are marked "Decision" and listed in docs/formats/material-animation.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import FormatError
from .mat0 import PHASE, AnimBlock, Material

LOOP, PING_PONG, ONCE, RANDOM = range(4)
U32 = 1 << 32
F32 = np.float32
CHUNK = 1 << 22  # keys x times compared at once when the key times are not in order

# Fields that glide when their mask bit is set, and the phase bytes (``mat0.PHASE["p"]``) that hold them.
GLIDING = {"ambient": (0x01, slice(0, 3)), "diffuse": (0x02, slice(4, 7)), "specular": (0x04, slice(8, 11)),
           "emissive": (0x08, slice(12, 15)), "ambient_alpha": (0x10, slice(3, 4))}
# Fields that always step (taken from the current key's entry).
STEPPING = {"diffuse_alpha": slice(7, 8), "specular_alpha": slice(11, 12), "emissive_alpha": slice(15, 16),
            "power": slice(16, 17), "cell": slice(17, 18)}


@dataclass
class TrackTimes:
    """Where a track is at each asked time (arrays of one length)."""

    time: np.ndarray        # int64: the track time in ms after the mode (0..period)
    key: np.ndarray         # int64: the current key i (its entry gives every stepping field)
    entry: np.ndarray       # int64: key i's entry (phase index)
    next_entry: np.ndarray  # int64: key (i + 1) mod n's entry, what the gliding fields head for
    factor: np.ndarray      # float32: f, the gliding fields' blend factor toward ``next_entry``
    mask: int

    def field(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(entry, entry it glides to, factor) for a field: a gliding field whose mask bit is clear, and every
        stepping field (texture, cell, power, other alphas), get (entry, entry, 0)."""
        if name in GLIDING and self.mask & GLIDING[name][0]:
            return self.entry, self.next_entry, self.factor
        if name not in GLIDING and name not in STEPPING and name != "texture":
            raise KeyError(name)
        return self.entry, self.entry, np.zeros_like(self.factor)


def timeline(block: AnimBlock, clock_ms, start_ms: int = 0, random_offset=0) -> TrackTimes:
    """The track at world times ``clock_ms`` (manager slot 3): t = clock - start, as the game's unsigned 32-bit
    milliseconds, then the mode.

    Decision: times are floored to whole milliseconds (the game's clock is an integer). Mode 3 (random) plays
    as a loop whose start is ``random_offset`` ms late: the game writes ``rand() % period`` into the start
    stamp (materials-texm.md 7.2); the caller draws it (a scalar: drawn once; an array: one per time).
    Modes 4-7, which no source names, play as a loop.
    """
    clock = np.floor(np.asarray(clock_ms, np.float64)).reshape(-1)
    if not np.all(np.isfinite(clock)):
        raise FormatError.single("MAT0", None, "track times must be finite numbers")
    t = (clock.astype(np.int64) - int(start_ms)) % U32
    return _at(block, t, np.asarray(random_offset, np.int64))


def timeline_at_fraction(block: AnimBlock, fraction) -> TrackTimes:
    """The track driven by a fraction (manager slot 5, a belt channel): f outside 0..1 (or NaN) becomes 0.5,
    t = period x f. Decision: t is truncated to whole ms and goes through the mode like the clock's time."""
    f = np.asarray(fraction, F32).reshape(-1)
    f = np.where((f >= 0) & (f <= 1), f, F32(0.5))
    period = _period(_keys(block))
    return _at(block, np.floor(F32(period) * f).astype(np.int64), np.int64(0))


def _keys(block: AnimBlock) -> np.ndarray:
    return block.keys


def _period(keys: np.ndarray) -> int:
    return int(keys["k1"][-1]) if len(keys) else 0  # the last key's time


def _at(block: AnimBlock, t: np.ndarray, offset: np.ndarray) -> TrackTimes:
    keys = _keys(block)
    n, period, mode, mask = len(keys), _period(keys), block.header & 7, block.header >> 3
    entries = keys["k0"].astype(np.int64)
    ends = keys["k1"].astype(np.int64)
    starts = np.concatenate([[0], ends[:-1]])
    if n <= 1 or period == 0:  # one key, or nothing to play over: static
        # Decision: a track without keys (every retail track has one; whether the game reads an empty one is
        # unknown: validate_mat0 warns) holds the material's first entry.
        zero = np.zeros(len(t), np.int64)
        first = entries[0] if n else 0
        return TrackTimes(zero, zero, zero + first, zero + first, np.zeros(len(t), F32), mask)
    turn = None  # only a ping-pong track turns
    if mode == ONCE:
        local = t
    elif mode == PING_PONG:
        there = t % (2 * period)
        turn = there == period
        local = np.where(there < period, there, 2 * period - there)
    elif mode == RANDOM:
        local = ((t - offset) % U32) % period
    else:
        local = t % period
    key, found = _bracket(starts, ends, local)
    hold = ~found  # past the last key (mode 2), or times out of order: hold the last key
    if turn is not None:  # at a ping-pong turn (t = period) the last interval ends: its glide is complete
        key = np.where(turn, n - 1, key)
        hold &= ~turn
    key = np.where(hold, n - 1, key)
    start = starts[key]
    with np.errstate(all="ignore"):
        span = (ends[key] - start).astype(F32)
        factor = ((local - start).astype(F32) / span).astype(F32)
    factor = np.where(hold, F32(0), factor)
    if turn is not None:
        factor = np.where(turn, F32(1), factor)
    factor = factor.astype(F32)
    entry = entries[key]
    following = np.where(hold, entry, entries[(key + 1) % n])
    return TrackTimes(local, key, entry, following, factor, mask)


def _bracket(starts: np.ndarray, ends: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The largest i with starts[i] <= t < ends[i], and whether there is one."""
    if np.all(np.diff(ends) >= 0):
        key = np.searchsorted(ends, t, side="right")
        found = key < len(ends)
        return np.minimum(key, len(ends) - 1), found
    key = np.zeros(len(t), np.int64)
    found = np.zeros(len(t), bool)
    step = max(1, CHUNK // len(ends))
    for at in range(0, len(t), step):
        part = t[at:at + step, None]
        inside = (starts[None, :] <= part) & (part < ends[None, :])
        last = len(ends) - 1 - np.argmax(inside[:, ::-1], axis=1)
        found[at:at + step] = inside.any(axis=1)
        key[at:at + step] = np.where(found[at:at + step], last, 0)
    return key, found


def field_values(material: Material, times: TrackTimes, name: str) -> np.ndarray:
    """The field's stored values (phase bytes, as float32) the game shows at each time, shape (times, width):
    ``a + (b - a) * f`` for a gliding field, the current entry's for a stepping one."""
    if name == "texture":
        raise KeyError("texture is a name: see texture_names")
    where = GLIDING[name][1] if name in GLIDING else STEPPING[name]
    entry, target, factor = times.field(name)
    _check_entries(material, entry, target)
    p = material.phases["p"][:, where].astype(F32)
    a, b = p[entry], p[target]
    return (a + (b - a) * factor[:, None]).astype(F32)


def phase_values(material: Material, times: TrackTimes) -> np.ndarray:
    """Every phase byte (``mat0.PHASE["p"]``) the game shows at each time, (times, 18) float32: ``field_values``
    of every field at once, value for value (one pass instead of one per field)."""
    glide = _gliding_bytes(times.mask & 0x1F)
    if glide is None:  # every field steps: the current entry's bytes
        _check_entries(material, times.entry)
        return material.phases["p"].astype(F32)[times.entry]
    _check_entries(material, times.entry, times.next_entry)
    p = material.phases["p"].astype(F32)
    a = p[times.entry]
    b = np.where(glide, p[times.next_entry], a)
    factor = np.where(glide, times.factor[:, None], F32(0)).astype(F32)
    return (a + (b - a) * factor).astype(F32)


@lru_cache(maxsize=32)
def _gliding_bytes(mask: int) -> np.ndarray | None:
    """Which phase bytes glide under ``mask`` (None: none)."""
    glide = np.zeros(PHASE["p"].shape[0], bool)
    for bit, where in GLIDING.values():
        glide[where] = bool(mask & bit)
    glide.setflags(write=False)
    return glide if glide.any() else None


def texture_names(material: Material, times: TrackTimes) -> list[str]:
    _check_entries(material, times.entry, times.entry)
    names = [material.texture_name(i) for i in range(len(material.phases))]
    return [names[i] for i in times.entry.tolist()]


def shown_textures(material: Material, times: TrackTimes) -> tuple[list[str], np.ndarray]:
    """``texture_names`` without a name per time: the distinct names in the order they are first shown, and the
    index into them at each time (``names[index[i]] == texture_names(...)[i]``). The entries are read where they
    change, not sorted."""
    _check_entries(material, times.entry, times.entry)
    entry = times.entry
    if not len(entry):
        return [], np.zeros(0, np.int64)
    changes = np.flatnonzero(entry[1:] != entry[:-1]) + 1
    name_of = {e: material.texture_name(e) for e in dict.fromkeys([int(entry[0]), *entry[changes].tolist()])}
    names = list(dict.fromkeys(name_of.values()))
    slot = {name: i for i, name in enumerate(names)}
    index = np.zeros(len(material.phases), np.int64)
    for e, name in name_of.items():
        index[e] = slot[name]
    return names, index[entry]


def field_steady(material: Material, times: TrackTimes, name: str) -> bool:
    """Whether every entry the field reads at ``times`` (each time's entry and the one it glides to) holds one
    value, so that ``field_values`` gives that value at every time; without computing them.
    False says nothing: the values may still be constant (a glide never sampled past its start)."""
    where = GLIDING[name][1] if name in GLIDING else STEPPING[name]
    entry, target, _factor = times.field(name)
    _check_entries(material, entry, target)
    p = material.phases["p"][:, where]
    used = np.zeros(len(p), bool)
    used[entry] = True
    used[target] = True
    rows = p[used]
    return len(rows) > 0 and bool((rows == rows[:1]).all())


def constant(values: np.ndarray) -> bool:
    """Whether every row of ``values`` (times, ...) equals the first: ``len(np.unique(values, axis=0)) == 1`` in
    one linear pass (the values are bytes as float32, never NaN)."""
    values = np.asarray(values)
    return len(values) > 0 and bool((values == values[:1]).all())


def _check_entries(material: Material, *entries: np.ndarray) -> None:
    top = max((int(e.max()) for e in entries if len(e)), default=-1)
    if top >= len(material.phases):
        raise FormatError.single("MAT0", None, f"track key names entry {top}; the material has "
                                               f"{len(material.phases)}")
