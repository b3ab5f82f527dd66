"""``info``, ``validate`` and ``roundtrip`` of a mission's sky (``sky.ske``) and briefing (``briefing.cfg``)."""

from __future__ import annotations

import argparse

from ..briefing.cfg import check_briefing, parse_briefing, validate_briefing
from ..briefing.play import stops
from ..disk import read_input
from ..errors import Finding
from ..sky.ske import check_sky, parse_ske, validate_ske, write_ske
from .kinds import is_sky
from .output import out


def info_file(args: argparse.Namespace) -> int:
    data = read_input(args.file)
    if is_sky(args.file):
        sky = parse_ske(data, args.file)
        findings = check_sky(sky)
        sections = [{"day": f"{s.day.hour}:{s.day.minute:02d}", "keyframes": len(s.keyframes),
                     "events": sorted({k.opcode for k in s.keyframes})} for s in sky.sections]
        start = sky.start
        payload = {"path": args.file, "kind": "sky", "sections": sections,
                   "clock starts": f"section {start.section} {start.hour:02d}:{start.minute:02d}"}
        lines = [f"{args.file}: sky, {len(sections)} section(s), the clock starting in section {start.section} at "
                 f"{start.hour:02d}:{start.minute:02d}"]
        lines += [f"  section {n}: a day of {s['day']}, {s['keyframes']} keyframes" for n, s in enumerate(sections)]
    else:
        briefing = parse_briefing(data, args.file)
        findings = check_briefing(briefing)
        played = stops(briefing)
        length = played[-1].end if played else 0.0
        payload = {"path": args.file, "kind": "briefing", "waypoints": len(briefing.waypoints),
                   "seconds": round(length, 3)}
        lines = [f"{args.file}: briefing, {len(briefing.waypoints)} waypoint(s), {length:.1f} s played"]
    payload["findings"] = [f.as_dict() for f in findings]
    out(args, payload, lines + [f.format(args.file) for f in findings])
    return 0


def validate_file(path: str) -> list[Finding]:
    data = read_input(path)
    return validate_ske(data) if is_sky(path) else validate_briefing(data)


def rewritten_file(path: str, data: bytes) -> bytes:
    return write_ske(parse_ske(data, path)) if is_sky(path) else parse_briefing(data, path).to_bytes()


__all__ = ["info_file", "rewritten_file", "validate_file"]
