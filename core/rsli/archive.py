"""The RsLi container (world-digest section 1): a 32-byte header, an entry table of 32-byte records XORed with
a keystream (W5), and the members' packed bytes.

Reading checks every size against the file before anything is allocated; a member is unpacked only when asked
(``Member.data``), its output never longer than its declared size, and that size is checked at reading against
the most the packed bytes can give. Writing an unedited archive gives its bytes back; after an edit every
unedited member keeps its packed bytes, flags and unread record bytes, and the header its unexplained bytes and
its seed. Only the two methods the shipped files use (LZSS 0x040, Deflate 0x100: W11, W21) are written.
"""

from __future__ import annotations

import os
import stat
import struct
import zlib
from dataclasses import dataclass, field

from ..errors import Finding, FormatError, error, printable, warning
from . import lzss
from .cipher import keystream_xor

MAGIC = b"NL\x00\x01"
HEADER_SIZE = 32
RECORD_SIZE = 32
NAME_SIZE = 12
SORTED_MARK = 0xABBA  # header +0x0E: the table's sort fields already map name order to rows (W8)
STREAM = "RsLi"
MEMBER = "member"

METHOD_MASK = 0x1E0
STORED, TRANSFORM, LZSS, TRANSFORM_LZSS, HUFFMAN, TRANSFORM_HUFFMAN, DEFLATE = 0x000, 0x020, 0x040, 0x060, 0x080, \
    0x0A0, 0x100
METHOD_NAMES = {STORED: "stored", TRANSFORM: "byte transform", LZSS: "LZSS", TRANSFORM_LZSS: "transform + LZSS",
                HUFFMAN: "adaptive Huffman + LZSS", TRANSFORM_HUFFMAN: "transform + adaptive Huffman + LZSS",
                DEFLATE: "Deflate"}
WRITABLE = (LZSS, DEFLATE)  # the methods the shipped archives use; no file uses the others (W11)
READABLE = (STORED, TRANSFORM, LZSS, TRANSFORM_LZSS, DEFLATE)
DEFLATE_MAX_RATIO = 1032  # the most one byte of a Deflate stream can give (RFC 1951's longest match per bit pair)

_HEADER = struct.Struct("<4shh6sHII8s")
_RECORD = struct.Struct("<12s4sHHIII")


def is_rsli(data: bytes | memoryview) -> bool:
    """Whether ``data`` begins as an RsLi archive does (W2)."""
    return bytes(data[:4]) == MAGIC


def is_rsli_file(path) -> bool:
    """Whether the file at ``path`` begins as an RsLi archive does (False when it cannot be read)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or device would block the open, or never end
            return False
        with open(path, "rb") as handle:
            return is_rsli(handle.read(4))
    except (OSError, ValueError):
        return False


def method_name(method: int) -> str:
    return METHOD_NAMES.get(method, f"unknown method {method:#05x}")


def most_unpacked(method: int, packed_size: int) -> int:
    """The largest unpacked size ``packed_size`` bytes of ``method`` can give."""
    if method in (STORED, TRANSFORM):
        return packed_size
    if method in (LZSS, TRANSFORM_LZSS):
        return lzss.most_unpacked(packed_size)
    return packed_size * DEFLATE_MAX_RATIO + 1024


def name_field(name: str | bytes) -> bytes:
    """A member name as its 12-byte field: uppercase ASCII (the loader uppercases what it looks up: W8)."""
    raw = name.encode("utf-8") if isinstance(name, str) else bytes(name)
    shown = printable(name if isinstance(name, str) else raw.decode("latin-1"))
    if not raw or len(raw) > NAME_SIZE or any(b < 0x21 or b > 0x7E for b in raw):
        raise FormatError.single(STREAM, None, f"member name {shown!r}: 1 to {NAME_SIZE} printable ASCII characters, "
                                               "no spaces")
    return raw.upper().ljust(NAME_SIZE, b"\0")


@dataclass(eq=False)
class Member:
    """One table record and its packed bytes."""

    name_raw: bytes             # the whole 12-byte field (bytes after the NUL kept)
    flags: int                  # u16; the method is flags & 0x1E0, the other bits kept as they are
    size: int                   # unpacked size
    packed: bytes | memoryview  # the packed bytes (of a member read, those inside the file)
    unread: bytes = bytes(4)    # record +0x0C, which the loader does not read
    sort_field: int = 0         # record +0x12 (W8)
    declared_packed: int | None = None  # the record's packed size when it differs from len(packed) (W17's quirk)
    read_offset: int | None = field(default=None, repr=False)
    index: int = field(default=0, repr=False)   # the row it was read from (findings name it)
    unreadable: Finding | None = field(default=None, repr=False)  # a tolerant read: why its bytes are not there

    @property
    def name(self) -> bytes:
        return self.name_raw.split(b"\0", 1)[0]

    @property
    def name_str(self) -> str:
        return printable(self.name.decode("latin-1"))

    @property
    def method(self) -> int:
        return self.flags & METHOD_MASK

    @property
    def packed_size(self) -> int:
        return len(self.packed) if self.declared_packed is None else self.declared_packed

    def data(self, source: str = "") -> bytes:
        """The unpacked bytes, exactly ``size`` of them; FormatError naming the member when they cannot be had."""
        data, findings = self.unpack()
        problems = [f for f in findings if f.is_error]
        if problems:
            raise FormatError(problems, source)
        return data

    def unpack(self) -> tuple[bytes, list[Finding]]:
        """The unpacked bytes (at most ``size``) and what was wrong on the way."""
        where = self.name_str

        def bad(message: str) -> Finding:
            return error(MEMBER, self.index, message).located(where)

        if self.unreadable is not None:
            return b"", [self.unreadable]
        method = self.method
        if method not in READABLE:
            return b"", [bad(f"{method_name(method)} ({method:#05x}) is not unpacked by this reader")]
        if self.size > most_unpacked(method, len(self.packed)):
            return b"", [bad(f"declares {self.size} unpacked bytes; {len(self.packed)} packed bytes of "
                             f"{method_name(method)} give at most {most_unpacked(method, len(self.packed))}")]
        packed = self.packed
        if method in (TRANSFORM, TRANSFORM_LZSS):
            packed = keystream_xor(packed, self.sort_field)  # keyed by the record's +0x12 (W12)
        findings: list[Finding] = []
        if method in (STORED, TRANSFORM):
            data = bytes(packed[:self.size])
        elif method in (LZSS, TRANSFORM_LZSS):
            data, _ = lzss.unpack(packed, self.size)
        else:
            inflater = zlib.decompressobj(-15)
            try:
                data = inflater.decompress(packed, self.size)
            except zlib.error as exc:
                return b"", [bad(f"the Deflate stream is broken: {exc}")]
            if len(data) == self.size and not inflater.eof and _more_output(inflater):
                findings.append(warning(MEMBER, self.index, "the Deflate stream goes on past the declared size"
                                        ).located(where))
        if len(data) < self.size:
            findings.append(bad(f"{method_name(method)} stream gives {len(data)} bytes, {self.size} declared"))
        return data, findings


def _more_output(inflater) -> bool:
    """Whether a Deflate stream cut at its declared size would give more bytes (one more is enough to tell)."""
    try:
        return bool(inflater.decompress(inflater.unconsumed_tail, 1))
    except zlib.error:
        return False


def pack_member(data: bytes, method: int) -> bytes:
    if method == LZSS:
        return lzss.pack(data)
    if method == DEFLATE:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)  # a conventional raw stream (W18)
        return packer.compress(data) + packer.flush()
    raise FormatError.single(STREAM, None, f"{method_name(method)} is used by no shipped archive; members are "
                                           "written as LZSS (0x040) or Deflate (0x100)")


def sort_fields(members: list[Member]) -> list[int]:
    """Row i's +0x12 as the loader reads it (W8): the row of the i-th name in unsigned byte order."""
    return sorted(range(len(members)), key=lambda i: (members[i].name, i))


class Archive:
    """An RsLi archive: its members in table order and the header bytes no source explains."""

    def __init__(self, members: list[Member] | None = None, seed: int = 0, reserved: bytes = bytes(6),
                 sorted_mark: int = SORTED_MARK, tail: bytes = bytes(8)) -> None:
        self.members: list[Member] = list(members or [])
        self.seed = seed                # header +0x14: the table's cipher seed (low 16 bits used)
        self.reserved = reserved        # header +0x08, six bytes no source describes
        self.sorted_mark = sorted_mark  # header +0x0E
        self.tail = tail                # header +0x18, zero in retail
        self.findings: list[Finding] = []
        self._source: bytes | None = None
        self._read_state: list[tuple] = []

    # ----------------------------------------------------------------- reading
    @classmethod
    def parse(cls, data: bytes | bytearray | memoryview, source: str = "", tolerant: bool = False) -> Archive:
        """Read the header and the table; raise FormatError listing every problem. ``tolerant``: a record whose
        bytes are not in the file stays in place without them (``Member.unreadable``; the archive is then not
        written back) and the others are read. A bad header or a table past the end of the file still raises."""
        data = bytes(data)
        size = len(data)
        if size < HEADER_SIZE:
            what = "empty file" if size == 0 else f"truncated header: {size} bytes, an RsLi header needs {HEADER_SIZE}"
            raise FormatError.single(STREAM, None, what, source)
        magic, count, count_again, reserved, mark, total, seed, tail = _HEADER.unpack_from(data)
        if magic != MAGIC:
            raise FormatError.single(STREAM, None, f"bad magic {magic!r}, expected {MAGIC!r}", source)
        problems = []
        if count < 0:
            problems.append(error(STREAM, None, f"negative entry count {count}"))
        if count != count_again:
            problems.append(error(STREAM, None, f"entry count {count} at +4 but {count_again} at +6 (the loader "
                                                "checks both)"))
        table_end = HEADER_SIZE + RECORD_SIZE * max(count, 0)
        if not problems and table_end > size:
            problems.append(error(STREAM, None, f"entry count {count} needs a {RECORD_SIZE * count}-byte table; only "
                                                f"{size - HEADER_SIZE} bytes follow the header"))
        if problems:
            raise FormatError(problems, source)
        archive = cls(seed=seed, reserved=reserved, sorted_mark=mark, tail=tail)
        table = keystream_xor(data[HEADER_SIZE:table_end], seed)
        for i in range(count):
            name_raw, unread, flags, sort_field, unpacked, offset, packed_size = _RECORD.unpack_from(
                table, i * RECORD_SIZE)
            member = Member(name_raw, flags, unpacked, b"", unread, sort_field, None, offset, i)
            shown = member.name_str
            bad = None
            if not member.name:
                archive.findings.append(warning(MEMBER, i, "empty name"))
            if offset > size:
                bad = f"packed bytes at {offset}, past the end of the file ({size} bytes)"
            elif member.method not in METHOD_NAMES:
                bad = f"unknown storage method {member.method:#05x} (flags {flags:#06x})"
            elif unpacked > most_unpacked(member.method, min(packed_size, size - offset)):
                bad = (f"declares {unpacked} unpacked bytes; {min(packed_size, size - offset)} packed bytes of "
                       f"{method_name(member.method)} give at most "
                       f"{most_unpacked(member.method, min(packed_size, size - offset))}")
            if bad is not None:
                problems.append(error(MEMBER, i, bad).located(shown))
                if tolerant:
                    member.unreadable = problems[-1]
                    member.declared_packed = packed_size
                    archive.members.append(member)
                continue
            member.packed = memoryview(data)[offset:offset + packed_size]
            if offset + packed_size > size:  # sprites.lib's INTERF8.TEX: one byte past the end (W17)
                member.declared_packed = packed_size
                archive.findings.append(warning(MEMBER, i, f"packed size {packed_size} runs "
                                                           f"{offset + packed_size - size} bytes past the end of the "
                                                           "file; read up to the end").located(shown))
            archive.members.append(member)
        if problems and not tolerant:
            raise FormatError(problems, source)
        archive.findings[:0] = problems
        if total != sum(m.size for m in archive.members):
            archive.findings.append(warning(STREAM, None, f"header +0x10 holds {total}, the unpacked sizes add up "
                                                          f"to {sum(m.size for m in archive.members)}"))
        if mark == SORTED_MARK and [m.sort_field for m in archive.members] != sort_fields(archive.members):
            archive.findings.append(warning(STREAM, None, "the table is marked sorted (0xABBA) but its sort fields "
                                                          "do not list the names in order; the loader then scans"))
        archive._source = data
        archive._read_state = archive._state()
        return archive

    def _state(self) -> list[tuple]:
        return [(m, m.name_raw, m.flags, m.size, m.packed, m.unread, m.sort_field) for m in self.members]

    # ----------------------------------------------------------------- lookup
    def __iter__(self):
        return iter(self.members)

    def __len__(self) -> int:
        return len(self.members)

    def find(self, name: str | bytes) -> Member | None:
        """The member of this name, compared as the loader does: the query uppercased, names as bytes."""
        key = (name.encode("latin-1", "replace") if isinstance(name, str) else bytes(name)).upper()
        return next((m for m in self.members if m.name.upper() == key), None)

    def pick(self, name: str) -> Member | None:
        """A member by name, or ``#N`` for row N."""
        if name.startswith("#") and name[1:].isdigit():
            index = int(name[1:])
            return self.members[index] if index < len(self.members) else None
        return self.find(name)

    # ----------------------------------------------------------------- editing
    def add(self, name: str | bytes, data: bytes, method: int = DEFLATE) -> Member:
        """A new member, packed by ``method`` (LZSS or Deflate)."""
        raw = name_field(name)
        if self.find(raw.rstrip(b"\0")) is not None:
            raise FormatError.single(STREAM, None, f"a member named {raw.rstrip(bytes(1)).decode()!r} exists")
        member = Member(raw, method, len(data), pack_member(bytes(data), method), index=len(self.members))
        self.members.append(member)
        return member

    def replace(self, name: str | bytes, data: bytes, method: int | None = None) -> Member:
        """New unpacked bytes for a member, packed by ``method`` (default: its own); its other fields kept."""
        member = self._require(name)
        method = member.method if method is None else method
        member.packed = pack_member(bytes(data), method)
        member.flags = member.flags & ~METHOD_MASK | method
        member.size = len(data)
        member.declared_packed = None
        member.unreadable = None
        return member

    def remove(self, name: str | bytes) -> None:
        self.members.remove(self._require(name))

    def rename(self, name: str | bytes, new_name: str | bytes) -> None:
        self._require(name).name_raw = name_field(new_name)

    def _require(self, name: str | bytes) -> Member:
        member = self.find(name)
        if member is None:
            shown = name if isinstance(name, str) else name.decode("latin-1")
            raise FormatError.single(STREAM, None, f"no member named {printable(shown)!r}")
        return member

    # ----------------------------------------------------------------- writing
    def to_bytes(self) -> bytes:
        """The archive's bytes: the bytes read when nothing was edited. Refuses (FormatError naming the member)
        a member that could not be read or whose method no shipped file uses."""
        problems = [m.unreadable for m in self.members if m.unreadable is not None]
        if problems:
            raise FormatError([*problems, error(STREAM, None, "the archive has members that could not be read; it "
                                                              "cannot be written back")])
        problems = [error(MEMBER, i, f"{method_name(m.method)} ({m.method:#05x}) is used by no shipped archive and "
                                     "is not written; replace it as LZSS or Deflate").located(m.name_str)
                    for i, m in enumerate(self.members) if m.method not in WRITABLE]
        if problems:
            raise FormatError(problems)
        if self._source is not None and self._state() == self._read_state:
            return self._source
        return self._packed()

    def _packed(self) -> bytes:
        names_as_read = self._source is not None and [m.name_raw for m in self.members] == [
            s[1] for s in self._read_state]
        fields = [m.sort_field for m in self.members] if names_as_read else sort_fields(self.members)
        count = len(self.members)
        offset = HEADER_SIZE + RECORD_SIZE * count
        table, body = bytearray(), bytearray()
        for member, sort_field in zip(self.members, fields):
            packed = bytes(member.packed)
            declared = member.packed_size if member is self.members[-1] else len(packed)
            table += _RECORD.pack(member.name_raw, member.unread, member.flags, sort_field, member.size,
                                  offset + len(body), declared)
            body += packed
        total = sum(m.size for m in self.members)
        if count > 0x7FFF or total > 0xFFFFFFFF:
            raise FormatError.single(STREAM, None, f"{count} members of {total} unpacked bytes in all; an archive "
                                                   "holds at most 32767 members and 4 GiB")
        header = _HEADER.pack(MAGIC, count, count, self.reserved, self.sorted_mark, total, self.seed, self.tail)
        return header + keystream_xor(table, self.seed) + bytes(body)
