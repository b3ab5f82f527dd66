"""``info``, ``validate`` and ``roundtrip`` for effects: a bare ``.exp`` explosion, and the FXID effects and EXPL
explosions inside an archive (effects.rlb, weapon.rlb; core.files checks those members as it checks every archive's)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..container.nres import Archive, Entry
from ..disk import read_input
from ..effects.exp import EXP_TYPE_ID, read_exp, validate_exp
from ..effects.fxid import FXID_TYPE_ID, read_fxid
from ..errors import Finding, FormatError

EFFECT_TYPES = (FXID_TYPE_ID, EXP_TYPE_ID)
Out = Callable[[argparse.Namespace, dict, list[str]], None]


def explosion_lines(name: str, summary: dict) -> list[str]:
    s = summary
    lines = [f"{name}: explosion, hit kind {s['kind']} ({s['kind_meaning']}), damage {s['damage']:g}, "
             f"radius {s['radius']:g}, placement {s['placement']} ({s['placement_meaning']})"]
    lines += [f"  slot {slot['slot']:2}  {slot['archive']}/{slot['member']}" for slot in s["slots"]]
    return lines


def effect_lines(name: str, summary: dict) -> list[str]:
    s = summary
    lines = [f"{name}: effect, {s['emitters']} emitters, time mode {s['mode']} ({s['mode_meaning']}), "
             f"{s['duration']:g} s, flags {s['flags']} {', '.join(s['flag_names'])}".rstrip()]
    for i, block in enumerate(summary["blocks"]):
        window = block.get("window")
        span = f" window {window[0]:g}..{window[1]:g}" if window and all(isinstance(v, float) for v in window) else ""
        ref = f"  {block['reference'][0]}/{block['reference'][1]}" if "reference" in block else ""
        lines.append(f"  {i:3}  type {block['type']:2} {block['type_name']}{span}{ref}")
    return lines


def info_file(args: argparse.Namespace, out: Out) -> int:
    """A bare ``.exp``: its fields and slots (FormatError for a record that is not 792 bytes)."""
    explosion, findings = read_exp(read_input(args.file), args.file)
    summary = explosion.summary()
    payload = {"path": args.file, "kind": "explosion", **summary, "findings": [f.as_dict() for f in findings]}
    out(args, payload, explosion_lines(args.file, summary) + [f.format(args.file) for f in findings])
    return 0


def archive_effects(archive: Archive) -> tuple[list[dict], list[str]]:
    """Each effect and explosion entry of an archive, summarised (an entry that does not read: its error)."""
    payload, lines = [], []
    for entry in archive:
        if entry.type_id not in EFFECT_TYPES or entry.unreadable is not None:
            continue
        try:
            if entry.type_id == FXID_TYPE_ID:
                summary = read_fxid(entry.data, entry.name_str)[0].summary()
                lines += effect_lines(entry.name_str, summary)
            else:
                summary = read_exp(entry.data, entry.name_str)[0].summary()
                lines += explosion_lines(entry.name_str, summary)
            payload.append({"name": entry.name_str, "kind": "effect" if entry.type_id == FXID_TYPE_ID else
                            "explosion", **summary})
        except FormatError as exc:
            payload.append({"name": entry.name_str, "findings": [f.as_dict() for f in exc.findings]})
            lines.append(f"{entry.name_str}: unreadable: {exc}")
    return payload, lines


def validate_file(path: str) -> list[Finding]:
    return validate_exp(read_input(path))


def rewritten_file(path: str, data: bytes) -> bytes:
    return read_exp(data, path)[0].to_bytes()


def rewritten_member(entry: Entry) -> bytes:
    """An effect or explosion entry's bytes decoded and written again (FormatError when they do not decode)."""
    if entry.type_id == FXID_TYPE_ID:
        return read_fxid(entry.data, entry.name_str)[0].to_bytes()
    return read_exp(entry.data, entry.name_str)[0].to_bytes()
