"""A mission's placement file ``data.tma`` (openparkan docs/04-missions.md).

Layout (little-endian): version; routes; clan-table version, clans; object-record version, objects; then,
by the object version (docs/formats/maps.md), the map path, the map word and the description (above 1) and the lode
table (above 4). Fields are read by the version that introduced them (op/pp: clan fields from 2..6, object
fields from 3..10). Strings are a u32 byte length and that many bytes, kept as raw bytes (the description's
length is a buffer capacity: what follows its NUL is garbage, kept too). Floats are float32 arrays, so their
bits come back as read; words no source explains are kept and written back unchanged. Bytes after
the last field, which no retail file has, are kept in ``tail``.

Every count is checked against the bytes left before anything is built: a count that lies costs no memory.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..errors import FormatError

OBJECT_MARKER = 0x80000002
KIND_BUILDING, KIND_UNIT, KIND_VEGETATION, KIND_ROCK = 0, 1, 2, 3
KIND_NAMES = {0: "building", 1: "unit", 2: "vegetation", 3: "rock"}
CLAN_TYPES = {0: "nature", 1: "player", 2: "enemy", 3: "neutral"}
NOT_INSIDE = 0xFFFFFFFF   # host/vertex -1: the unit does not start inside a building
ZONE = np.dtype([("kind", "<u4"), ("centre", "<f4", (3,)), ("inner", "<f4"), ("outer", "<f4")])
PROPERTY = np.dtype([("type", "<u4"), ("value", "<u4"), ("min", "<u4"), ("max", "<u4")])
LODE = np.dtype([("position", "<f4", (3,)), ("found", "<u4"), ("type", "<u4"), ("amount", "<f4"),
                 ("word", "<u4")])
TEXT = "cp1251"
_U32 = struct.Struct("<I")


def text(raw: bytes | None) -> str:
    """A string as shown: up to its first NUL, cp1251 (what follows a NUL is kept in the bytes, not shown)."""
    return (raw or b"").split(b"\0", 1)[0].decode(TEXT, "replace")


@dataclass(eq=False)
class Route:
    id: int
    points: np.ndarray          # (n, 3) float32


@dataclass(eq=False)
class Clan:
    name: bytes
    parent: int                 # u32, -1 on all retail clans
    base: np.ndarray            # (2,) float32
    type: int                   # 0 nature, 1 player, 2 enemy, 3 neutral
    script: bytes | None = None         # v > 1
    zones: np.ndarray | None = None     # v > 2, ZONE records
    behaviour: bytes | None = None      # v > 3, .trf
    minds: int | None = None            # v > 4
    relations: list[tuple[bytes, int]] | None = None  # v > 5


@dataclass(eq=False)
class Property:
    words: np.void              # PROPERTY record: type (0 f32, 1 i32), value, min, max, raw u32 each
    name: bytes


@dataclass(eq=False)
class PlacedObject:
    kind: int
    marker: int
    path: bytes
    position: np.ndarray        # (3,) float32, world frame of Land.msh (Z up)
    turns: np.ndarray           # (3,) float32, radians about x, y, z; matrix Rz Ry Rx
    clan: int | None = None             # v >= 3
    logical_id: int | None = None       # v >= 4, u32 as stored
    scale: np.ndarray | None = None     # v >= 10
    name: bytes | None = None           # v >= 7
    start_flag: int | None = None       # v >= 8
    host: int | None = None             # v >= 9, u32 as stored
    vertex: int | None = None           # v >= 9
    property_word: int | None = None    # v >= 6
    properties: list[Property] | None = None

    @property
    def kind_name(self) -> str:
        return KIND_NAMES.get(self.kind, f"kind {self.kind}")

    @property
    def is_scenery(self) -> bool:
        """Kinds 2 and 3 name an objects.rlb STAT record; 0 and 1 a .dat file (04-missions.md)."""
        return self.kind in (KIND_VEGETATION, KIND_ROCK)


@dataclass(eq=False)
class Mission:
    version: int
    routes: list[Route]
    clan_version: int
    clans: list[Clan]
    object_version: int
    objects: list[PlacedObject]
    map_path: bytes | None = None
    map_word: int | None = None
    description: bytes | None = None
    lode_word: int | None = None
    lodes: np.ndarray | None = None
    tail: bytes = b""
    source: str = ""

    @property
    def map_text(self) -> str:
        return text(self.map_path)

    # ----------------------------------------------------------------- writing
    def to_bytes(self) -> bytes:
        w = RecordWriter()
        w.u32(self.version)
        w.u32(len(self.routes))
        for route in self.routes:
            w.u32(route.id)
            w.u32(len(route.points))
            w.raw(np.asarray(route.points, "<f4").tobytes())
        w.u32(self.clan_version)
        w.u32(len(self.clans))
        for clan in self.clans:
            _write_clan(w, clan, self.clan_version)
        w.u32(self.object_version)
        w.u32(len(self.objects))
        for obj in self.objects:
            write_object(w, obj, self.object_version)
        if self.object_version > 1:
            w.string(self.map_path or b"")
            w.u32(self.map_word or 0)
            w.string(self.description or b"")
        if self.object_version > 4:
            w.u32(self.lode_word or 0)
            lodes = self.lodes if self.lodes is not None else np.zeros(0, LODE)
            w.u32(len(lodes))
            w.raw(lodes.tobytes())
        w.raw(self.tail)
        return bytes(w.out)


class RecordWriter:
    """The bytes of a data.tma (or one of its records) as they are written: little-endian words, strings
    after their length, float32 runs."""

    def __init__(self) -> None:
        self.out = bytearray()

    def u32(self, value: int) -> None:
        self.out += _U32.pack(value & 0xFFFFFFFF)

    def raw(self, data: bytes) -> None:
        self.out += data

    def string(self, data: bytes) -> None:
        self.u32(len(data))
        self.out += data

    def floats(self, values: np.ndarray) -> None:
        self.out += np.asarray(values, "<f4").tobytes()


def _write_clan(w: RecordWriter, clan: Clan, version: int) -> None:
    w.string(clan.name)
    w.u32(clan.parent)
    w.floats(clan.base)
    w.u32(clan.type)
    if version > 1:
        w.string(clan.script or b"")
    if version > 2:
        zones = clan.zones if clan.zones is not None else np.zeros(0, ZONE)
        w.u32(len(zones))
        w.raw(zones.tobytes())
    if version > 3:
        w.string(clan.behaviour or b"")
    if version > 4:
        w.u32(clan.minds or 0)
    if version > 5:
        w.u32(len(clan.relations or []))
        for name, relation in clan.relations or []:
            w.string(name)
            w.u32(relation)


def write_object(w: RecordWriter, obj: PlacedObject, version: int) -> None:
    """One placed object's record, as a mission of object version ``version`` holds it."""
    w.u32(obj.kind)
    w.u32(obj.marker)
    w.string(obj.path)
    if version >= 3:
        w.u32(obj.clan or 0)
    if version >= 4:
        w.u32(obj.logical_id or 0)
    w.floats(obj.position)
    w.floats(obj.turns)
    if version >= 10:
        w.floats(obj.scale if obj.scale is not None else np.ones(3, "<f4"))
    if version >= 7:
        w.string(obj.name or b"")
    if version >= 8:
        w.u32(obj.start_flag or 0)
    if version >= 9:
        w.u32(NOT_INSIDE if obj.host is None else obj.host)
        w.u32(NOT_INSIDE if obj.vertex is None else obj.vertex)
    if version >= 6:
        w.u32(obj.property_word or 0)
        w.u32(len(obj.properties or []))
        for prop in obj.properties or []:
            w.raw(prop.words.tobytes())
            w.string(prop.name)


# --------------------------------------------------------------------- reading
class RecordReader:
    """A cursor over a data.tma's bytes (or one record's): each read names what it reads, and a read past the
    end is a FormatError naming ``stream``, ``index`` and the byte."""

    def __init__(self, data: bytes, source: str) -> None:
        self.data, self.source, self.at = data, source, 0
        self.stream, self.index = "header", None

    def fail(self, message: str) -> FormatError:
        return FormatError.single(self.stream, self.index, f"{message} (at byte {self.at})", self.source)

    def take(self, size: int, what: str) -> bytes:
        if size > len(self.data) - self.at:
            raise self.fail(f"{what} needs {size} bytes, only {len(self.data) - self.at} remain")
        chunk = self.data[self.at:self.at + size]
        self.at += size
        return chunk

    def u32(self, what: str) -> int:
        return _U32.unpack(self.take(4, what))[0]

    def count(self, what: str, least: int) -> int:
        """A count of records of at least ``least`` bytes each, refused when the bytes left cannot hold them."""
        n = self.u32(f"{what} count")
        if n * least > len(self.data) - self.at:
            raise self.fail(f"{what} count {n} needs at least {n * least} bytes, only "
                            f"{len(self.data) - self.at} remain")
        return n

    def string(self, what: str) -> bytes:
        n = self.u32(f"{what} length")
        return self.take(n, f"{what} ({n} bytes)")

    def floats(self, n: int, what: str) -> np.ndarray:
        return np.frombuffer(self.take(4 * n, what), "<f4").copy()

    def records(self, dtype: np.dtype, n: int, what: str) -> np.ndarray:
        return np.frombuffer(self.take(dtype.itemsize * n, what), dtype).copy()


def parse_tma(data: bytes | memoryview, source: str = "") -> Mission:
    """Read a data.tma; FormatError naming the part (routes, clans, objects, trailer, lodes), the record's index
    and the byte where it breaks."""
    r = RecordReader(bytes(data), source)
    version = r.u32("version")
    r.stream = "routes"
    routes = []
    for i in range(r.count("route", 8)):
        r.index = i
        route_id = r.u32("route id")
        n = r.count("point", 12)
        routes.append(Route(route_id, r.floats(3 * n, "points").reshape(n, 3)))
    r.stream, r.index = "clans", None
    clan_version = r.u32("clan-table version")
    clans = []
    for i in range(r.count("clan", 20)):
        r.index = i
        clans.append(_read_clan(r, clan_version))
    r.stream, r.index = "objects", None
    object_version = r.u32("object-record version")
    objects = []
    for i in range(r.count("object", 36)):
        r.index = i
        objects.append(read_object(r, object_version))
    mission = Mission(version, routes, clan_version, clans, object_version, objects, source=source)
    r.stream, r.index = "trailer", None
    if object_version > 1:
        mission.map_path = r.string("map path")
        mission.map_word = r.u32("map word")
        mission.description = r.string("description")
    if object_version > 4:
        r.stream = "lodes"
        mission.lode_word = r.u32("lode-table word")
        mission.lodes = r.records(LODE, r.count("lode", LODE.itemsize), "lodes")
    mission.tail = r.data[r.at:]
    return mission


def _read_clan(r: RecordReader, version: int) -> Clan:
    clan = Clan(r.string("name"), r.u32("parent word"), r.floats(2, "base"), r.u32("type"))
    if version > 1:
        clan.script = r.string("AI script")
    if version > 2:
        clan.zones = r.records(ZONE, r.count("zone", ZONE.itemsize), "zones")
    if version > 3:
        clan.behaviour = r.string("behaviour tree")
    if version > 4:
        clan.minds = r.u32("minds")
    if version > 5:
        clan.relations = []
        for _ in range(r.count("relation", 8)):
            name = r.string("relation's clan name")
            clan.relations.append((name, r.u32("relation")))
    return clan


def read_object(r: RecordReader, version: int) -> PlacedObject:
    """One placed object's record at the cursor (object version ``version``)."""
    kind, marker = r.u32("kind"), r.u32("marker")
    path = r.string("path")
    clan = r.u32("clan index") if version >= 3 else None
    logical_id = r.u32("logical id") if version >= 4 else None
    obj = PlacedObject(kind, marker, path, r.floats(3, "position"), r.floats(3, "turns"), clan, logical_id)
    if version >= 10:
        obj.scale = r.floats(3, "scale")
    if version >= 7:
        obj.name = r.string("instance name")
    if version >= 8:
        obj.start_flag = r.u32("start flag")
    if version >= 9:
        obj.host, obj.vertex = r.u32("host"), r.u32("host vertex")
    if version >= 6:
        obj.property_word = r.u32("property-table word")
        obj.properties = []
        for _ in range(r.count("property", PROPERTY.itemsize + 4)):
            words = r.records(PROPERTY, 1, "property")[0]
            obj.properties.append(Property(words, r.string("property name")))
    return obj


def signed(word: int) -> int:
    return word - (1 << 32) if word & 0x80000000 else word
