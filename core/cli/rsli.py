"""``info``, ``validate``, ``roundtrip``, ``list`` and ``extract`` for RsLi archives (gamefont.rlb, sprites.lib:
told by their first bytes, as they share their suffixes with NRes), and ``info``, ``validate`` and ``roundtrip``
for fonts: a bare ``Tfnt`` (.tft) or ``PAL.PAL``, and the fonts inside an archive."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..disk import read_input
from ..errors import Finding, FormatError, SelectionError, error
from ..rsli import Archive, is_rsli, is_rsli_file, validate_rsli
from ..rsli.archive import MEMBER, method_name
from .output import emit

# The font codecs (numpy) and the write path are imported by the functions that need them; the commands ask
# core.cli.kinds whether a file is an RsLi archive or a font before they import this module.
Out = Callable[[argparse.Namespace, dict, list[str]], None]


# --------------------------------------------------------------------- summaries
def font_summary(data: bytes, name: str = "") -> dict:
    """A font's header, drawn glyphs and atlas, or a palette's colours; FormatError when it does not read."""
    from ..fonts import is_palette, parse_font, parse_palette

    if is_palette(data) or name.lower().endswith(".pal"):
        palette = parse_palette(data, name)
        return {"kind": "palette", "colours_used": int((palette.colours[:, :3].any(axis=1)).sum()),
                "tag": palette.tag.decode("latin-1")}
    font = parse_font(data, name)
    width, height, mips, flags5, fmt = font.atlas_info()
    drawn = [i for i in range(256) if float(font.glyphs["u1"][i]) > float(font.glyphs["u0"][i])]
    return {"kind": "font", "cell_width": int(font.header["cell_width"]),
            "glyph_height": int(font.header["glyph_height"]), "cell_height": float(font.header["cell_height"]),
            "pen_extra": int(font.header["pen_extra"]), "drawn_glyphs": len(drawn),
            "atlas": {"width": width, "height": height, "mips": mips, "format": fmt, "flags": flags5}}


def font_lines(name: str, summary: dict) -> list[str]:
    if summary["kind"] == "palette":
        return [f"{name}: palette, {summary['colours_used']} colours, tag {summary['tag']!r}, blend table 256 x 256"]
    atlas = summary["atlas"]
    return [f"{name}: font, cell {summary['cell_width']} x {summary['glyph_height']} (+1), pen extra "
            f"{summary['pen_extra']}, {summary['drawn_glyphs']} drawn glyphs, atlas {atlas['width']}x{atlas['height']} "
            f"format {atlas['format']}" + (" (PAL.PAL's colours)" if atlas["format"] == 2 else "")]


def members(archive: Archive) -> list[dict]:
    return [{"index": i, "name": m.name_str, "method": method_name(m.method), "flags": m.flags, "size": m.size,
             "packed": m.packed_size, "unreadable": m.unreadable is not None} for i, m in enumerate(archive)]


def _member_lines(rows: list[dict]) -> list[str]:
    return [f"  {r['index']:3}  {r['method']:>8}  {r['size']:9}  {r['packed']:9}  {r['name']}"
            + ("  (unreadable)" if r["unreadable"] else "") for r in rows]


def _read(path: str, tolerant: bool = True) -> Archive:
    return Archive.parse(read_input(path), path, tolerant=tolerant)


def _reading_errors(archive: Archive, path: str) -> bool:
    errors = [f for f in archive.findings if f.is_error]
    for finding in errors:
        emit(finding.format(path), file=sys.stderr)
    return bool(errors)


# --------------------------------------------------------------------- commands
def info_file(args: argparse.Namespace, out: Out) -> int:
    """An RsLi archive's header and members, with each font and palette inside; or a bare font or palette."""
    path = args.file
    if not is_rsli_file(path):
        data = read_input(path)
        summary = font_summary(data, path)
        out(args, {"path": path, **summary}, font_lines(path, summary))
        return 0
    from ..fonts import is_font, is_palette

    archive = _read(path)
    rows = members(archive)
    fonts, lines = [], [f"{path}: RsLi archive, {len(archive)} members, seed {archive.seed:#06x}",
                        *_member_lines(rows)]
    for member in archive:
        data, findings = member.unpack()
        if any(f.is_error for f in findings) or not (is_font(data) or is_palette(data)):
            continue
        try:
            summary = font_summary(data, member.name_str)
        except FormatError as exc:
            fonts.append({"name": member.name_str, "findings": [f.as_dict() for f in exc.findings]})
            lines.append(f"{member.name_str}: unreadable: {exc}")
            continue
        fonts.append({"name": member.name_str, **summary})
        lines += font_lines(member.name_str, summary)
    out(args, {"path": path, "kind": "rsli", "seed": archive.seed, "members": rows, "fonts": fonts}, lines)
    return 1 if _reading_errors(archive, path) else 0


def list_file(args: argparse.Namespace, out: Out) -> int:
    archive = _read(args.archive)
    rows = members(archive)
    out(args, {"path": args.archive, "members": rows}, _member_lines(rows))
    return 1 if _reading_errors(archive, args.archive) else 0


def extract(args: argparse.Namespace) -> str:
    """Write one member, unpacked, to ``args.output`` through the write path; the line that says so."""
    archive = _read(args.archive)
    member = archive.pick(args.name)
    if member is None:
        raise SelectionError.single(MEMBER, None, f"no member named {args.name!r} (#N picks member N)", args.archive)
    data = member.data(args.archive)
    from ..write_path import Target, write

    write([Target(args.output, data, owned=True)], force=getattr(args, "force", False))
    return f"{args.archive}: wrote {member.name_str} ({len(data)} bytes, unpacked from {method_name(member.method)}) " \
           f"to {args.output}"


def font_findings(data: bytes, name: str) -> list[Finding]:
    """A font's or palette's findings (one that does not read: its errors)."""
    from ..fonts import is_palette, parse_font, parse_palette, validate_font

    try:
        if is_palette(data) or name.lower().endswith(".pal"):
            parse_palette(data, name)
            return []
        return validate_font(parse_font(data, name))
    except FormatError as exc:
        return exc.findings


def validate_file(path: str) -> list[Finding]:
    """An RsLi archive's findings (each member unpacked; each font in it checked), or a bare font's."""
    from ..fonts import is_font, is_palette

    data = read_input(path)
    if not is_rsli(data):
        return font_findings(data, path)
    archive = Archive.parse(data, path, tolerant=True)
    findings = validate_rsli(archive)
    for member in archive:
        unpacked, problems = member.unpack()
        if not any(f.is_error for f in problems) and (is_font(unpacked) or is_palette(unpacked)):
            findings += [f.located(member.name_str) for f in font_findings(unpacked, "")]
    return findings


def rewritten_file(path: str, data: bytes) -> bytes:
    """The file decoded and written again: each font and palette of an archive through its codec (a member whose
    codec changes its bytes is repacked, which the comparison then shows), the archive by its writer."""
    from ..fonts import is_font, is_palette, parse_font, parse_palette

    if not is_rsli(data):
        if is_palette(data) or path.lower().endswith(".pal"):
            return parse_palette(data, path).to_bytes()
        return parse_font(data, path).to_bytes()
    archive = Archive.parse(data, path)
    for member in list(archive):
        unpacked = member.data(path)
        try:
            if is_palette(unpacked):
                again = parse_palette(unpacked).to_bytes()
            elif is_font(unpacked):
                again = parse_font(unpacked).to_bytes()
            else:
                continue
        except FormatError as exc:
            raise FormatError([f.located(member.name_str) for f in exc.findings], path) from None
        if again != unpacked:
            archive.replace(member.name, again)
    try:
        return archive.to_bytes()
    except FormatError as exc:
        raise FormatError(exc.findings, path) from None


def archive_font_findings(entries) -> list[Finding]:
    """The findings of each font and palette among an NRes archive's entries (sys.lib, ui/font.lib), located by
    entry name."""
    from ..fonts import is_font, is_palette

    findings: list[Finding] = []
    for entry in entries:
        if entry.unreadable is None and (is_font(entry.data) or is_palette(entry.data)):
            findings += [f.located(entry.name_str) for f in font_findings(bytes(entry.data), "")]
    return findings


def picture(path: str, name: str, mip: int = 0):
    """``texture``'s picture of an RsLi member (a Texm, or a font's atlas) or of an NRes font entry: (name, RGBA8
    array); None for an NRes entry that is no font (the command reads it as a texture)."""
    from ..appearance.texm import MAGIC as TEXM_MAGIC
    from ..appearance.texm import parse_texm
    from ..container.nres import Archive as NResArchive
    from ..container.nres import fold, lookup_key
    from ..fonts import is_font
    from ..fonts.pictures import picture_rgba
    from .output import UsageError

    data = read_input(path)
    if is_rsli(data):
        archive = Archive.parse(data, path, tolerant=True)
        member = archive.pick(name)
        if member is None:
            raise SelectionError.single(MEMBER, None, f"no member named {name!r} (#N picks member N)", path)
        index, shown, payload = archive.members.index(member), member.name_str, member.data(path)
    else:
        entries = NResArchive.parse(data, path, tolerant=True).entries
        found = next((e for e in entries if fold(e.name) == lookup_key(name)), None)
        if found is None and name.startswith("#") and name[1:].isdigit() and int(name[1:]) < len(entries):
            found = entries[int(name[1:])]
        if found is None or found.unreadable is not None or not is_font(found.data):
            return None
        index, shown, payload = entries.index(found), found.name_str, bytes(found.data)
    if not is_font(payload) and payload[:4] != TEXM_MAGIC:
        raise SelectionError.single(MEMBER, index, f"{shown} is neither a texture (Texm) nor a font (Tfnt)", path)
    if is_font(payload):
        if mip:
            raise UsageError(f"--mip {mip}: a font's atlas has one level (0)")
        return shown, picture_rgba(data, index, path)
    try:
        texture = parse_texm(payload)
        if not 0 <= mip < texture.mip_count:
            raise UsageError(f"--mip {mip}: {shown} has mip levels 0..{texture.mip_count - 1}")
        return shown, texture.decode(mip)
    except FormatError as exc:
        raise FormatError([f.located(shown) for f in exc.findings], path) from None


METHODS = {"lzss": 0x040, "deflate": 0x100}  # the two methods the shipped archives use (core.rsli.archive.WRITABLE)


def cmd_replace(args: argparse.Namespace) -> int:
    """``replace``: one member of an RsLi archive given new unpacked bytes (the file's), packed by its own method
    (or ``--method``), every other member's packed bytes, flags and record words kept, and the archive written
    through the write path: whole or not at all, refused when the archive changed on disk since it was read."""
    import os

    from ..disk import read_with_state
    from ..write_path import UNREAD, Target, write
    from .output import EXIT_OK

    data, state = read_with_state(args.archive)
    if not is_rsli(data):
        raise FormatError.single(MEMBER, None, "not an RsLi archive (replace edits gamefont.rlb, sprites.lib and "
                                               "the like)", args.archive)
    archive = Archive.parse(data, args.archive)
    member = archive.pick(args.member)
    if member is None:
        raise SelectionError.single(MEMBER, None, f"no member named {args.member!r} (#N picks member N)",
                                    args.archive)
    new = read_input(args.file)
    method = METHODS[args.method] if args.method else member.method
    try:
        if args.method is None and member.method not in METHODS.values():
            raise FormatError([error(MEMBER, archive.members.index(member), f"{method_name(member.method)} "
                                     f"({member.method:#05x}) is used by no shipped archive and is not written; "
                                     "give --method lzss or --method deflate").located(member.name_str)])
        old = member.data(args.archive) if member.unreadable is None else None
        if old != new or method != member.method:  # the same bytes by the same method: its packed bytes kept
            archive.replace(member.name, new, method)
        packed = archive.to_bytes()
    except FormatError as exc:
        raise FormatError(exc.findings, args.archive) from None
    output = args.output or args.archive
    same = os.path.realpath(output) == os.path.realpath(args.archive)
    done = write([Target(output, packed, read=state if same else UNREAD, owned=True, spliced=same)],
                 force=args.force)
    where = output if done.written else f"{output} (unchanged: it already holds these bytes)"
    emit(f"{args.archive}: {member.name_str} replaced by {args.file} ({len(new)} bytes, packed as "
         f"{method_name(method)} to {len(member.packed)}); wrote {where}")
    return EXIT_OK
