"""An MSH model: an NRes whose entries are streams found by type id (msh-core.md 2-5).

The payload bytes are the source of truth; the typed properties are
zero-copy numpy views of them (whole records only, so a damaged stream
still reads as far as it is intact). Edits replace a stream's payload.
"""

from __future__ import annotations

import numpy as np

from ..container.nres import Archive, Entry
from ..errors import FormatError
from . import streams as S
from .labels import LabelError, decode_labels, encode_labels, text

# Streams a model holds and an archive does not (msh-core.md 3.3).
MODEL_MARKER_TYPES = (1, 2, 3, 6, 13)


class Model:
    """Typed access to the streams of one model NRes."""

    def __init__(self, archive: Archive, name: str = "") -> None:
        self.archive = archive
        self.name = name

    @classmethod
    def parse(cls, data: bytes | memoryview, name: str = "") -> Model:
        return cls(Archive.parse(data, source=name), name)

    def to_bytes(self) -> bytes:
        return self.archive.to_bytes()

    # ----------------------------------------------------------------- streams
    def stream(self, type_id: int) -> Entry | None:
        """The stream the runtime would use: the first of its type."""
        return self.archive.first_of_type(type_id)

    def data(self, type_id: int) -> memoryview | bytes:
        entry = self.stream(type_id)
        return entry.data if entry is not None else b""

    def set_stream(self, type_id: int, data: bytes, attr1: int | None = None,
                   attr2: int | None = None, attr3: int | None = None) -> Entry:
        """Replace a stream's payload (adding the stream at the end if missing)."""
        entry = self.stream(type_id)
        if entry is None:
            entry = Entry(type_id, 0, 0, 0, self._stream_name_field(), b"")
            self.archive.entries.append(entry)
        entry.data = bytes(data)
        for key, value in (("attr1", attr1), ("attr2", attr2), ("attr3", attr3)):
            if value is not None:
                setattr(entry, key, value)
        return entry

    def _stream_name_field(self) -> bytes:
        first = self.archive.entries[0] if self.archive.entries else None
        return first.name_raw if first is not None else b"model".ljust(36, b"\0")

    def records(self, type_id: int, dtype: np.dtype) -> np.ndarray:
        return S.records(self.data(type_id), dtype)

    # ----------------------------------------------------------------- Res1
    @property
    def node_stride(self) -> int:
        entry = self.stream(1)
        return entry.attr3 if entry is not None else S.NODE.itemsize

    @property
    def is_legacy(self) -> bool:
        """Res1 with the 24-byte stride (one retail model, MTCHECK.MSH, has it): copied through, not interpreted."""
        return self.node_stride == S.LEGACY_NODE.itemsize

    @property
    def nodes(self) -> np.ndarray:
        """Res1 as NODE records; empty for a legacy or unknown stride."""
        if self.node_stride != S.NODE.itemsize:
            return np.zeros(0, S.NODE)
        return self.records(1, S.NODE)

    @property
    def legacy_nodes(self) -> np.ndarray:
        return self.records(1, S.LEGACY_NODE) if self.is_legacy else np.zeros(0, S.LEGACY_NODE)

    @property
    def node_count(self) -> int:
        stride = self.node_stride
        return len(self.data(1)) // stride if stride > 0 else 0

    # ----------------------------------------------------------------- Res2
    @property
    def header(self) -> np.ndarray | None:
        data = self.data(2)
        if len(data) < S.HEADER_SIZE:
            return None
        return np.frombuffer(data, S.MODEL_HEADER, count=1)[0]

    @property
    def slots(self) -> np.ndarray:
        data = self.data(2)
        if len(data) < S.HEADER_SIZE:
            return np.zeros(0, S.SLOT)
        return S.records(data, S.SLOT, S.HEADER_SIZE)

    # ----------------------------------------------------------------- geometry
    @property
    def positions(self) -> np.ndarray:
        return self.records(3, S.POSITION)

    @property
    def normals_raw(self) -> np.ndarray:
        return self.records(4, S.NORMAL)

    @property
    def uvs_raw(self) -> np.ndarray:
        return self.records(5, S.UV)

    @property
    def indices(self) -> np.ndarray:
        return self.records(6, S.INDEX)

    @property
    def triangles(self) -> np.ndarray:
        return self.records(7, S.TRIANGLE)

    @property
    def batches(self) -> np.ndarray:
        return self.records(13, S.BATCH)

    @property
    def lightmap_uvs_raw(self) -> np.ndarray:
        return self.records(18, S.LIGHTMAP_UV)

    @property
    def vertex_count(self) -> int:
        return len(self.positions)

    # ----------------------------------------------------------------- animation
    @property
    def keys(self) -> np.ndarray:
        return self.records(8, S.KEY)

    @property
    def map_words(self) -> np.ndarray:
        return self.records(19, S.MAP_WORD)

    @property
    def frame_count(self) -> int:
        """Res19.attr2 (msh-animation.md 2.2); 0 when the model has no Res19."""
        entry = self.stream(19)
        return entry.attr2 if entry is not None else 0

    # ----------------------------------------------------------------- names
    @property
    def node_names_raw(self) -> np.ndarray:
        return self.records(9, S.NODE_NAME)

    @property
    def labels(self) -> list[bytes | None]:
        """Res10 records; raises FormatError when the stream does not parse."""
        try:
            return decode_labels(self.data(10))
        except LabelError as exc:
            raise FormatError.single("Res10", exc.index, str(exc), self.name) from None

    def node_name(self, index: int) -> str | None:
        """Res9 where present, else Res10, else None (Res9: 32-byte names; Res10: labels; cp1251)."""
        names = self.node_names_raw
        if index < len(names) and text(names[index]):
            return text(names[index])
        try:
            labels = self.labels
        except FormatError:
            return None
        return text(labels[index]) if index < len(labels) else None

    # ----------------------------------------------------------------- re-encoding
    def reencoded(self) -> Model:
        """A copy whose known streams are rebuilt from their decoded records.

        Proves the codecs lossless: ``m.reencoded().to_bytes() == m.to_bytes()``.
        A stream that does not decode whole (ragged, unparsable) is copied raw.
        """
        archive = Archive.parse(self.archive.to_bytes(), source=self.name)
        copy = Model(archive, self.name)
        for entry in archive.entries:
            if entry is copy.stream(entry.type_id):
                rebuilt = copy._encode_stream(entry)
                if rebuilt is not None:
                    entry.data = rebuilt
        return copy

    def _encode_stream(self, entry: Entry) -> bytes | None:
        type_id, data = entry.type_id, entry.data
        if type_id == 2:
            if len(data) < S.HEADER_SIZE or (len(data) - S.HEADER_SIZE) % S.SLOT.itemsize:
                return None
            return self.header.tobytes() + self.slots.tobytes()
        if type_id == 10:
            try:
                return encode_labels(decode_labels(data))
            except (LabelError, ValueError):
                return None
        spec = S.SPECS.get(type_id)
        dtype = S.NODE_STRIDES.get(entry.attr3) if type_id == 1 else spec.dtype if spec else None
        if dtype is None or len(data) % dtype.itemsize:
            return None
        return S.records(data, dtype).tobytes()


def looks_like_model(archive: Archive) -> bool:
    """A model NRes, as opposed to an archive (msh-core.md 3.3)."""
    if archive.models():
        return False
    return any(archive.first_of_type(t) is not None for t in MODEL_MARKER_TYPES)
