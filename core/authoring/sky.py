"""A synthetic ``sky.ske`` and ``sky.wea`` in the shape the shipped missions have (openparkan docs/10-sky.md): a
day of 0:15, the clock starting at 01:30, the sun up from 00:30 to 14:30 and the moon from 15:30 to 23:30, an
optional rain spell with its sound, version-3 keyframes, slot 0 holding editor heap addresses, and the
section headers' 23:59 times with the tail words of an editor session."""

from __future__ import annotations

import struct

from ..appearance.wear import Wear
from ..sky.ske import SLOTS, Keyframe, Section, Sky, Time

SKY_MATERIALS = ("ENV_NEBULA_0", "ENV_STARS", "ENV_CLOUDS", "ENV_SUN", "ENV_MOON", "ENV_FLARE_00",
                 "ENV_FLARE_01", "SNOWFLAKE", "RAIN_DROP")  # the nine roles by slot
EDITOR_WORD = 6939832  # the uninitialised section-header word of the files whose last word is 1
RAIN_SOUND = b"atm_rain1.wav"

# (hour, minute, opcode, first name, light, horizon, apex) of one day; 7 is the usual "no event"
DAY = ((0, 0, 7, b"", 0.0, (20, 24, 60), (2, 2, 10)),
       (0, 30, 0, b"sun", 0.2, (120, 90, 80), (20, 30, 80)),
       (3, 0, 7, b"", 1.2, (200, 170, 140), (60, 110, 200)),
       (6, 0, 3, b"", 1.5, (170, 190, 210), (70, 130, 220)),
       (7, 30, 4, b"", 1.5, (170, 190, 210), (70, 130, 220)),
       (9, 0, 7, b"", 1.6, (190, 205, 220), (80, 140, 230)),
       (12, 0, 7, b"", 1.0, (230, 150, 90), (90, 80, 150)),
       (14, 30, 1, b"sun", 0.2, (140, 70, 50), (30, 20, 70)),
       (15, 30, 0, b"moon", 0.1, (30, 35, 70), (5, 5, 25)),
       (19, 0, 7, b"", 0.4, (25, 30, 60), (3, 3, 15)),
       (23, 30, 1, b"moon", 0.1, (20, 24, 60), (2, 2, 10)),
       (23, 59, 7, b"", 0.0, (20, 24, 60), (2, 2, 10)))


def _colour(rgb: tuple[int, int, int], alpha: int = 255) -> int:
    red, green, blue = rgb
    return int.from_bytes(bytes((blue, green, red, alpha)), "little")


def _f32(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def _time(section: int, hour: int, minute: int, tail: tuple[int, int] = (0, 0)) -> Time:
    return Time((section, 0, 0, hour, minute, 0, *tail))


def _keyframe(section: int, row: tuple, index: int, rain: bool) -> Keyframe:
    hour, minute, opcode, body, light, horizon, apex = row
    if not rain and opcode in (3, 4):
        opcode = 7
    slots = [0] * SLOTS
    slots[0] = 0x01A3_0000 + 0x40 * index  # a heap address of the editor's (never copied)
    for slot in (1, 2, 3, 4):
        slots[slot] = _colour(horizon)
    for slot, share in ((7, 0.75), (8, 0.75), (9, 0.75), (10, 0.75), (11, 0.4), (12, 0.4), (13, 0.4), (14, 0.4)):
        slots[slot] = _colour(tuple(int(h * share + a * (1 - share)) for h, a in zip(horizon, apex, strict=True)))
    slots[15] = _colour(apex, 0 if light == 0.0 else 255)  # the apex is see-through at night
    slots[5], slots[6] = _f32(0.0), _f32(1.0)  # fog from 0 to 700 units
    slots[17] = _colour((255, 255, 255), 128)
    slots[18] = _colour((200, 200, 210))
    slots[19] = _colour(tuple(min(255, h + 40) for h in horizon))
    slots[20] = _colour(tuple(h // 4 for h in horizon))
    slots[21] = _colour(tuple(h // 6 for h in horizon))
    effects = (RAIN_SOUND,) if opcode == 3 else ()
    weather = 0.8 if opcode in (3, 4) else 0.0
    return Keyframe(3, _time(section, hour, minute), opcode, tuple(slots), (body, b"", b"", b"", b"", b""),
                    (_f32(1.6), _f32(1.1), _f32(light), _f32(weather)), effects)


def synthetic_sky(sections: int = 1, rain: bool = True, editor_session: bool = False,
                  day: tuple[int, int] = (0, 15), start: tuple[int, int] = (1, 30)) -> Sky:
    """A sky of ``sections`` days of twelve keyframes each."""
    tail = (1, EDITOR_WORD) if editor_session else (0, 0)
    days = [Section(1, _time(0, 23, 59, tail), _time(0, *day, tail),
                    [_keyframe(s, row, k, rain) for k, row in enumerate(DAY)]) for s in range(sections)]
    return Sky(days, _time(0, *start), 0, 1 if editor_session else 0)


def sky_wea() -> bytes:
    return Wear(list(SKY_MATERIALS)).to_bytes()


__all__ = ["RAIN_SOUND", "SKY_MATERIALS", "sky_wea", "synthetic_sky"]
