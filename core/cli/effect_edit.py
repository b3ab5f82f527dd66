"""``effect``: edit one FXID effect of an archive (effects.rlb) in place. Only named fields are written (the header's
and each emitter block's, ``core.effects.fxid.FIELDS``); a block's unnamed words have no known meaning, so a new
block is a copy of an existing one. Every byte the edits leave alone, the effect's and every other entry's, is
kept, and the archive is written through the write path (whole, or nothing)."""

from __future__ import annotations

import argparse
import os

from ..container.nres import Archive
from ..disk import read_with_state
from ..effects.fxid import FIELDS, FXID_TYPE_ID, HEADER, HEADER_FIELDS, STREAM, parse_fxid
from ..errors import FormatError
from ..write_path import UNREAD, Target, write
from .output import EXIT_OK, UsageError, emit


def parse_set(text: str) -> tuple[int | None, str, str]:
    """``FIELD=VALUE`` (a header field) or ``N.FIELD=VALUE`` (emitter N's): (N or None, field, value text)."""
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise UsageError(f"--set {text!r}: write FIELD=VALUE or N.FIELD=VALUE (a vector as 1,2,3)")
    block, dot, field = name.partition(".")
    if not dot:
        return None, name, value
    if not block.isdigit():
        raise UsageError(f"--set {text!r}: {block!r} is not an emitter's index")
    return int(block), field, value


def parse_copy(text: str) -> tuple[int, int | None]:
    """``N`` (emitter N copied to the end) or ``N@AT`` (inserted at position AT)."""
    block, at, where = text.partition("@")
    if not block.isdigit() or (at and not where.isdigit()):
        raise UsageError(f"--copy {text!r}: write N (copied to the end) or N@AT (inserted at AT)")
    return int(block), int(where) if at else None


def numbers(text: str, integer: bool, count: int, what: str) -> int | float | tuple:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != count:
        raise UsageError(f"{what} takes {count} value{'s' if count > 1 else ''}, not {len(parts)} ({text!r})")
    try:
        values = tuple(int(p, 0) if integer else float(p) for p in parts)
    except ValueError:
        raise UsageError(f"{what}: {text!r} is not {'a whole number' if integer else 'a number'}"
                         f"{' list' if count > 1 else ''}") from None
    return values[0] if count == 1 else values


def header_value(field: str, text: str) -> int | float | tuple:
    if field not in HEADER_FIELDS:
        raise UsageError(f"{field!r} is not a header field ({', '.join(HEADER_FIELDS)})")
    dtype, _ = HEADER.fields[field][:2]
    count = dtype.shape[0] if dtype.shape else 1
    return numbers(text, dtype.base.kind in "iu", count, field)


def block_value(kind: int, field: str, text: str, what: str) -> int | float | tuple:
    named = FIELDS[kind]
    if field not in named:
        raise UsageError(f"{what}: {field!r} is not a named field of this emitter ({', '.join(named) or 'none'})")
    fmt = named[field][1].lstrip("<")
    count = int(fmt[:-1] or 1)
    return numbers(text, fmt[-1] in "IiHhBb", count, f"{what}.{field}")


def cmd_effect(args: argparse.Namespace) -> int:
    data, state = read_with_state(args.archive)
    archive = Archive.parse(data, args.archive)
    entry = archive.find(args.member)
    if entry is None:
        raise FormatError.single(STREAM, None, f"effect {args.member!r} is not in the archive", args.archive)
    if entry.type_id != FXID_TYPE_ID:
        raise FormatError.single(STREAM, None, f"entry {args.member!r} is not an effect (FXID)", args.archive)
    source = f"{args.archive}:{args.member}"
    effect = parse_fxid(entry.data, source)
    for block, at in (parse_copy(text) for text in args.copy or ()):
        if at is not None and not 0 <= at <= len(effect.emitters):
            raise UsageError(f"--copy {block}@{at}: the effect has {len(effect.emitters)} emitters")
        effect.copy_emitter(block, at=at)
    for block, field, text in (parse_set(text) for text in args.set or ()):
        if block is None:
            effect.set(field, header_value(field, text))
            continue
        if not 0 <= block < len(effect.emitters):
            raise UsageError(f"--set {block}.{field}: the effect has {len(effect.emitters)} emitters")
        emitter = effect.emitters[block]
        emitter.set(field, block_value(emitter.type, field, text, f"emitter {block}"))
    for text in args.reference or ():
        block, sep, names = text.partition("=")
        archive_name, slash, member = names.partition("/")
        if not block.isdigit() or not sep or not slash or not archive_name or not member:
            raise UsageError(f"--reference {text!r}: write N=ARCHIVE/MEMBER (Material.lib/NAME, sounds.lib/x.wav)")
        if not 0 <= int(block) < len(effect.emitters):
            raise UsageError(f"--reference {text!r}: the effect has {len(effect.emitters)} emitters")
        effect.emitters[int(block)].set_reference(archive_name, member)
    entry.data = effect.to_bytes()
    output = args.output or args.archive
    same = os.path.realpath(output) == os.path.realpath(args.archive)
    done = write([Target(output, archive.to_bytes(), read=state if same else UNREAD, owned=True, spliced=True)],
                 force=args.force)
    if not done.written:
        emit(f"{source}: {output} unchanged: it already holds these values")
    else:
        emit(f"{source}: wrote {output} ({len(effect.emitters)} emitters)")
    return EXIT_OK


__all__ = ["cmd_effect", "parse_copy", "parse_set"]
