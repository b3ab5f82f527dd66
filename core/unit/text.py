"""Fixed 32-byte name blocks of the unit files: the text before the NUL, and the bytes after it kept as read."""

from __future__ import annotations

from ..container.nres import name_bytes, name_text
from ..errors import FormatError

BLOCK = 32


def block_text(raw: bytes) -> str:
    """The name in a block as printable cp1251 text (``name_text``: escapes for bytes cp1251 lacks)."""
    return name_text(bytes(raw).split(b"\0", 1)[0])


def block_name(raw: bytes) -> bytes:
    return bytes(raw).split(b"\0", 1)[0]


def with_text(raw: bytes, text: str | bytes) -> bytes:
    """``raw`` holding a new name: the name, its NUL, then the block's own bytes after that point.

    Raises FormatError for text cp1251 cannot hold, past 31 bytes or with a NUL.
    """
    name = name_bytes(text)
    if b"\0" in name or len(name) >= BLOCK:
        raise FormatError.single("name", None, f"name {name_text(name)!r} must be at most {BLOCK - 1} bytes "
                                               "without NUL")
    old = bytes(raw).ljust(BLOCK, b"\0")
    return name + b"\0" + old[len(name) + 1:BLOCK]


def fold_text(raw: bytes) -> bytes:
    """A block's name folded for case-insensitive comparison (A..Z only, as NRes lookups fold)."""
    return block_name(raw).lower()
