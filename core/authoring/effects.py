"""Synthetic effects (FXID) and explosions (``.exp``) for samples and tests, at the retail extremes the world
digest and spec/retail-envelope.md give: every emitter type (type 6 only on request: none ships), the shipped
time modes, the most emitters one effect has (81), an effect with none, names using all 31 bytes, bytes after a
name's NUL and editor garbage (NaNs, denormals) in the unnamed floats, which the codec must carry.

The blocks built here are test data, not templates: the codec itself only ever copies blocks it read.
"""

from __future__ import annotations

import struct

import numpy as np

from ..animation.controller.codec import ACTION
from ..container.nres import Archive
from ..effects.exp import EXP_TYPE_ID, SLOT_COUNT, SURFACE_TAGS, explosion_of
from ..effects.fxid import FIELDS, FXID_TYPE_ID, HEADER, TYPES
from ..unit.text import BLOCK, with_text

EFFECTS = "effects.rlb"
EXPLOSIONS = "weapon.rlb"
MATERIALS = "Material.lib"
SOUNDS = "sounds.lib"
MOST_EMITTERS = 81
SHIPPED_MODES = (1, 0, 2, 4, 5, 15, 14, 16, 17)
GARBAGE = (struct.pack("<I", 0x7FC00001), struct.pack("<I", 0x00000001), struct.pack("<I", 0xFFFFFFFF))


def emitter_block(kind: int, window: tuple[float, float] = (0.0, 1.0), reference: tuple[str, str] | None = None,
                  flags: int = 0, garbage: bool = True, **fields) -> bytes:
    """A block of ``kind`` with its window, its (archive, member) (a default material or sound) and the named
    ``fields``; the unnamed bytes hold editor garbage when ``garbage``."""
    length, pair = TYPES[kind][1], TYPES[kind][2]
    raw = bytearray(length)
    if garbage:
        for i, at in enumerate(range(4, length - 3, 4)):
            raw[at:at + 4] = GARBAGE[i % len(GARBAGE)]
        named = [(at, struct.calcsize(fmt)) for at, fmt in FIELDS[kind].values()]
        for at, size in named:
            raw[at:at + size] = bytes(size)
    struct.pack_into("<I", raw, 0, kind | flags)
    values = dict(fields)
    if "window" in FIELDS[kind]:
        values.setdefault("window", window)
    for name, value in values.items():
        at, fmt = FIELDS[kind][name]
        struct.pack_into(fmt, raw, at, *(value if isinstance(value, (tuple, list)) else (value,)))
    if pair is not None:
        archive, member = reference or ((SOUNDS, "synth_boom.wav") if kind == 2 else (MATERIALS, "SYNTH_GLOW"))
        tail = b"\0editor" if garbage else b""
        raw[pair:pair + BLOCK] = with_text(tail.ljust(BLOCK, b"\0"), archive)
        raw[pair + BLOCK:pair + 2 * BLOCK] = with_text(tail.ljust(BLOCK, b"\0"), member)
    return bytes(raw)


def effect_bytes(blocks: list[bytes], mode: int = 1, duration: float = 1.5, flags: int = 0x16, switch: int = 0x311,
                 jitter: float = 0.0, tested_point=(0.0, 0.0, 0.0), scale=(1.0, 1.0, 1.0)) -> bytes:
    header = np.zeros((), HEADER)
    header["count"], header["mode"], header["duration"], header["jitter"] = len(blocks), mode, duration, jitter
    header["flags"], header["switch"], header["tested_point"], header["scale"] = flags, switch, tested_point, scale
    return header.tobytes() + b"".join(blocks)


def every_type_effect() -> bytes:
    """One block of each shipped type, in the order aim_exp_L plays them (bursts, sprites, a sound, a light),
    with a bolt, a stream and the sprite variants, each with its window a slice of the effect's time."""
    blocks = [
        emitter_block(7, (0.0, 0.6), flags=0x100, particle_count=(4, 5), life_divisor=1.0, phase_rate=-1.0),
        emitter_block(10, (0.0, 1.0), particle_count=(2, 3), size_low=(0.5, 0.5, 0.5), size_high=(2, 2, 2)),
        emitter_block(3, (0.01, 0.5), flags=0x100, phase=(0.0, 1.0, 1.0), fade=(1.0, 0.0, 1.0),
                      size_low=(1, 1, 1), size_high=(3, 3, 3)),
        emitter_block(4, (0.51, 1.0), phase=(-1.0, 9.0, 1.0)),
        emitter_block(9, (0.2, 0.9), reference=(MATERIALS, "SYNTH_GLOW_ANIM")),
        emitter_block(5, (0.0, 1.0), fade=(1.0, 0.0), most_sprites=20, width=(26.0, 13.0), repeat_length=5.0,
                      segment_length=50.0, phase=(-1.0, 9.0)),
        emitter_block(8, (0.0, 1.0), interval=(0.005, 0.2), ring_size=40, phase_exponent=1.0),
        emitter_block(2, (0.0, 0.1), sound_mode=0, near=3.0, far=40.0, rate_start=1.0, rate_end=1.0),
        emitter_block(1, (0.0, 0.3), light_kind=5, colour_start=(3.0, 2.0, 0.0, 1.0), colour_end=(0, 0, 0, 1),
                      range_start=30.0, range_end=3.0, attenuation=(0.0, 1.0, 0.0)),
    ]
    return effect_bytes(blocks, mode=1, duration=1.5, flags=0x16, switch=0x311, tested_point=(1.0, 0.0, 0.0))


def sample_effects() -> dict[str, bytes]:
    """FXID members by name: every type; one per struck surface; each shipped time mode; the most
    emitters; none; the longest names."""
    out = {"synth_exp": every_type_effect()}
    for tag in dict.fromkeys(SURFACE_TAGS):  # what the round's explosion plays on each struck surface
        out[f"synth_exp_{tag}"] = effect_bytes([emitter_block(3, (0.0, 1.0)), emitter_block(2, (0.0, 0.1))])
    for mode in SHIPPED_MODES:
        out[f"synth_mode_{mode}"] = effect_bytes([emitter_block(3, (0.0, 1.0)), emitter_block(2, (0.0, 0.1))],
                                                 mode=mode, duration=0.5 if mode == 0 else 3.0,
                                                 flags=0x21 if mode == 2 else 0x10, jitter=0.2, switch=0x5)
    out["synth_most"] = effect_bytes([emitter_block((3, 7, 8, 1)[i % 4], (i / 100, i / 100 + 0.1))
                                      for i in range(MOST_EMITTERS)], duration=5.0, flags=0x1016)
    out["synth_none"] = effect_bytes([], mode=0, duration=0.0, flags=0, switch=0)
    long = "x" * (BLOCK - 1)
    out["synth_long_names"] = effect_bytes([emitter_block(7, reference=(long, long))], scale=(0.1, 0.1, 0.1))
    return out


def effects_archive() -> Archive:
    archive = Archive()
    for name, data in sample_effects().items():
        archive.add(name, data, FXID_TYPE_ID)
    return archive


def sample_explosions() -> dict[str, bytes]:
    """``.exp`` members: a round's (kind 2, damage 1, every surface slot), an area blast at the largest retail
    damage, an effect-only one naming slot 0, and one naming nothing (two retail records fill no slot)."""
    surfaces = [(EFFECTS, f"synth_exp_{tag}") for tag in SURFACE_TAGS]
    out = {
        "synth_round.exp": explosion_of(2, 1.0, 2.0, 7, [(EFFECTS, "synth_exp"), *surfaces]),
        "synth_blast_b.exp": explosion_of(3, 800_000.0, 4.0, 0, [(EFFECTS, "synth_exp")]),
        "synth_spark_m.exp": explosion_of(1, 0.0, 3.0, 7, [(EFFECTS, "synth_mode_1")]),
        "synth_quiet.exp": explosion_of(1, 0.0, 2.0, 0, []),
    }
    assert len(surfaces) + 1 == SLOT_COUNT
    return {name: e.to_bytes() for name, e in out.items()}


def explosions_archive() -> Archive:
    archive = Archive()
    for name, data in sample_explosions().items():
        archive.add(name, data, EXP_TYPE_ID)
    return archive


def sample_files() -> dict[str, bytes]:
    """samples/effects/: the effect library and an archive of explosions naming its effects."""
    return {EFFECTS: effects_archive().to_bytes(), EXPLOSIONS: explosions_archive().to_bytes()}


def effect_record(action: int, values=(0, 0, 0, 0), archive: str = "", member: str = "", flags: int = 0) -> np.ndarray:
    """A controller section-5 record (core.animation.controller ACTION): ``action`` with its v4..v7 and names."""
    record = np.zeros((), ACTION)
    record["values"][0], record["values"][3] = flags, action
    record["values"][4:8] = values
    record["archive"], record["member"] = archive.encode("cp1251"), member.encode("cp1251")
    return record


def attaching_group(node: int = 1, points=(0, 1, 2), explode: int = 2) -> np.ndarray:
    """A load group that attaches the sample effects every way a controller can: on a node (started looping,
    timed by a node), on three control points, at the construction sphere, and an explosion on a node."""
    return np.array([effect_record(3, (node, 0, 0, 1), EFFECTS, "synth_exp"), effect_record(10, (1, 2, 0, 0)),
                     effect_record(14, (1, node, 0, 0)),
                     effect_record(4, (*points, 2), EFFECTS, "synth_mode_4"),
                     effect_record(5, (0, 0, 0, 3), EFFECTS, "synth_mode_1"),
                     effect_record(27, (explode, 0, 0, 0), EXPLOSIONS, "synth_round.exp")], ACTION)
