"""FXID effects (``effects.rlb``; dragonee/openparkan docs/11-effects.md, engine fxid.rs): a 60-byte header,
then exactly ``count`` emitter blocks, nothing after.

A block's first word has the emitter type in its low byte (1-10); the type fixes the block's length and where
its (archive, member) pair sits (a material in ``Material.lib``, or for a sound a ``.wav`` in ``sounds.lib``).
Only some fields are named; the rest hold editor garbage (NaNs, denormals) that is carried byte for byte. So an
effect is written by editing named fields in place, and new blocks are copies of existing ones.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from ..container.nres import name_bytes
from ..errors import Finding, FormatError, error, warning
from ..unit.text import BLOCK, block_name, block_text, with_text

STREAM = "fxid"
FXID_TYPE_ID = int.from_bytes(b"FXID", "little")
HEADER = np.dtype([("count", "<u4"), ("mode", "<u4"), ("duration", "<f4"), ("jitter", "<f4"), ("flags", "<u4"),
                   ("switch", "<u4"), ("offset", "<f4", (3,)), ("tested_point", "<f4", (3,)),
                   ("scale", "<f4", (3,))])
HEADER_SIZE = HEADER.itemsize
assert HEADER_SIZE == 60
WORD = struct.Struct("<I")
TYPE_MASK = 0xFF
DEPTH_OFF_IN_VIEW = 0x100  # word bit 8: drawn with depth test off while the tested point is in view

# type -> (name, block length, where the (archive, member) pair starts or None)
TYPES = {1: ("light", 224, None), 2: ("sound", 148, 84), 3: ("sprite", 200, 136), 4: ("sprite variant", 204, 136),
         5: ("bolt", 112, 48), 6: ("empty", 4, None), 7: ("burst", 208, 144), 8: ("stream", 248, 184),
         9: ("sprite (own draw)", 208, 136), 10: ("burst (own start)", 208, 144)}
SHIPPED_TYPES = (1, 2, 3, 4, 5, 7, 8, 9, 10)  # no retail effect has a type-6 block

TIME_MODES = {0: "set from outside", 1: "once", 2: "loop", 3: "reverse", 4: "node's animation value",
              5: "speed", 6: "speed x", 7: "speed y", 8: "speed z", 9: "spin", 10: "spin x", 11: "spin y",
              12: "spin z", 13: "1 - attach point value", 14: "1 - life", 15: "max of speed and spin",
              16: "node value while rising", 17: "node value while falling"}
FLAGS = {0x1: "jitter t", 0x2: "delete at end", 0x4: "stay where it went off", 0x8: "random offset",
         0x10: "run while hidden", 0x20: "ping-pong", 0x40: "start off", 0x80: "hold while manager bit clear",
         0x100: "hold while manager bit set", 0x200: "times linear progress", 0x400: "hidden with tested point",
         0x800: "pass-argument draws only", 0x1000: "manager's target point", 0x2000: "no fog",
         0x8000: "skip hidden-node test", 0x10000: "unread"}
SWITCHES = {0x000: "Dust", 0x001: "Smoke", 0x002: "Engine fire", 0x003: "Explode", 0x004: "Shield",
            0x005: "Lights", 0x106: "Dust", 0x107: "Smoke", 0x108: "Explode", 0x109: "Shield", 0x10A: "Lights",
            0x10F: "Lights", 0x20B: "Smoke", 0x20C: "Engine fire", 0x20D: "Explode", 0x20E: "Gun fire",
            0x310: "Smoke", 0x311: "Explode", 0x312: "Gun fire", 0x313: "Lights"}

_SPRITE = {"phase": (8, "<3f"), "fade": (20, "<3f"), "window": (32, "<2f"), "position_low": (40, "<3f"),
           "position_high": (52, "<3f"), "position_exponent": (64, "<3f"), "direction_low": (76, "<3f"),
           "direction_high": (88, "<3f"), "size_low": (100, "<3f"), "size_high": (112, "<3f"),
           "size_exponent": (124, "<3f")}
_BURST = {"sprite_mode": (4, "<I"), "fade": (8, "<3f"), "window": (20, "<2f"), "life_divisor": (28, "<f"),
          "phase_rate": (32, "<f"), "particle_count": (36, "<2I"), "position_low": (44, "<3f"),
          "position_high": (56, "<3f"), "position_jitter": (68, "<3f"), "position_exponent": (80, "<3f"),
          "size_low": (92, "<3f"), "size_high": (104, "<3f"), "size_jitter": (116, "<3f"),
          "size_exponent": (128, "<3f")}
# The named fields of each type (offset from the block start, struct format); everything else is unknown.
FIELDS: dict[int, dict[str, tuple[int, str]]] = {
    1: {"light_kind": (4, "<I"), "window": (8, "<2f"), "position_start": (16, "<3f"), "position_end": (28, "<3f"),
        "direction_start": (40, "<3f"), "direction_end": (52, "<3f"), "colour_start": (64, "<4f"),
        "colour_end": (80, "<4f"), "colour_jitter": (96, "<f"), "range_start": (112, "<f"),
        "range_end": (116, "<f"), "range_jitter": (120, "<f"), "attenuation": (124, "<3f")},
    2: {"sound_mode": (4, "<I"), "window": (8, "<2f"), "position_start": (16, "<3f"), "position_end": (28, "<3f"),
        "near": (64, "<f"), "far": (68, "<f"), "rate_start": (72, "<f"), "rate_end": (76, "<f"),
        "buffer_mode": (80, "<I")},
    3: _SPRITE, 4: _SPRITE, 9: _SPRITE,
    5: {"fade": (4, "<2f"), "window": (12, "<2f"), "most_sprites": (20, "<I"), "width": (24, "<2f"),
        "repeat_length": (32, "<f"), "segment_length": (36, "<f"), "phase": (40, "<2f")},
    6: {},
    7: _BURST, 10: _BURST,
    8: {"fade": (4, "<3f"), "window": (16, "<2f"), "interval": (24, "<2f"), "phase_exponent": (32, "<f"),
        "ring_size": (36, "<I"), "position_low": (88, "<3f"), "position_high": (100, "<3f"),
        "position_jitter": (112, "<3f"), "position_exponent": (124, "<3f"), "size_low": (136, "<3f"),
        "size_high": (148, "<3f"), "size_jitter": (160, "<3f"), "size_exponent": (172, "<3f")},
}
HEADER_FIELDS = ("mode", "duration", "jitter", "flags", "switch", "offset", "tested_point", "scale")


def _value(raw: bytes | bytearray, at: int, fmt: str) -> float | int | tuple:
    values = struct.unpack_from(fmt, raw, at)
    return values[0] if len(values) == 1 else tuple(values)


@dataclass
class Emitter:
    """One emitter block, every byte kept; named fields are read and written in place."""

    raw: bytearray

    @property
    def word(self) -> int:
        return WORD.unpack_from(self.raw, 0)[0]

    @property
    def type(self) -> int:
        return self.raw[0]

    @property
    def type_name(self) -> str:
        return TYPES[self.type][0]

    @property
    def fields(self) -> dict[str, float | int | tuple]:
        return {name: _value(self.raw, at, fmt) for name, (at, fmt) in FIELDS[self.type].items()}

    def get(self, name: str) -> float | int | tuple:
        at, fmt = self._field(name)
        return _value(self.raw, at, fmt)

    def set(self, name: str, value: float | int | tuple | list) -> None:
        """Write a named field; a value equal to the one read keeps its bytes (a NaN stays the NaN read)."""
        at, fmt = self._field(name)
        values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
        try:
            new = struct.pack(fmt, *values)
        except (struct.error, OverflowError) as exc:  # out of the field's range, or past float32
            raise FormatError.single(STREAM, None, f"{self.type_name} field {name!r}: {exc}") from None
        old = bytes(self.raw[at:at + len(new)])
        if new != old and not _same_values(struct.unpack(fmt, new), struct.unpack(fmt, old)):
            self.raw[at:at + len(new)] = new

    @property
    def window(self) -> tuple[float, float] | None:
        return self.get("window") if "window" in FIELDS[self.type] else None

    @property
    def reference(self) -> tuple[str, str] | None:
        """(archive, member) as text, or None for the types that name nothing (lights, type 6)."""
        at = TYPES[self.type][2]
        if at is None:
            return None
        return block_text(bytes(self.raw[at:at + BLOCK])), block_text(bytes(self.raw[at + BLOCK:at + 2 * BLOCK]))

    def set_reference(self, archive: str | bytes, member: str | bytes) -> None:
        """Rename the material or sound; each name's bytes after its NUL are kept."""
        at = TYPES[self.type][2]
        if at is None:
            raise FormatError.single(STREAM, None, f"a {self.type_name} emitter names no material or sound")
        for start, text in ((at, archive), (at + BLOCK, member)):
            old = bytes(self.raw[start:start + BLOCK])
            if block_name(old) != name_bytes(text):
                self.raw[start:start + BLOCK] = with_text(old, text)

    def _field(self, name: str) -> tuple[int, str]:
        try:
            return FIELDS[self.type][name]
        except KeyError:
            raise FormatError.single(STREAM, None, f"{name!r} is not a named field of a {self.type_name} emitter "
                                                   f"(named: {', '.join(FIELDS[self.type]) or 'none'})") from None

    def copy(self) -> Emitter:
        return Emitter(bytearray(self.raw))

    def summary(self) -> dict:
        out = {"type": self.type, "type_name": self.type_name, "word": f"{self.word:#x}",
               "depth_off_in_view": bool(self.word & DEPTH_OFF_IN_VIEW)}
        out.update({k: _plain(v) for k, v in self.fields.items()})
        if self.reference is not None:
            out["reference"] = list(self.reference)
        return out


def _same_values(a: tuple, b: tuple) -> bool:
    return all(x == y or (x != x and y != y) for x, y in zip(a, b))


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return float(value) if isinstance(value, float) and np.isfinite(value) else (
        value if isinstance(value, int) else repr(value))


@dataclass
class Effect:
    """An FXID as read. The header's count is written as the number of blocks (the same bytes when unchanged)."""

    header: np.ndarray = field(default_factory=lambda: np.zeros((), HEADER))
    emitters: list[Emitter] = field(default_factory=list)
    trailing: bytes = b""  # bytes after the last block (a tolerant read only; no retail effect has them)

    def get(self, name: str) -> float | int | tuple:
        value = self.header[_header_field(name)]
        return tuple(float(v) for v in value) if value.shape else value.item()

    def set(self, name: str, value) -> None:
        """Write a header field; a value equal to the one read keeps its bytes. Packed as an emitter's fields are:
        a number the field cannot hold (an integer out of its range or not whole, a float past float32's) is
        refused."""
        name = _header_field(name)
        old = self.header[name]
        values = tuple(value) if isinstance(value, (tuple, list, np.ndarray)) else (value,)
        if len(values) != old.size:
            raise FormatError.single(STREAM, None, f"header field {name!r} takes {old.size} values")
        try:
            packed = struct.pack(f"<{old.size}{'f' if old.dtype.kind == 'f' else 'I'}", *values)
        except (struct.error, OverflowError) as exc:  # out of the field's range, or past float32
            raise FormatError.single(STREAM, None, f"header field {name!r}: {exc}") from None
        new = np.frombuffer(packed, old.dtype).reshape(old.shape)
        if new.tobytes() != old.tobytes() and not np.array_equal(new, old, equal_nan=new.dtype.kind == "f"):
            self.header[name] = new

    @property
    def mode(self) -> int:
        return int(self.header["mode"])

    @property
    def flags(self) -> int:
        return int(self.header["flags"])

    def copy_emitter(self, index: int, source: Effect | None = None, at: int | None = None) -> Emitter:
        """Add a copy of emitter ``index`` (of ``source``, default this effect) at position ``at`` (default: the
        end). New blocks are only ever copies: a block's unnamed bytes have no known defaults."""
        donor = (source or self).emitters
        if not 0 <= index < len(donor):
            raise FormatError.single(STREAM, index, f"no emitter {index} (the effect has {len(donor)})")
        block = donor[index].copy()
        self.emitters.insert(len(self.emitters) if at is None else at, block)
        return block

    def to_bytes(self) -> bytes:
        header = self.header.copy()
        header["count"] = len(self.emitters)
        return header.tobytes() + b"".join(bytes(e.raw) for e in self.emitters) + self.trailing

    def summary(self) -> dict:
        flags = self.flags
        return {"emitters": len(self.emitters), "mode": self.mode, "mode_meaning": TIME_MODES.get(self.mode, "unknown"),
                "duration": float(self.header["duration"]), "jitter": float(self.header["jitter"]),
                "flags": f"{flags:#x}", "flag_names": [n for bit, n in FLAGS.items() if flags & bit],
                "switch": f"{int(self.header['switch']):#x}",
                "switch_name": SWITCHES.get(int(self.header["switch"]), "unknown"),
                "tested_point": [float(v) for v in self.header["tested_point"]],
                "scale": [float(v) for v in self.header["scale"]],
                "blocks": [e.summary() for e in self.emitters]}


def _header_field(name: str) -> str:
    if name not in HEADER_FIELDS:
        raise FormatError.single(STREAM, None, f"{name!r} is not a header field (fields: {', '.join(HEADER_FIELDS)})")
    return name


def _walk(data: bytes | memoryview, source: str, tolerant: bool) -> tuple[Effect, list[Finding]]:
    raw = bytes(data)
    if len(raw) < HEADER_SIZE:
        raise FormatError.single(STREAM, None, f"{len(raw)} bytes: an effect starts with a {HEADER_SIZE}-byte header",
                                 source)
    header = np.frombuffer(raw, HEADER, 1)[0].copy()
    count = int(header["count"])
    left = len(raw) - HEADER_SIZE
    if count * WORD.size > left:  # the smallest block is one word: checked before anything is sized by count
        raise FormatError.single(STREAM, None, f"emitter count {count} needs at least {count * WORD.size} bytes; "
                                               f"{left} follow the header", source)
    emitters: list[Emitter] = []
    at = HEADER_SIZE
    for i in range(count):
        if at + WORD.size > len(raw):
            raise FormatError.single(STREAM, i, f"emitter {i} starts at byte {at}, past the end ({len(raw)} bytes)",
                                     source)
        kind = raw[at]
        if kind not in TYPES:
            raise FormatError.single(STREAM, i, f"emitter {i} at byte {at}: type word {WORD.unpack_from(raw, at)[0]:#x}"
                                                f" has type {kind}, none of 1-10", source)
        length = TYPES[kind][1]
        if at + length > len(raw):
            raise FormatError.single(STREAM, i, f"emitter {i} ({TYPES[kind][0]}, {length} bytes at byte {at}) runs "
                                                f"past the end of the {len(raw)}-byte effect", source)
        emitters.append(Emitter(bytearray(raw[at:at + length])))
        at += length
    trailing = raw[at:]
    findings: list[Finding] = []
    if trailing:
        message = f"{len(trailing)} bytes follow the last of the {count} emitters"
        if not tolerant:
            raise FormatError.single(STREAM, None, message + " (every effect ends with its last block)", source)
        findings.append(warning(STREAM, None, message + " (kept)"))
    return Effect(header, emitters, trailing), findings


def parse_fxid(data: bytes | memoryview, source: str = "") -> Effect:
    """Strict: FormatError unless the header and exactly ``count`` blocks of known types fill the bytes."""
    return _walk(data, source, tolerant=False)[0]


def read_fxid(data: bytes | memoryview, source: str = "") -> tuple[Effect, list[Finding]]:
    """Tolerant: bytes after the last block are a warning and are kept; values no retail effect has are
    warnings. FormatError only when the blocks cannot be walked (a type outside 1-10, a block past the end)."""
    effect, findings = _walk(data, source, tolerant=True)
    return effect, findings + _value_checks(effect)


def validate_fxid(data: bytes | memoryview) -> list[Finding]:
    """Errors for what the game cannot walk (strict framing); warnings for unusual values."""
    try:
        effect = _walk(data, "", tolerant=True)[0]
    except FormatError as exc:
        return exc.findings
    out = [error(STREAM, None, f"{len(effect.trailing)} bytes follow the last emitter (every retail effect ends "
                               "with its last block)")] if effect.trailing else []
    return out + _value_checks(effect)


def _value_checks(effect: Effect) -> list[Finding]:
    out: list[Finding] = []
    if effect.mode not in TIME_MODES:
        out.append(warning(STREAM, None, f"time mode {effect.mode} is none of 0-17 (kept; t stays 0)"))
    duration = float(effect.header["duration"])
    if not np.isfinite(duration) or duration < 0:
        out.append(warning(STREAM, None, f"duration {duration} is not a finite time >= 0 (kept)"))
    for i, e in enumerate(effect.emitters):
        if e.type not in SHIPPED_TYPES:
            out.append(warning(STREAM, i, f"a type-{e.type} block, which no retail effect has (kept)"))
        window = e.window
        if window is not None and not (0.0 <= window[0] <= window[1] <= 1.0):
            out.append(warning(STREAM, i, f"window {window[0]!r}..{window[1]!r} is not an ordered span inside 0..1 "
                                          "(kept)"))
        at = TYPES[e.type][2]
        if at is not None:
            names = bytes(e.raw[at:at + 2 * BLOCK])
            if b"\0" not in names[:BLOCK] or b"\0" not in names[BLOCK:]:
                out.append(warning(STREAM, i, f"name has no NUL within its {BLOCK} bytes"))
            elif not block_name(names[BLOCK:]):
                out.append(warning(STREAM, i, f"the {e.type_name} names no {'sound' if e.type == 2 else 'material'}"))
    return out
