"""``briefing.cfg``, a campaign mission's opening flythrough (openparkan docs/21-briefing.md): ``object WayPointN`` ...
``end`` blocks of ``Key = value`` lines (strings quoted), the ``mission.cfg`` syntax. The text is kept line for
line; an edit rewrites the value of the lines it changes and nothing else (the originals' key order and number
formatting are not documented, so an unedited file writes back byte for byte."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..container.nres import game_bytes, game_text
from ..errors import Finding, FormatError, error, warning

STREAM = "briefing.cfg"
# the 24 keys, in the shipped order (openparkan docs/21-briefing.md)
KEYS = ("CameraX", "CameraY", "CameraZ", "TargetX", "TargetY", "TargetZ", "EdgeType", "WaitType", "EdgeTime",
        "WaypointTime", "RotateTime", "FadeTime", "ZoomTime", "WaitForText", "WaitForSound", "WaitForTime",
        "WaitForClick", "TextResID", "SoundResID", "NoisePercent", "FadePercent", "ZoomOn", "NightVisionOn",
        "LoopIndex")
TEXT_KEYS = ("EdgeType", "WaitType", "TextResID", "SoundResID")
FLAG_KEYS = ("WaitForText", "WaitForSound", "WaitForTime", "WaitForClick", "ZoomOn", "NightVisionOn")
EDGE_TYPES = ("linear", "spline", "jump")
WAIT_TYPES = ("continuous", "stay", "flyaround", "flyby")  # flyby: flyaround with a positive RotateTime
INTEGER_KEYS = ("LoopIndex", "NoisePercent", "FadePercent")
NO_LOOP = -1
_OBJECT = re.compile(r"^\s*object\s+(\S+)\s*$", re.IGNORECASE)
_END = re.compile(r"^\s*end\s*$", re.IGNORECASE)
_FIELD = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)(\"[^\"]*\"|\S+)(.*)$")


@dataclass
class Waypoint:
    name: str
    values: dict[str, str] = field(default_factory=dict)  # key -> value as written (strings with their quotes)
    lines: dict[str, int] = field(default_factory=dict)   # key -> its line in the file

    def text(self, key: str) -> str:
        value = self.values.get(key, "")
        return value[1:-1] if len(value) >= 2 and value[0] == value[-1] == '"' else value

    def number(self, key: str) -> float:
        """A number field; 0 when absent or not a number (as a C reader's atof gives it)."""
        try:
            value = float(self.values.get(key, "0"))
        except ValueError:
            return 0.0
        return value if math.isfinite(value) else 0.0

    def flag(self, key: str) -> bool:
        return self.values.get(key, "false").lower() == "true"

    @property
    def camera(self) -> tuple[float, float, float]:
        return self.number("CameraX"), self.number("CameraY"), self.number("CameraZ")

    @property
    def target(self) -> tuple[float, float, float]:
        return self.number("TargetX"), self.number("TargetY"), self.number("TargetZ")


@dataclass
class Briefing:
    lines: list[str]  # the text, each line with its line end
    waypoints: list[Waypoint]

    def with_values(self, index: int, values: dict[str, object]) -> Briefing:
        """Waypoint ``index`` with ``values`` (numbers, flags or text) written into its lines; a value equal to
        the one there keeps its line as written. A key the waypoint lacks is refused (FormatError): a new line
        would move every later one, and no shipped waypoint lacks one of the 24."""
        lines, waypoints = list(self.lines), [Waypoint(w.name, dict(w.values), dict(w.lines)) for w in self.waypoints]
        point = waypoints[index]
        for key, value in values.items():
            if key not in point.lines:
                raise FormatError.single(STREAM, index, f"waypoint {point.name} has no {key} line to write")
            written = _written(key, value)
            if _same(point, key, written):
                continue
            at = point.lines[key]
            match = _FIELD.match(lines[at].rstrip("\r\n"))
            ending = lines[at][len(lines[at].rstrip("\r\n")):]
            lines[at] = match.group(1) + match.group(2) + match.group(3) + written + match.group(5) + ending
            point.values[key] = written
        return Briefing(lines, waypoints)

    def to_bytes(self) -> bytes:
        return game_bytes("".join(self.lines))


def _written(key: str, value: object) -> str:
    if key in TEXT_KEYS:
        text = str(value)
        if '"' in text or len(f"x{text}x".splitlines()) > 1 or "\0" in text:  # a line break the reader splits
            raise FormatError.single(STREAM, None, f"{key} {text!r}: a quoted value cannot hold quotes or lines")
        try:
            game_bytes(text)
        except UnicodeEncodeError as exc:
            raise FormatError.single(STREAM, None, f"{key} {text!r}: {text[exc.start:exc.end]!r} is no character "
                                                   "of the game's text (cp1251)") from None
        return f'"{text}"'
    if key in FLAG_KEYS:
        return "true" if value else "false"
    number = float(value)
    if not math.isfinite(number) or abs(number) > float(np.finfo(np.float32).max):
        raise FormatError.single(STREAM, None, f"{key} = {number}: not a number the game reads")
    if key in INTEGER_KEYS and number == int(number):
        return str(int(number))
    if key == "LoopIndex":  # a waypoint's index: a fraction would be read as another stop
        raise FormatError.single(STREAM, None, f"{key} = {number}: not a whole number (a waypoint's index)")
    for places in (3, 4, 5, 6):  # the shipped files write three decimals; more where a float32 needs them
        text = f"{number:.{places}f}"
        if np.float32(float(text)) == np.float32(number):
            return text
    return repr(number)


def _same(point: Waypoint, key: str, written: str) -> bool:
    """Whether ``written`` says what the line says; numbers compared as the float32 a scene holds them in."""
    if key in TEXT_KEYS:
        return point.text(key) == written[1:-1]
    if key in FLAG_KEYS:
        return point.flag(key) == (written == "true")
    try:
        return np.float32(float(point.values[key])) == np.float32(float(written))
    except ValueError:
        return False


def parse_briefing(data: bytes | memoryview, source: str = "") -> Briefing:
    """The flythrough; FormatError naming the line where the text breaks the ``object ... end`` syntax."""
    lines = game_text(bytes(data)).splitlines(keepends=True)
    waypoints: list[Waypoint] = []
    current: Waypoint | None = None
    for number, line in enumerate(lines):
        bare = line.strip()
        if not bare or bare.startswith(("//", ";", "#")):
            continue
        if (opened := _OBJECT.match(bare)) is not None:
            if current is not None:
                raise FormatError.single(STREAM, number + 1, f"line {number + 1}: object {opened.group(1)} opens "
                                                             f"inside {current.name} (no end before it)", source)
            current = Waypoint(opened.group(1))
        elif _END.match(bare):
            if current is None:
                raise FormatError.single(STREAM, number + 1, f"line {number + 1}: end without an object", source)
            waypoints.append(current)
            current = None
        elif (found := _FIELD.match(line.rstrip("\r\n"))) is not None and current is not None:
            key = found.group(2)
            current.values.setdefault(key, found.group(4))
            current.lines.setdefault(key, number)
        else:
            raise FormatError.single(STREAM, number + 1, f"line {number + 1}: neither object, end nor "
                                                         f"Key = value inside an object: {bare[:40]!r}", source)
    if current is not None:
        raise FormatError.single(STREAM, len(lines), f"object {current.name} has no end", source)
    return Briefing(lines, waypoints)


def validate_briefing(data: bytes | memoryview) -> list[Finding]:
    try:
        briefing = parse_briefing(data)
    except FormatError as exc:
        return exc.findings
    return check_briefing(briefing)


def check_briefing(briefing: Briefing) -> list[Finding]:
    """Errors for what the game's loader refuses (a flyaround that never turns, a spline edge of no time;
    warnings for the rest, whose values are carried as written."""
    found = []
    count = len(briefing.waypoints)
    for index, point in enumerate(briefing.waypoints):
        where = f"waypoint {point.name}"
        missing = [key for key in KEYS if key not in point.values]
        if missing:
            found.append(warning(STREAM, index, f"{where}: no {', '.join(missing)} (every shipped waypoint has "
                                                "all 24 keys)"))
        unknown = [key for key in point.values if key not in KEYS]
        if unknown:
            found.append(warning(STREAM, index, f"{where}: unknown key(s) {', '.join(unknown)} (carried)"))
        edge, wait = point.text("EdgeType").lower(), point.text("WaitType").lower()
        if "EdgeType" in point.values and edge not in EDGE_TYPES:
            found.append(warning(STREAM, index, f"{where}: EdgeType {edge!r} is none of {', '.join(EDGE_TYPES)}"))
        if "WaitType" in point.values and wait not in WAIT_TYPES:
            found.append(warning(STREAM, index, f"{where}: WaitType {wait!r} is none of {', '.join(WAIT_TYPES)}"))
        if wait == "flyaround" and point.number("RotateTime") == 0:
            found.append(error(STREAM, index, f"{where}: a flyaround with a RotateTime of 0 (the game refuses it)"))
        if edge == "spline" and point.number("EdgeTime") <= 0:
            found.append(error(STREAM, index, f"{where}: a spline edge needs an EdgeTime above 0 (the game "
                                              "refuses it)"))
        for key in point.values:
            if key in KEYS and key not in TEXT_KEYS and key not in FLAG_KEYS and not _is_number(point.values[key]):
                found.append(warning(STREAM, index, f"{where}: {key} = {point.values[key]} is no number (read as 0)"))
        loop = int(point.number("LoopIndex")) if "LoopIndex" in point.values else NO_LOOP
        if loop != NO_LOOP and not 0 <= loop < count:
            found.append(warning(STREAM, index, f"{where}: LoopIndex {loop} names no waypoint (of {count})"))
    return found


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


__all__ = ["EDGE_TYPES", "KEYS", "NO_LOOP", "WAIT_TYPES", "Briefing", "Waypoint", "check_briefing",
           "parse_briefing", "validate_briefing"]
