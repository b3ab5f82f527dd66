"""The NRes container (shared/spec/nres.md): read, look up, edit, write.

Payloads are zero-copy ``memoryview`` slices of the bytes read. Writing an
unedited archive reproduces it: by the canonical writer when the input was
laid out canonically (every retail archive is), else by writing the
payloads back in place over the original bytes, so that gaps and odd
padding survive too.
"""

from __future__ import annotations

import codecs
import itertools
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..errors import Finding, FormatError, error, warning

MAGIC = b"NRes"
VERSION = 0x100
HEADER_SIZE = 16
RECORD_SIZE = 64
NAME_FIELD = 36
NAME_MAX = NAME_FIELD - 1
ALIGN = 8
MODEL_TYPE_ID = 0x4853454D  # the bytes "MESH"

_HEADER = struct.Struct("<4sIiI")
_RECORD = struct.Struct("<5I36sII")
STREAM = "NRes"


def fold(name: bytes) -> bytes:
    """Lowercase ASCII fold used for sorting and lookup (nres.md, sort_index)."""
    return name.lower()  # bytes.lower() folds A..Z only, as the spec wants


TEXT_ENCODING = "cp1251"
# Byte 0x98, the one cp1251 leaves undefined, read as U+0098 in game text (``game_text``) and written back
# (``game_bytes``), so that a list naming it round trips; names use ``name_text``'s escapes instead.
_UNDEFINED = "parkan.cp1251-undefined"


def _undefined(exc: UnicodeError) -> tuple[str | bytes, int]:
    if isinstance(exc, UnicodeDecodeError):
        return "".join(map(chr, exc.object[exc.start:exc.end])), exc.end  # 0x98 -> U+0098
    if isinstance(exc, UnicodeEncodeError) and exc.object[exc.start:exc.end] == "\x98" * (exc.end - exc.start):
        return b"\x98" * (exc.end - exc.start), exc.end
    raise exc


codecs.register_error(_UNDEFINED, _undefined)


def game_text(raw: bytes) -> str:
    """Game text (cp1251) as str, losslessly: ``game_bytes`` gives the same bytes back."""
    return bytes(raw).decode(TEXT_ENCODING, _UNDEFINED)


def game_bytes(text: str) -> bytes:
    """str as game text (cp1251); UnicodeEncodeError for a character cp1251 has not."""
    return text.encode(TEXT_ENCODING, _UNDEFINED)


def _name_char(byte: int) -> str:
    char = bytes([byte]).decode(TEXT_ENCODING, "replace")
    if byte == 0x5C:
        return "\\\\"
    if char == "\ufffd" or byte < 0x20 or byte == 0x7F:
        return f"\\x{byte:02x}"
    return char


_NAME_CHARS = [_name_char(b) for b in range(256)]


def name_text(raw: bytes) -> str:
    """A name's bytes as printable text, losslessly: cp1251, with a byte cp1251 does not define (0x98), a
    control character or a backslash written as an escape (``\\x98``, ``\\x1b``, ``\\\\``).
    ``name_bytes`` turns the text back into the same bytes."""
    return "".join(map(_NAME_CHARS.__getitem__, raw))


def name_bytes(text: str | bytes) -> bytes:
    """The bytes of a name given as text (``name_text``'s escapes undone); FormatError naming what cp1251
    cannot hold."""
    if isinstance(text, bytes):
        return text
    if "\\" not in text:  # no escapes: the common case, encoded at once
        try:
            return game_bytes(text)
        except UnicodeEncodeError:
            pass  # the loop below names the character
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\" and text[i + 1:i + 2] == "\\":
            out.append(0x5C)
            i += 2
        elif text[i] == "\\" and text[i + 1:i + 2] == "x" and _is_hex(text[i + 2:i + 4]):
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            try:
                out += game_bytes(text[i])
            except UnicodeEncodeError:
                raise FormatError.single(STREAM, None, f"name {text!r}: {text[i]!r} cannot be stored in code page "
                                                       "1251") from None
            i += 1
    return bytes(out)


def lookup_key(name: bytes | str) -> bytes | None:
    """The folded name entries are looked up by; None for a name cp1251 cannot hold (it names no entry)."""
    try:
        return fold(name_bytes(name))
    except FormatError:
        return None


def _is_hex(digits: str) -> bool:
    return len(digits) == 2 and all(c in "0123456789abcdefABCDEF" for c in digits)


def name_field(name: bytes | str) -> bytes:
    """A name as its 36-byte directory field; refuses what cannot be stored."""
    raw = name_bytes(name)
    shown = name_text(raw)
    if b"\0" in raw:
        raise FormatError.single(STREAM, None, f"name {shown!r} contains a NUL byte")
    if len(raw) > NAME_MAX:
        raise FormatError.single(STREAM, None, f"name {shown!r} is {len(raw)} bytes, at most {NAME_MAX} fit")
    if not raw:
        raise FormatError.single(STREAM, None, "empty name")
    return raw.ljust(NAME_FIELD, b"\0")


@dataclass(eq=False)
class Entry:
    """One directory record and its payload. ``name_raw`` is the whole field."""

    type_id: int
    attr1: int
    attr2: int
    attr3: int
    name_raw: bytes
    data: bytes | memoryview
    # Where the entry was read from; used only to rewrite a non-canonical file in place.
    read_offset: int | None = field(default=None, repr=False)
    read_sort_index: int | None = field(default=None, repr=False)
    # The first entry read with exactly the same payload bytes (offset and size), when records alias.
    alias_of: Entry | None = field(default=None, repr=False)
    # A tolerant read keeps a record whose payload cannot be read, without data: why (the archive is then
    # not written back).
    unreadable: Finding | None = field(default=None, repr=False)

    @property
    def name(self) -> bytes:
        return self.name_raw.split(b"\0", 1)[0]

    @property
    def name_str(self) -> str:
        """The name as printable text that ``name_bytes`` turns back into the same bytes."""
        return name_text(self.name)

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def is_model(self) -> bool:
        """A nested model (nres.md, "Names and nesting"): type MESH, or a ``.msh`` name on an NRes payload.

        The payload check keeps a model's own streams, which may carry the
        model's file name, from being taken for nested models.
        """
        if self.type_id == MODEL_TYPE_ID:
            return True
        return fold(self.name).endswith(b".msh") and bytes(self.data[:4]) == MAGIC


def _canonical_sort_table(entries: list[Entry]) -> list[int]:
    return sorted(range(len(entries)), key=lambda i: fold(entries[i].name))


class Archive:
    """An NRes container: an ordered list of entries."""

    def __init__(self, entries: list[Entry] | None = None) -> None:
        self.entries: list[Entry] = list(entries or [])
        self.findings: list[Finding] = []
        self._source: bytes | memoryview | None = None
        self._read_entries: list[Entry] = []
        self._read_layout: list[tuple[int, bytes]] = []
        self._read_canonical = True
        self._read_table: list[int] | None = None

    # ----------------------------------------------------------------- reading
    @classmethod
    def parse(cls, data: bytes | bytearray | memoryview, source: str = "", tolerant: bool = False) -> Archive:
        """Parse with every check of nres.md; raise FormatError listing all problems.

        ``tolerant``: a bad directory record (a payload outside the data area, a name without NUL) does not
        refuse the others: it becomes an error in ``findings``, and an unreadable record stays in place
        without data (``Entry.unreadable``), so that entry indices do not move; such an archive is not
        written back (``to_bytes`` raises). A bad header still raises."""
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else memoryview(data)
        size = len(view)
        if size < HEADER_SIZE:
            what = "empty file" if size == 0 else f"truncated header: {size} bytes, an NRes header needs {HEADER_SIZE}"
            raise FormatError.single(STREAM, None, what, source)
        magic, version, count, total = _HEADER.unpack_from(view, 0)
        problems: list[Finding] = []
        if magic != MAGIC:
            raise FormatError.single(STREAM, None, f"bad magic {bytes(magic)!r}, expected b'NRes'", source)
        if version != VERSION:
            problems.append(error(STREAM, None, f"version {version:#x}, expected {VERSION:#x}"))
        if count < 0:
            problems.append(error(STREAM, None, f"negative entry count {count}"))
        if total != size:
            problems.append(error(STREAM, None, f"total_size {total} does not match the file length {size}"))
        if problems:
            raise FormatError(problems, source)
        directory = total - RECORD_SIZE * count
        if directory < HEADER_SIZE:
            raise FormatError.single(
                STREAM, None,
                f"entry count {count} needs a {RECORD_SIZE * count}-byte directory; "
                f"only {size - HEADER_SIZE} bytes follow the header",
                source,
            )
        archive = cls()
        sort_indices = []
        for i in range(count):
            type_id, a1, a2, length, a3, name_raw, offset, sort_index = _RECORD.unpack_from(
                view, directory + i * RECORD_SIZE
            )
            if b"\0" not in name_raw:
                problems.append(error("entry", i, "name has no NUL terminator within its 36 bytes"))
            if offset < HEADER_SIZE or offset + length > directory:
                problems.append(error(
                    "entry", i,
                    f"payload [{offset}, {offset + length}) lies outside the data area [{HEADER_SIZE}, {directory})",
                ))
                if tolerant:  # named, as the entry is kept: file:name: entry[i]: error: ...
                    problems[-1] = problems[-1].located(name_text(name_raw.split(b"\0", 1)[0]))
                    archive.entries.append(Entry(type_id, a1, a2, a3, name_raw, b"", offset, sort_index,
                                                 unreadable=problems[-1]))
                    sort_indices.append(sort_index)
                continue
            payload = view[offset:offset + length]
            archive.entries.append(Entry(type_id, a1, a2, a3, name_raw, payload, offset, sort_index))
            sort_indices.append(sort_index)
        if problems and not tolerant:
            raise FormatError(problems, source)
        archive._remember_layout(view, sort_indices)
        archive.findings[:0] = problems
        return archive

    def _remember_layout(self, view: memoryview, sort_indices: list[int]) -> None:
        self._source = view
        self._read_entries = list(self.entries)
        self._read_layout = [(e.size, e.name_raw) for e in self.entries]
        n = len(self.entries)
        canonical_table = _canonical_sort_table(self.entries)
        table_ok = sorted(sort_indices) == list(range(n)) and all(
            fold(self.entries[a].name) <= fold(self.entries[b].name)
            for a, b in itertools.pairwise(sort_indices)
        )
        self._read_table = sort_indices if table_ok else None
        if not table_ok:
            self.findings.append(warning(STREAM, None, "sort_index table is broken; lookups scan linearly"))
        offset = HEADER_SIZE
        canonical = sort_indices == canonical_table
        for i, entry in enumerate(self.entries):
            if entry.read_offset % ALIGN:
                self.findings.append(warning("entry", i, f"payload offset {entry.read_offset} is not 8-aligned"))
            end = entry.read_offset + entry.size
            padding = view[end:min(_padded(end), len(view))]
            if entry.read_offset != offset or any(padding):
                canonical = False
            offset += _padded(entry.size)
        if offset != len(view) - RECORD_SIZE * len(self.entries):
            canonical = False
        self._read_canonical = canonical
        self._find_aliases()

    def _find_aliases(self) -> None:
        """Payloads that share bytes (nres.md does not forbid it): a warning each, and ``alias_of`` for exact
        repeats, so that readers do the work once per payload. Sorted once: linear after the sort."""
        first: dict[tuple[int, int], Entry] = {}
        overlapping = []
        end, end_index = HEADER_SIZE, None
        for i in sorted(range(len(self.entries)), key=lambda i: (self.entries[i].read_offset, i)):
            entry = self.entries[i]
            if not entry.size:
                continue
            entry.alias_of = first.setdefault((entry.read_offset, entry.size), entry)
            if entry.alias_of is entry:
                entry.alias_of = None
            if entry.read_offset < end:
                overlapping.append((i, end_index))
            if entry.read_offset + entry.size > end:
                end, end_index = entry.read_offset + entry.size, i
        for i, other in overlapping[:10]:
            self.findings.append(warning("entry", i, f"payload shares bytes with entry {other}"))
        if len(overlapping) > 10:
            self.findings.append(warning("entry", None, f"{len(overlapping)} entries share payload bytes with "
                                                        "others (the first 10 are listed)"))

    # ----------------------------------------------------------------- lookup
    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def find(self, name: bytes | str) -> Entry | None:
        """The first entry with this name (ASCII case-insensitive), or None."""
        key = lookup_key(name)
        if key is None:
            return None
        table = self._lookup_table()
        if table is None:
            return next((e for e in self.entries if fold(e.name) == key), None)
        lo, hi = 0, len(table)
        while lo < hi:
            mid = (lo + hi) // 2
            if fold(self.entries[table[mid]].name) < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(table) and fold(self.entries[table[lo]].name) == key:
            return self.entries[table[lo]]
        return None

    def name_index(self) -> dict[bytes, Entry]:
        """lookup_key(name) -> the entry ``find`` gives for that name (the first of equal names in the lookup
        table's order, as its binary search finds it; without a table, the first in the directory), made in one
        pass: for many look-ups in an archive nobody edits meanwhile (``find`` checks the layout on every call)."""
        table = self._lookup_table()
        index: dict[bytes, Entry] = {}
        for i in range(len(self.entries)) if table is None else table:
            index.setdefault(fold(self.entries[i].name), self.entries[i])
        return index

    def _lookup_table(self) -> list[int] | None:
        if self._layout_intact():
            return self._read_table
        return _canonical_sort_table(self.entries)

    def of_type(self, type_id: int) -> list[Entry]:
        return [e for e in self.entries if e.type_id == type_id]

    def first_of_type(self, type_id: int) -> Entry | None:
        return next((e for e in self.entries if e.type_id == type_id), None)

    def models(self) -> list[Entry]:
        return [e for e in self.entries if e.is_model]

    # ----------------------------------------------------------------- editing
    def add(self, name: bytes | str, data: bytes, type_id: int = MODEL_TYPE_ID,
            attr1: int = 0, attr2: int = 0, attr3: int = 0) -> Entry:
        entry = Entry(type_id, attr1, attr2, attr3, name_field(name), bytes(data))
        self.entries.append(entry)
        return entry

    def replace(self, name: bytes | str, data: bytes, **attrs: int) -> Entry:
        entry = self._require(name)
        entry.data = bytes(data)
        for key, value in attrs.items():
            if key not in ("type_id", "attr1", "attr2", "attr3"):
                raise TypeError(f"unknown entry field {key}")
            setattr(entry, key, value)
        return entry

    def remove(self, name: bytes | str) -> None:
        self.entries.remove(self._require(name))

    def rename(self, name: bytes | str, new_name: bytes | str) -> None:
        self._require(name).name_raw = name_field(new_name)

    def _require(self, name: bytes | str) -> Entry:
        entry = self.find(name)
        if entry is None:
            shown = name if isinstance(name, str) else name_text(name)
            raise FormatError.single(STREAM, None, f"no entry named {shown!r}")
        return entry

    # ----------------------------------------------------------------- writing
    def _layout_intact(self) -> bool:
        """True while entries, their order, sizes and names are as read."""
        return (
            self._source is not None
            and len(self.entries) == len(self._read_entries)
            and all(a is b for a, b in zip(self.entries, self._read_entries))
            and all((e.size, e.name_raw) == layout for e, layout in zip(self.entries, self._read_layout))
        )

    def to_bytes(self) -> bytes:
        """The archive's bytes: identical to the input when nothing was edited."""
        unreadable = [e.unreadable for e in self.entries if e.unreadable is not None]
        if unreadable:  # writing would drop their bytes
            raise FormatError([*unreadable, error(STREAM, None, "the archive has entries that could not be read; "
                                                                "it cannot be written back")])
        if not self._read_canonical and self._layout_intact():
            return self._rewrite_in_place()
        return self.to_canonical_bytes()

    def to_canonical_bytes(self) -> bytes:
        """The canonical writer of nres.md: dense 8-aligned payloads, fresh sort_index."""
        out = bytearray(HEADER_SIZE)
        offsets = []
        for entry in self.entries:
            offsets.append(len(out))
            out += entry.data
            out += bytes(_padded(len(out)) - len(out))
        table = _canonical_sort_table(self.entries)
        for entry, offset, sort_index in zip(self.entries, offsets, table):
            out += _record(entry, offset, sort_index)
        _HEADER.pack_into(out, 0, MAGIC, VERSION, len(self.entries), len(out))
        return bytes(out)

    def _rewrite_in_place(self) -> bytes:
        out = bytearray(self._source)
        directory = len(out) - RECORD_SIZE * len(self.entries)
        for i, entry in enumerate(self.entries):
            out[entry.read_offset:entry.read_offset + entry.size] = entry.data
            out[directory + i * RECORD_SIZE:directory + (i + 1) * RECORD_SIZE] = _record(
                entry, entry.read_offset, entry.read_sort_index
            )
        return bytes(out)

    # ----------------------------------------------------------------- layout
    def region_at(self, offset: int) -> tuple[str, Entry | None, int]:
        """What lies at ``offset`` of the bytes this archive writes: (label, entry, offset in entry)."""
        if offset < HEADER_SIZE:
            return "NRes header", None, offset
        directory = self._written_size() - RECORD_SIZE * len(self.entries)
        if offset >= directory:
            index = (offset - directory) // RECORD_SIZE
            return f"directory record {index}", None, offset - directory
        for entry, start in zip(self.entries, self._written_offsets()):
            if start <= offset < start + entry.size:
                return f"entry {entry.name_str!r} (type {entry.type_id:#x})", entry, offset - start
        return "padding", None, offset

    def _written_offsets(self) -> list[int]:
        if not self._read_canonical and self._layout_intact():
            return [e.read_offset for e in self.entries]
        offsets, cursor = [], HEADER_SIZE
        for entry in self.entries:
            offsets.append(cursor)
            cursor = _padded(cursor + entry.size)
        return offsets

    def _written_size(self) -> int:
        if not self._read_canonical and self._layout_intact():
            return len(self._source)
        return sum(_padded(e.size) for e in self.entries) + HEADER_SIZE + RECORD_SIZE * len(self.entries)


def _padded(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _record(entry: Entry, offset: int, sort_index: int) -> bytes:
    return _RECORD.pack(
        entry.type_id, entry.attr1, entry.attr2, entry.size, entry.attr3, entry.name_raw, offset, sort_index
    )
