"""Res10 node labels (msh-core.md 5.9) and Res9 node names (32 bytes each); text is cp1251."""

from __future__ import annotations

import struct

from ..container.nres import game_bytes, game_text

_LEN = struct.Struct("<I")


class LabelError(ValueError):
    def __init__(self, index: int, message: str) -> None:
        self.index = index
        super().__init__(message)


def decode_labels(data: bytes | memoryview) -> list[bytes | None]:
    """Parse every Res10 record: None where len == 0, else the text without its NUL.

    Raises LabelError (with the record index) for a truncated record or a missing NUL terminator (every
    retail record is terminated: spec/retail-envelope.md 4.9); the caller keeps the raw payload. A NUL inside
    the stated length is kept in the text (no source measured one; ``inner_nul_labels`` names them).
    """
    data = bytes(data)
    labels: list[bytes | None] = []
    cursor = 0
    while cursor < len(data):
        index = len(labels)
        if cursor + 4 > len(data):
            raise LabelError(index, f"record at byte {cursor} is truncated: {len(data) - cursor} bytes "
                                    "left of a 4-byte length")
        (length,) = _LEN.unpack_from(data, cursor)
        cursor += 4
        if length == 0:
            labels.append(None)
            continue
        end = cursor + length + 1
        if end > len(data):
            raise LabelError(index, f"text of {length} bytes runs past the end of the stream")
        text = data[cursor:cursor + length]
        if data[end - 1] != 0:
            raise LabelError(index, "text is not NUL-terminated")
        labels.append(text)
        cursor = end
    return labels


def inner_nul_labels(labels: list[bytes | None]) -> list[int]:
    """Indices of the labels holding a NUL before their stated length (read as stored, shown up to the NUL)."""
    return [i for i, raw in enumerate(labels) if raw and b"\0" in raw]


def encode_labels(labels: list[bytes | str | None]) -> bytes:
    """The Res10 payload. Text given as str must hold no NUL; bytes are written as they are (a label read with
    a NUL inside writes back as read)."""
    out = bytearray()
    for label in labels:
        raw = game_bytes(label) if isinstance(label, str) else (label or b"")
        if isinstance(label, str) and b"\0" in raw:
            raise ValueError(f"label {raw!r} contains a NUL byte")
        out += _LEN.pack(len(raw))
        if raw:
            out += raw + b"\0"
    return bytes(out)


def text(raw: bytes | None) -> str | None:
    """A stored name or label as str (cp1251, losslessly: ``game_text``), None when absent or empty."""
    if not raw:
        return None
    return game_text(raw.split(b"\0", 1)[0]) or None


def encode_name32(name: str | bytes) -> bytes:
    raw = game_bytes(name) if isinstance(name, str) else bytes(name)
    if len(raw) > 31 or b"\0" in raw:
        raise ValueError(f"node name {raw!r} must be at most 31 bytes without NUL")
    return raw.ljust(32, b"\0")
