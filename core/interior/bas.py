"""The ground plan ``.bas`` of a building (``fortif.rlb``, NRes type BASE; world digest W72-W74, W77).

Read as ParkanPlayground reads it: u32 inner-contour count, per inner contour (u32 n, n + 1 points closing the
ring, n u32 triangle indices into the building's own mesh, n u32 corners of those triangles), then u32
outer-contour count, per outer contour (u32 n, n + 1 points). Every retail file holds one inner and one outer
contour, where openparkan's reading (a marker 1 before each ring) gives the same bytes: that two-ring form is
read and written exactly. Any other form is shown as read and carried byte for byte.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from ..errors import Finding, FormatError, error, warning

STREAM = "bas"
BAS_TYPE_ID = int.from_bytes(b"BASE", "little")
POINT = np.dtype(("<f4", (3,)))
CORNERS = (3, 26)  # the corner counts of the 60 retail rings
TWO_RINGS = "two rings"
OTHER = "other"


@dataclass
class Ring:
    """One contour: ``points`` holds all n + 1 points as read (the last closes the ring); the inner ring's
    ``triangles`` and ``corners`` are its back-reference into the building's mesh (stale on 15 of 30 retail
    files, so carried, not recomputed)."""

    points: np.ndarray
    triangles: np.ndarray | None = None
    corners: np.ndarray | None = None

    @property
    def count(self) -> int:
        return len(self.points) - 1

    @property
    def corner_points(self) -> np.ndarray:
        return self.points[:-1]

    def to_bytes(self) -> bytes:
        out = struct.pack("<I", self.count) + np.ascontiguousarray(self.points, "<f4").tobytes()
        if self.triangles is not None:
            out += self.triangles.astype("<u4").tobytes() + self.corners.astype("<u4").tobytes()
        return out


@dataclass
class GroundPlan:
    """A ``.bas`` as read. ``raw`` is the file; ``inner``/``outer`` the contours found (for any form that
    parses); ``form`` is TWO_RINGS when it is exactly one inner and one outer ring (then ``to_bytes`` writes
    the rings), else OTHER (then ``to_bytes`` gives ``raw`` back)."""

    raw: bytes
    inner: list[Ring] = field(default_factory=list)
    outer: list[Ring] = field(default_factory=list)
    form: str = OTHER

    @property
    def editable(self) -> bool:
        return self.form == TWO_RINGS

    def to_bytes(self) -> bytes:
        if not self.editable:
            return self.raw
        return encode_two_rings(self.inner[0], self.outer[0])

    def moved(self, inner: np.ndarray | None = None, outer: np.ndarray | None = None) -> GroundPlan:
        """The plan with its rings' corners at new places (n x 3 each, the same counts: the back-reference is
        per corner). A ring whose closing point repeated its first corner keeps repeating it; a corner that
        did not move keeps its bytes. FormatError for the other forms or a changed count."""
        if not self.editable:
            raise FormatError.single(STREAM, None, "only the two-ring form of a ground plan can be edited "
                                                   "(this one is carried as read)")
        rings = []
        for which, ring, new in (("inner", self.inner[0], inner), ("outer", self.outer[0], outer)):
            rings.append(ring if new is None else _moved_ring(which, ring, new))
        plan = GroundPlan(b"", [rings[0]], [rings[1]], TWO_RINGS)
        plan.raw = plan.to_bytes()
        return plan

    def summary(self) -> dict:
        def ring(r: Ring) -> dict:
            return {"corners": r.count, "closed": bool(np.array_equal(r.points[0], r.points[-1])),
                    "anticlockwise": bool(signed_area(r.corner_points) > 0),
                    "area": float(abs(signed_area(r.corner_points)))}
        return {"form": self.form, "bytes": len(self.raw), "inner": [ring(r) for r in self.inner],
                "outer": [ring(r) for r in self.outer]}


def _moved_ring(which: str, ring: Ring, new: np.ndarray) -> Ring:
    new = np.asarray(new, np.float32).reshape(-1, 3)
    if len(new) != ring.count:
        raise FormatError.single(STREAM, None, f"the {which} ring has {ring.count} corners; {len(new)} given "
                                               "(corners can be moved, not added or removed)")
    points = ring.points.copy()
    changed = new.tobytes() != points[:-1].tobytes()
    if changed:
        same = (new == points[:-1]) | (np.isnan(new) & np.isnan(points[:-1]))
        points[:-1] = np.where(same, points[:-1], new)
        if ring.points[-1].tobytes() == ring.points[0].tobytes():
            points[-1] = points[0]
    return Ring(points, ring.triangles, ring.corners)


def signed_area(corners: np.ndarray) -> float:
    """Twice-halved shoelace area in XY: positive for an anticlockwise ring (all 60 retail rings)."""
    if len(corners) < 3:
        return 0.0
    x, y = corners[:, 0].astype(np.float64), corners[:, 1].astype(np.float64)
    with np.errstate(all="ignore"):
        return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))


def encode_two_rings(inner: Ring, outer: Ring) -> bytes:
    """``1, inner ring + back-references, 1, outer ring``: what both public readings read alike (W74)."""
    if inner.triangles is None or len(inner.triangles) != inner.count or len(inner.corners) != inner.count:
        raise FormatError.single(STREAM, None, "the inner ring needs a triangle and a corner per corner")
    bare = Ring(outer.points)
    return struct.pack("<I", 1) + inner.to_bytes() + struct.pack("<I", 1) + bare.to_bytes()


def two_rings(inner: np.ndarray, outer: np.ndarray, triangles=None, corners=None) -> GroundPlan:
    """A new two-ring plan from corner lists (n x 3; each ring closed by repeating its first corner); a missing
    back-reference is 0xFFFFFFFF per corner (no mesh triangle)."""
    def ring(corners_xyz) -> np.ndarray:
        pts = np.asarray(corners_xyz, np.float32).reshape(-1, 3)
        return np.concatenate([pts, pts[:1]])
    pin, pout = ring(inner), ring(outer)
    n = len(pin) - 1
    tri = np.full(n, 0xFFFFFFFF, np.uint32) if triangles is None else np.asarray(triangles, np.uint32)
    cor = np.full(n, 0xFFFFFFFF, np.uint32) if corners is None else np.asarray(corners, np.uint32)
    plan = GroundPlan(b"", [Ring(pin, tri, cor)], [Ring(pout)], TWO_RINGS)
    plan.raw = plan.to_bytes()
    return plan


class _Cursor:
    def __init__(self, raw: bytes) -> None:
        self.raw, self.at = raw, 0

    def left(self) -> int:
        return len(self.raw) - self.at

    def word(self, what: str) -> int:
        if self.left() < 4:
            raise FormatError.single(STREAM, None, f"ends at byte {self.at} inside {what}")
        value = struct.unpack_from("<I", self.raw, self.at)[0]
        self.at += 4
        return value

    def array(self, dtype, count: int, what: str) -> np.ndarray:
        size = np.dtype(dtype).itemsize * count
        if count < 0 or size > self.left():  # a count never sizes more than the bytes there
            raise FormatError.single(STREAM, None, f"{what}: {count} records need {size} bytes at byte {self.at}, "
                                                   f"{self.left()} remain")
        out = np.frombuffer(self.raw, dtype, count, self.at).copy()
        self.at += size
        return out


def _contours(cursor: _Cursor, inner: bool) -> list[Ring]:
    side = "inner" if inner else "outer"
    count = cursor.word(f"the {side} contour count")
    per = 4 + 2 * POINT.itemsize  # the least a contour takes: its count and two points
    if count * per > cursor.left():
        raise FormatError.single(STREAM, None, f"{count} {side} contours cannot fit in the {cursor.left()} bytes "
                                               "left")
    rings = []
    for c in range(count):
        n = cursor.word(f"{side} contour {c}'s corner count")
        points = cursor.array(POINT, n + 1, f"{side} contour {c}'s points")
        if inner:
            tri = cursor.array("<u4", n, f"{side} contour {c}'s triangle indices")
            cor = cursor.array("<u4", n, f"{side} contour {c}'s triangle corners")
            rings.append(Ring(points, tri, cor))
        else:
            rings.append(Ring(points))
    return rings


def read_bas(data: bytes | memoryview, source: str = "") -> tuple[GroundPlan, list[Finding]]:
    """Tolerant: every file reads; a form other than two rings (or one that does not parse) is carried as read,
    with a finding saying why."""
    raw = bytes(data)
    cursor = _Cursor(raw)
    try:
        inner = _contours(cursor, True)
        outer = _contours(cursor, False)
    except FormatError as exc:
        return GroundPlan(raw), [error(STREAM, None, f"{f.message} (carried as read)") for f in exc.findings]
    plan = GroundPlan(raw, inner, outer)
    findings: list[Finding] = []
    if cursor.left():
        findings.append(warning(STREAM, None, f"{cursor.left()} bytes after the contours (carried as read)"))
    elif len(inner) == 1 and len(outer) == 1 and plan_bytes_match(plan):
        plan.form = TWO_RINGS
    if len(inner) != 1 or len(outer) != 1:
        findings.append(warning(STREAM, None, f"{len(inner)} inner and {len(outer)} outer contours: every retail "
                                              "plan has one of each; the public readings differ on this form "
                                              "(carried as read)"))
    findings += _ring_checks(plan)
    return plan, findings


def plan_bytes_match(plan: GroundPlan) -> bool:
    return encode_two_rings(plan.inner[0], plan.outer[0]) == plan.raw


def parse_bas(data: bytes | memoryview, source: str = "") -> GroundPlan:
    """Strict: FormatError unless the contours parse and fill the file (the other forms read, carried)."""
    plan, findings = read_bas(data, source)
    errors = [f for f in findings if f.is_error]
    if errors:
        raise FormatError(errors, source)
    return plan


def validate_bas(data: bytes | memoryview) -> list[Finding]:
    return read_bas(data)[1]


def _ring_checks(plan: GroundPlan) -> list[Finding]:
    out: list[Finding] = []
    for side, rings in (("inner", plan.inner), ("outer", plan.outer)):
        for c, ring in enumerate(rings):
            lo, hi = CORNERS
            if not lo <= ring.count <= hi:
                out.append(warning(STREAM, c, f"{side} contour {c} has {ring.count} corners; retail rings have "
                                              f"{lo}-{hi} (kept)"))
            if len(ring.points) and ring.points[0].tobytes() != ring.points[-1].tobytes():
                out.append(warning(STREAM, c, f"{side} contour {c} does not end on its first corner (kept)"))
            if not np.isfinite(ring.points).all():
                out.append(warning(STREAM, c, f"{side} contour {c} has a point that is not finite (kept)"))
            elif ring.count >= 3 and signed_area(ring.corner_points) <= 0:
                out.append(warning(STREAM, c, f"{side} contour {c} winds clockwise; all retail rings wind "
                                              "anticlockwise (kept)"))
    return out


def triangle_vertices(model) -> np.ndarray:
    """Each triangle's three vertex numbers in the model's positions (the index stream plus each batch's base
    vertex): what a back-reference (triangle, corner) names."""
    indices = model.indices.astype(np.int64)
    out = indices.copy()
    for batch in model.batches:
        start, count = int(batch["index_start"]), int(batch["index_count"])
        out[start:start + count] = indices[start:start + count] + int(batch["base_vertex"])
    return out[:len(out) - len(out) % 3].reshape(-1, 3)


def back_reference_hits(plan: GroundPlan, positions: np.ndarray, triangles: np.ndarray) -> int:
    """How many inner corners sit on the mesh point their back-reference names (15 of 30 retail plans resolve);
    ``triangles`` as ``triangle_vertices`` gives them."""
    if not plan.inner:
        return 0
    ring = plan.inner[0]
    hits = 0
    for corner, t, c in zip(ring.corner_points, ring.triangles, ring.corners):
        if int(t) < len(triangles) and int(c) < 3 and 0 <= triangles[int(t)][int(c)] < len(positions):
            hits += bool(np.array_equal(positions[triangles[int(t)][int(c)]], corner))
    return hits
