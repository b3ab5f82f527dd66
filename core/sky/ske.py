"""``sky.ske``, a mission's atmosphere: per section a day of keyframes (colour slots, the sun and moon, weather
events), read and written word for word (openparkan docs/10-sky.md, the layout of ``Terrain.dll``'s
deserialiser). Every word is kept as read, the unused ones too (slot 0 holds editor heap addresses, slot 16 is
never read, the section headers' 23:59 times and their tails), so an unedited file writes back byte for byte."""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, replace

from ..errors import Finding, FormatError, warning

STREAM = "sky.ske"
MAGIC = 0xFFFFFFFF
VERSION = 5  # the only version the loader takes ("Old version ske file / ReSave in SunEditor")
TIME_WORDS = 8  # a time: eight u32, +0 section, +0x0C hour, +0x10 minute
SLOTS = 22
SLOTS_V1 = 20  # keyframe version 1: slots 20-21 made from slot 19 x 0.3 by the loader
NAMES = 6
FLOATS = 4
KEYFRAME_VERSIONS = (1, 2, 3)  # 3 on 656 of 656 shipped keyframes; the loader also takes 1 and 2
OPCODES = 10  # 0..9
FLOAT_SLOTS = (5, 6)  # fog start / end / 700; every other slot is a BGRA colour
# the smallest keyframe: version, time, opcode, 20 slots, six empty names, four floats (no effect list)
SMALLEST_KEYFRAME = 4 + 4 * TIME_WORDS + 4 + 4 * SLOTS_V1 + 4 * NAMES + 4 * FLOATS


@dataclass(frozen=True)
class Time:
    """Eight u32 words: a clock stamp (section, hour, minute) and words kept as read."""

    words: tuple[int, ...]

    @property
    def section(self) -> int:
        return self.words[0]

    @property
    def hour(self) -> int:
        return self.words[3]

    @property
    def minute(self) -> int:
        return self.words[4]

    @property
    def minutes(self) -> int:
        """Minutes since midnight (the order keyframes are sorted in)."""
        return self.hour * 60 + self.minute

    def at(self, hour: int, minute: int) -> Time:
        words = list(self.words)
        words[3], words[4] = hour, minute
        return Time(tuple(words))


@dataclass
class Keyframe:
    """One stamp of a section's day. ``slots`` and ``floats`` are the u32 words as read (colours BGRA,
    slots 5 and 6 and the four floats f32 bits), so that NaN payloads survive too."""

    version: int
    time: Time
    opcode: int
    slots: tuple[int, ...]
    names: tuple[bytes, ...]
    floats: tuple[int, ...]
    effects: tuple[bytes, ...] | None  # version 3 only

    def colour(self, slot: int) -> tuple[int, int, int, int]:
        """Slot ``slot`` as (red, green, blue, alpha), 0-255."""
        blue, green, red, alpha = self.slots[slot].to_bytes(4, "little")
        return red, green, blue, alpha

    def with_colour(self, slot: int, rgba: tuple[int, int, int, int]) -> Keyframe:
        red, green, blue, alpha = rgba
        return self.with_slot(slot, int.from_bytes(bytes((blue, green, red, alpha)), "little"))

    def number(self, slot: int) -> float:
        """A float slot (5, 6)."""
        return _float(self.slots[slot])

    def with_slot(self, slot: int, word: int) -> Keyframe:
        slots = list(self.slots)
        slots[slot] = word
        return replace(self, slots=tuple(slots))

    @property
    def values(self) -> tuple[float, ...]:
        """The four floats: sprite extent across, extent up, light, weather intensity."""
        return tuple(_float(w) for w in self.floats)

    def with_values(self, values: tuple[float, ...]) -> Keyframe:
        return replace(self, floats=tuple(w if _same(_float(w), v) else _word(v)
                                          for w, v in zip(self.floats, values, strict=True)))

    @property
    def body(self) -> str:
        """``sun``, ``moon`` or empty: the first name, the only one used."""
        return self.names[0].decode("latin-1")


@dataclass
class Section:
    version: int
    unused_time: Time  # 23:59, read, never used
    day: Time  # the day's length in real hours and minutes
    keyframes: list[Keyframe] = field(default_factory=list)

    @property
    def day_seconds(self) -> int:
        return self.day.hour * 3600 + self.day.minute * 60

    def seconds_of(self, time: Time) -> int:
        """A stamp's real seconds into this section's day, in integers as the game computes it."""
        return time.minutes * 60 * self.day_seconds // 86_400


@dataclass
class Sky:
    sections: list[Section]
    start: Time  # where the clock starts: section, hour, minute
    unused: int  # i32, 0, read, never used
    handed: int  # i32, 0 or 1, handed to the sky, never read
    version: int = VERSION
    trailing: bytes = b""  # bytes after the last word (none shipped), carried


class _Reader:
    def __init__(self, data: bytes | memoryview, source: str) -> None:
        self.data, self.source, self.at = memoryview(data), source, 0

    def left(self) -> int:
        return len(self.data) - self.at

    def fail(self, index: int | None, message: str) -> FormatError:
        return FormatError.single(STREAM, index, f"{message} (at byte {self.at})", self.source)

    def words(self, count: int, index: int | None, what: str) -> tuple[int, ...]:
        if self.left() < 4 * count:
            raise self.fail(index, f"ends inside {what}")
        words = struct.unpack_from(f"<{count}I", self.data, self.at)
        self.at += 4 * count
        return words

    def word(self, index: int | None, what: str) -> int:
        return self.words(1, index, what)[0]

    def signed(self, index: int | None, what: str) -> int:
        return struct.unpack("<i", struct.pack("<I", self.word(index, what)))[0]

    def time(self, index: int | None, what: str) -> Time:
        return Time(self.words(TIME_WORDS, index, what))

    def string(self, index: int | None, what: str) -> bytes:
        length = self.signed(index, what)
        if length < 0 or length > self.left():
            raise self.fail(index, f"{what}: a length of {length} with {self.left()} byte(s) left")
        text = bytes(self.data[self.at:self.at + length])
        self.at += length
        return text


def parse_ske(data: bytes | memoryview, source: str = "") -> Sky:
    """The atmosphere; FormatError naming the section, keyframe and byte where the file breaks the layout."""
    reader = _Reader(data, source)
    magic, version, count = reader.words(3, None, "the header")
    if magic != MAGIC:
        raise reader.fail(None, f"starts with 0x{magic:08X}, not -1 (0xFFFFFFFF)")
    if version != VERSION:
        raise reader.fail(None, f"version {version}: the game reads version {VERSION} only")
    # every section holds at least its two header words and two times
    if count * (8 + 8 * TIME_WORDS) > reader.left():
        raise reader.fail(None, f"{count:,} sections cannot fit in {reader.left():,} bytes")
    sections = [_section(reader, index) for index in range(count)]
    start = reader.time(None, "the clock's start time")
    unused, handed = reader.words(2, None, "the last two words")
    trailing = bytes(reader.data[reader.at:])
    return Sky(sections, start, unused, handed, version, trailing)


def _section(reader: _Reader, index: int) -> Section:
    version, count = reader.words(2, index, f"section {index}'s header")
    unused, day = reader.time(index, f"section {index}'s header"), reader.time(index, f"section {index}'s day")
    if count * SMALLEST_KEYFRAME > reader.left():
        raise reader.fail(index, f"section {index}: {count:,} keyframes cannot fit in {reader.left():,} bytes")
    keyframes = [_keyframe(reader, index, k) for k in range(count)]
    return Section(version, unused, day, keyframes)


def _keyframe(reader: _Reader, section: int, index: int) -> Keyframe:
    what = f"section {section} keyframe {index}"
    version = reader.word(index, what)
    if version not in KEYFRAME_VERSIONS:
        raise reader.fail(index, f"{what}: version {version}; the game reads versions 1 to 3")
    time = reader.time(index, what)
    opcode = reader.word(index, what)
    slots = reader.words(SLOTS_V1 if version == 1 else SLOTS, index, f"{what}'s slots")
    names = tuple(reader.string(index, f"{what}'s name {n}") for n in range(NAMES))
    floats = reader.words(FLOATS, index, f"{what}'s floats")
    effects = None
    if version == 3:
        count = reader.signed(index, f"{what}'s effect list")
        if count < 0 or 4 * count > reader.left():
            raise reader.fail(index, f"{what}: {count} effects with {reader.left()} byte(s) left")
        effects = tuple(reader.string(index, f"{what}'s effect {n}") for n in range(count))
    return Keyframe(version, time, opcode, slots, names, floats, effects)


def write_ske(sky: Sky) -> bytes:
    """The file's bytes; ``parse_ske(write_ske(s))`` gives ``s`` back, and an unedited file its bytes."""
    out = [struct.pack("<3I", MAGIC, sky.version, len(sky.sections))]
    for section in sky.sections:
        out.append(struct.pack("<2I", section.version, len(section.keyframes)))
        out.append(_time(section.unused_time) + _time(section.day))
        for key in section.keyframes:
            out.append(struct.pack("<I", key.version) + _time(key.time) + struct.pack("<I", key.opcode))
            out.append(struct.pack(f"<{len(key.slots)}I", *key.slots))
            out.extend(_string(name) for name in key.names)
            out.append(struct.pack(f"<{FLOATS}I", *key.floats))
            if key.version == 3:
                effects = key.effects or ()
                out.append(struct.pack("<i", len(effects)))
                out.extend(_string(name) for name in effects)
    out.append(_time(sky.start) + struct.pack("<2I", sky.unused, sky.handed) + sky.trailing)
    return b"".join(out)


def validate_ske(data: bytes | memoryview) -> list[Finding]:
    """What the layout refuses (errors), then what the game would play oddly (warnings: carried as read)."""
    try:
        sky = parse_ske(data)
    except FormatError as exc:
        return exc.findings
    return check_sky(sky)


def check_sky(sky: Sky) -> list[Finding]:
    """Warnings only: nothing here is a rule every shipped file obeys that the loader enforces."""
    found = []
    if sky.trailing:
        found.append(warning(STREAM, None, f"{len(sky.trailing)} byte(s) after the last word (carried)"))
    if not sky.sections:
        found.append(warning(STREAM, None, "no section: the game has no day to play"))
    elif sky.start.section >= len(sky.sections):
        found.append(warning(STREAM, None, f"the clock starts in section {sky.start.section}, of "
                                           f"{len(sky.sections)}"))
    for s, section in enumerate(sky.sections):
        found += _check_section(s, section)
    return found


def _check_section(s: int, section: Section) -> list[Finding]:
    found = []
    if section.day_seconds == 0:
        found.append(warning(STREAM, s, f"section {s}: a day of 0:00 puts every keyframe at once"))
    minutes = [key.time.minutes for key in section.keyframes]
    if minutes != sorted(minutes):
        found.append(warning(STREAM, s, f"section {s}: keyframes not in time order (the game sorts them)"))
    running: dict[str, int] = {}
    for k, key in enumerate(section.keyframes):
        place = f"section {s} keyframe {k}"
        if key.version != 3:
            found.append(warning(STREAM, k, f"{place}: version {key.version} (\"Atmosphere file version is not "
                                            "up to date\")"))
        if key.time.hour > 24 or key.time.minute > 59:
            found.append(warning(STREAM, k, f"{place}: stamped {key.time.hour}:{key.time.minute:02d}"))
        if key.opcode >= OPCODES:
            found.append(warning(STREAM, k, f"{place}: event {key.opcode}, of 0 to 9 (the game does nothing)"))
        event = EVENTS.get(key.opcode)
        if event is None:
            continue
        name, starting = event
        if starting:
            if name in ("rain", "lightning") and not (key.effects or ()):
                what = "sound" if name == "rain" else "effect"
                found.append(warning(STREAM, k, f"{place}: {name} starts without its {what} (the game says "
                                                f"\"{name.capitalize()} ... not specified\")"))
            running[name] = k
        elif running.pop(name, None) is None and name not in ("sun", "moon"):
            found.append(warning(STREAM, k, f"{place}: {name} stops without having started"))
    for name, k in running.items():
        if name not in ("sun", "moon"):
            found.append(warning(STREAM, k, f"section {s} keyframe {k}: {name} starts and never stops"))
    return found


# opcode: (what it starts or stops, whether it starts); 0 and 1 start and stop a body (sun or moon,
# by the first name), 2 and 7 do nothing
EVENTS = {0: ("sun", True), 1: ("sun", False), 3: ("rain", True), 4: ("rain", False), 5: ("snow", True),
          6: ("snow", False), 8: ("lightning", True), 9: ("lightning", False)}


def _time(time: Time) -> bytes:
    return struct.pack(f"<{TIME_WORDS}I", *time.words)


def _string(text: bytes) -> bytes:
    return struct.pack("<i", len(text)) + text


def _float(word: int) -> float:
    return struct.unpack("<f", struct.pack("<I", word))[0]


def _same(old: float, new: float) -> bool:
    """A value left as it was keeps its word (a NaN too, whose payload a round trip through float would
    change)."""
    return old == new or (math.isnan(old) and math.isnan(new))


def _word(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


__all__ = ["EVENTS", "FLOAT_SLOTS", "Keyframe", "Section", "Sky", "Time", "check_sky", "parse_ske", "validate_ske",
           "write_ske"]
