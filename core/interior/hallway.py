"""The hall way: stream 17 of a building's MSH, the path graph through and around it (world digest W69-W71, W77).

The stream's NRes entry holds attr1 = vertex count and attr2 = link count; its payload is the vertices (20 bytes:
f32[3] position in the frame of the joint node, u32 flags, u32 joint node) then the links (40 bytes: u32 start,
u32 end, u32[8] tail). attr3 is not described and is carried, and so are the tail words and any bytes past the
counted records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import Finding, FormatError, error, warning

TYPE_ID = 17
STREAM = "Res17"
VERTEX = np.dtype([("position", "<f4", (3,)), ("flags", "<u4"), ("joint", "<u4")])
LINK = np.dtype([("start", "<u4"), ("end", "<u4"), ("tail", "<u4", (8,))])
assert (VERTEX.itemsize, LINK.itemsize) == (20, 40)

NO_WORD = 0xFFFFFFFF  # the tail word most retail links hold
DOOR_GATE = (1, 1)    # tail words 1 and 5 of a door link: they gate nothing
# Vertex flags (W71).
CREATION = 0x800        # a factory's creation place (the first vertex with it; else the first with FALLBACK)
CREATION_FALLBACK = 0x80
CONTROL_POD = 0x40      # the control pod a capturer walks to
LOADING = 0x8           # a mine's loading place
UNLOADING = 0x10        # a storage's unloading place
ANY_SIZE = 0x10000000   # any unit size may pass
BUILDING_SIZE = 0x20000000  # a unit no bigger than the building may pass (neither bit: size class <= 2 only)
PLACES = {"creation": CREATION, "control pod": CONTROL_POD, "loading": LOADING, "unloading": UNLOADING}
GATE_WORDS = (1, 5)


@dataclass
class HallWay:
    """One stream 17 as read: the records are the source of truth, ``extra`` the bytes past them (carried)."""

    vertices: np.ndarray = field(default_factory=lambda: np.zeros(0, VERTEX))
    links: np.ndarray = field(default_factory=lambda: np.zeros(0, LINK))
    attr3: int = 0
    extra: bytes = b""

    def to_bytes(self) -> bytes:
        return self.vertices.tobytes() + self.links.tobytes() + self.extra

    @property
    def attrs(self) -> dict[str, int]:
        """The entry's attributes as written: the counts and attr3 as read."""
        return {"attr1": len(self.vertices), "attr2": len(self.links), "attr3": self.attr3}

    def gate(self, link: int) -> str:
        """What link ``link`` lets through (W71): "shut", "flyers only", or "open" (doors carry (1, 1))."""
        w1, w5 = (int(self.links["tail"][link][w]) for w in GATE_WORDS)
        if w1 == 0:
            return "shut" if w5 == 0 else "flyers only"
        return "open"

    def summary(self) -> dict:
        flags = self.vertices["flags"]
        return {"vertices": len(self.vertices), "links": len(self.links), "attr3": self.attr3,
                "extra_bytes": len(self.extra),
                "places": {name: int(np.count_nonzero(flags & bit)) for name, bit in PLACES.items()},
                "joints": sorted({int(j) for j in self.vertices["joint"]}),
                "gates": {g: sum(self.gate(i) == g for i in range(len(self.links)))
                          for g in ("open", "flyers only", "shut")}}


def parse_hallway(data: bytes | memoryview, attr1: int, attr2: int, attr3: int = 0, source: str = "") -> HallWay:
    """Strict: FormatError unless the payload is exactly ``attr1`` vertices and ``attr2`` links (29 of 29 retail
    streams) and every link's ends name a vertex (1 096 of 1 096)."""
    hallway, findings = read_hallway(data, attr1, attr2, attr3)
    errors = [f for f in findings if f.is_error]
    if errors:
        raise FormatError(errors, source)
    return hallway


def read_hallway(data: bytes | memoryview, attr1: int, attr2: int, attr3: int = 0
                 ) -> tuple[HallWay, list[Finding]]:
    """Tolerant: as many whole records as the payload holds (never more: the counts do not size anything), the
    rest carried as ``extra``; the findings say what disagrees. ``to_bytes()`` gives the payload back."""
    raw = bytes(data)
    findings: list[Finding] = []
    want = attr1 * VERTEX.itemsize + attr2 * LINK.itemsize if attr1 >= 0 and attr2 >= 0 else -1
    if want != len(raw):
        findings.append(error(STREAM, None, f"{len(raw)} bytes, but attr1 {attr1} vertices and attr2 {attr2} links "
                                            f"take {want} (20 x vertices + 40 x links)"))
    vertex_count = max(0, min(attr1, len(raw) // VERTEX.itemsize))
    vertices = np.frombuffer(raw, VERTEX, vertex_count).copy()
    at = vertex_count * VERTEX.itemsize
    link_count = max(0, min(attr2, (len(raw) - at) // LINK.itemsize))
    links = np.frombuffer(raw, LINK, link_count, at).copy()
    at += link_count * LINK.itemsize
    hallway = HallWay(vertices, links, attr3 & 0xFFFFFFFF, raw[at:])
    if not findings:  # records read past a wrong count are not links: their ends say nothing
        findings += link_checks(hallway)
    return hallway, findings


def link_checks(hallway: HallWay) -> list[Finding]:
    """A link end past the vertices is an error (none shipped); a shut gate a warning (none shipped either)."""
    out: list[Finding] = []
    count = len(hallway.vertices)
    ends = np.stack([hallway.links["start"], hallway.links["end"]], axis=-1) if len(hallway.links) else \
        np.zeros((0, 2), np.uint32)
    for i in np.flatnonzero((ends >= count).any(axis=1))[:20]:
        out.append(error(STREAM, int(i), f"link {int(i)} joins vertex {int(ends[i][0])} to {int(ends[i][1])}; "
                                         f"there are {count} vertices"))
    tails = hallway.links["tail"]
    for i in np.flatnonzero((tails[:, 1] == 0) & (tails[:, 5] == 0))[:20] if len(tails) else ():
        out.append(warning(STREAM, int(i), f"link {int(i)} is shut (tail words 1 and 5 are 0; no retail link is)"))
    return out


def joint_checks(hallway: HallWay, node_count: int) -> list[Finding]:
    """A vertex hanging on a node the model lacks: warned (the game's behaviour is unmeasured), kept."""
    out: list[Finding] = []
    for i in np.flatnonzero(hallway.vertices["joint"] >= node_count)[:20]:
        out.append(warning(STREAM, int(i), f"vertex {int(i)} hangs on node {int(hallway.vertices['joint'][i])}; "
                                           f"the model has {node_count} nodes (kept)"))
    return out


def hallway_of(model, tolerant: bool = False) -> tuple[HallWay | None, list[Finding]]:
    """The model's hall way (None when it has no stream 17) and, tolerant, what disagrees; strict raises."""
    entry = model.stream(TYPE_ID)
    if entry is None:
        return None, []
    if tolerant:
        hallway, findings = read_hallway(entry.data, entry.attr1, entry.attr2, entry.attr3)
    else:
        hallway, findings = parse_hallway(entry.data, entry.attr1, entry.attr2, entry.attr3, model.name), []
    return hallway, findings + joint_checks(hallway, model.node_count)


def validate_hallway(model) -> list[Finding]:
    return hallway_of(model, tolerant=True)[1]


def write_hallway(model, hallway: HallWay) -> bool:
    """Put ``hallway`` into the model's stream 17 (attr1/attr2 = its counts, attr3 carried). A hall way whose
    bytes equal the stream's keeps the entry untouched (its attributes too); returns whether anything changed.
    FormatError (nothing changed) for a link past the vertices."""
    errors = [f for f in link_checks(hallway) if f.is_error]
    if errors:
        raise FormatError(errors, model.name)
    entry = model.stream(TYPE_ID)
    data = hallway.to_bytes()
    if entry is not None and bytes(entry.data) == data:  # unchanged: the entry's attributes stay as read too
        return False
    model.set_stream(TYPE_ID, data, **hallway.attrs)
    return True


def hallway_of_rows(vertices: list[tuple[tuple[float, float, float], int, int]],
                    links: list[tuple[int, int, tuple[int, ...] | None]], attr3: int = 0) -> HallWay:
    """A new hall way: vertices as (position, flags, joint), links as (start, end, tail or None); a tail of None
    is the retail default, eight 0xFFFFFFFF words."""
    v = np.zeros(len(vertices), VERTEX)
    for i, (position, flags, joint) in enumerate(vertices):
        v[i] = (position, flags, joint)
    lk = np.zeros(len(links), LINK)
    for i, (start, end, tail) in enumerate(links):
        lk[i] = (start, end, tail if tail is not None else (NO_WORD,) * 8)
    return HallWay(v, lk, attr3)


def door_tail() -> tuple[int, ...]:
    """A door link's tail: words 1 and 5 are 1 (they gate nothing), the rest 0xFFFFFFFF."""
    tail = [NO_WORD] * 8
    for w in GATE_WORDS:
        tail[w] = 1
    return tuple(tail)


def flyer_tail() -> tuple[int, ...]:
    """A flyers-only link's tail: word 1 is 0, word 5 not 0 (18 retail links, on mines and factories)."""
    tail = [NO_WORD] * 8
    tail[GATE_WORDS[0]] = 0
    return tuple(tail)
