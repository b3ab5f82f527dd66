"""MAT0 materials of ``Material.lib`` (fparkan docs/specs/materials-texm.md section 6): read, write, meaning.

The payload layout depends on the entry's attr2 (the header version), so a
material is parsed with its entry attributes. Every byte is kept: the meta
fields present in this version, the 34-byte phases, and the animation
blocks with their opaque k2 words.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from ..container.nres import Entry
from ..errors import Finding, FormatError, error, warning

MAT0_TYPE_ID = int.from_bytes(b"MAT0", "little")
STREAM = "MAT0"
MAX_ANIMATIONS = 19  # section 6.2: animBlockCount < 20 (the engine's refusal); retail has at most 8 (retail-envelope 6)
TEXTURE_NAME_BYTES = 16
PHASE = np.dtype([("p", "u1", (18,)), ("texture", "S16")])
ANIM_KEY = np.dtype([("k0", "<u2"), ("k1", "<u2"), ("k2", "<u2")])
RETAIL_VERSION = 6  # attr2 of every retail material (section 13.1)

# Blend modes from (attr1 >> 2) & 0xF, as read from the game's binary by a reader of the format.
OPAQUE, BLEND, ADD = "OPAQUE", "BLEND", "ADD"
_BLEND_BY_NIBBLE = {0: OPAQUE, 2: OPAQUE, 4: BLEND, 5: BLEND, 8: ADD}
_NIBBLE_BY_BLEND = {OPAQUE: 0, BLEND: 4, ADD: 8}
LIT_SKIN = 0x02  # attr1 bit 1: the texture's alpha is not transparency


@dataclass
class AnimBlock:
    header: int          # mode = header & 7, interpolation mask = header >> 3
    keys: np.ndarray     # ANIM_KEY records


@dataclass
class Material:
    attr1: int = 0
    attr2: int = RETAIL_VERSION
    attr3: int = 0
    phases: np.ndarray = field(default_factory=lambda: np.zeros(0, PHASE))
    animations: list[AnimBlock] = field(default_factory=list)
    meta_a: int = 255
    meta_b: int = 255
    meta_c: int = 0x3F800000
    meta_d: int = 0

    # ----------------------------------------------------------------- meaning
    @property
    def blend(self) -> str:
        """OPAQUE, BLEND (alpha blend, alpha test >= 1) or ADD (additive); other nibbles draw opaque."""
        return _BLEND_BY_NIBBLE.get((self.attr1 >> 2) & 0xF, OPAQUE)

    @property
    def lit_skin(self) -> bool:
        return bool(self.attr1 & LIT_SKIN)

    def texture_name(self, phase: int = 0) -> str:
        if phase >= len(self.phases):
            return ""
        return bytes(self.phases[phase]["texture"]).split(b"\0", 1)[0].decode("cp1251", "replace")

    def diffuse(self, phase: int = 0) -> tuple[float, float, float, float]:
        """What the device gets (read from the game's binary): the phase's diffuse rgb, its ambient alpha as
        alpha."""
        if phase >= len(self.phases):
            return (1.0, 1.0, 1.0, 1.0)
        p = self.phases[phase]["p"].astype(np.float32)
        alpha = float(min(1.0, p[3] * np.float32(0.01)))
        return (float(p[4] / 255), float(p[5] / 255), float(p[6] / 255), alpha)

    def cell(self, phase: int = 0) -> int:
        """The atlas cell p[17] (signed; -1 = the whole texture)."""
        return int(self.phases[phase]["p"][17].astype(np.int8)) if phase < len(self.phases) else -1

    def summary(self) -> dict:
        return {"version": self.attr2, "attr1": self.attr1, "blend": self.blend, "lit_skin": self.lit_skin,
                "phases": [{"texture": self.texture_name(i) or None, "diffuse": list(self.diffuse(i)),
                            "cell": self.cell(i)} for i in range(len(self.phases))],
                "animations": [{"mode": b.header & 7, "mask": b.header >> 3, "keys": len(b.keys)}
                               for b in self.animations]}

    # ----------------------------------------------------------------- writing
    def to_bytes(self) -> bytes:
        out = bytearray(struct.pack("<HH", len(self.phases), len(self.animations)))
        if self.attr2 >= 2:
            out += struct.pack("<BB", self.meta_a, self.meta_b)
        if self.attr2 >= 3:
            out += struct.pack("<I", self.meta_c)
        if self.attr2 >= 4:
            out += struct.pack("<I", self.meta_d)
        out += np.asarray(self.phases, PHASE).tobytes()
        for block in self.animations:
            out += struct.pack("<IH", block.header, len(block.keys)) + np.asarray(block.keys, ANIM_KEY).tobytes()
        return bytes(out)


def blend_attr1(blend: str, lit_skin: bool = False) -> int:
    """attr1 bits for a new material of this blend mode."""
    return _NIBBLE_BY_BLEND[blend] << 2 | (LIT_SKIN if lit_skin else 0)


def phase(diffuse=(1.0, 1.0, 1.0, 1.0), texture: str = "", cell: int = -1) -> np.ndarray:
    """One phase record: ambient and diffuse from ``diffuse`` (alpha as ambient alpha), power 0."""
    raw = texture.encode("cp1251")
    if len(raw) >= TEXTURE_NAME_BYTES:
        raise FormatError.single(STREAM, None, f"texture name {texture!r} is {len(raw)} bytes; at most 15 fit")
    record = np.zeros(1, PHASE)[0]
    rgb = [round(min(max(c, 0.0), 1.0) * 255) for c in diffuse[:3]]
    alpha = round(min(max(diffuse[3], 0.0), 1.0) * 100)
    record["p"][0:4] = [*rgb, alpha]
    record["p"][4:8] = [*rgb, 255]
    record["p"][17] = cell & 0xFF
    record["texture"] = raw
    return record


# --------------------------------------------------------------------- reading
def parse_mat0(data: bytes | memoryview, attr1: int = 0, attr2: int = RETAIL_VERSION, attr3: int = 0,
               source: str = "") -> Material:
    """Read a MAT0 payload laid out for header version ``attr2``; FormatError where it does not fit (15.1)."""
    data = memoryview(data).cast("B") if isinstance(data, memoryview) else memoryview(data)  # read, not copied
    cursor = 0

    def take(size: int, what: str) -> bytes:
        nonlocal cursor
        if cursor + size > len(data):
            raise FormatError.single(STREAM, None, f"{what} at byte {cursor} runs past the {len(data)}-byte payload",
                                     source)
        chunk = bytes(data[cursor:cursor + size])
        cursor += size
        return chunk

    phase_count, anim_count = struct.unpack("<HH", take(4, "header"))
    if anim_count > MAX_ANIMATIONS:
        raise FormatError.single(STREAM, None, f"{anim_count} animation blocks; the runtime takes at most "
                                               f"{MAX_ANIMATIONS} (\"Too many animations for material.\")", source)
    material = Material(attr1, attr2, attr3)
    if attr2 >= 2:
        material.meta_a, material.meta_b = take(2, "meta bytes")
    if attr2 >= 3:
        (material.meta_c,) = struct.unpack("<I", take(4, "metaC"))
    if attr2 >= 4:
        (material.meta_d,) = struct.unpack("<I", take(4, "metaD"))
    material.phases = np.frombuffer(take(phase_count * PHASE.itemsize, f"{phase_count} phases"), PHASE).copy()
    for block in range(anim_count):
        header, count = struct.unpack("<IH", take(6, f"animation block {block}"))
        keys = np.frombuffer(take(count * ANIM_KEY.itemsize, f"animation block {block}'s {count} keys"), ANIM_KEY)
        material.animations.append(AnimBlock(header, keys.copy()))
    if cursor != len(data):
        raise FormatError.single(STREAM, None, f"{len(data) - cursor} bytes follow the last animation block", source)
    return material


def material_of(entry: Entry, source: str = "") -> Material:
    return parse_mat0(entry.data, entry.attr1, entry.attr2, entry.attr3, source or entry.name_str)


def validate_mat0(entry: Entry) -> list[Finding]:
    """Section 12.3: the payload parses; phases' texture names are NUL-terminated and name textures."""
    try:
        material = material_of(entry)
    except FormatError as exc:
        return exc.findings
    out = []
    for i, record in enumerate(material.phases):
        raw = bytes(record["texture"])  # numpy's S16 drops trailing NULs only: 16 bytes may still hold one
        if b"\0" not in raw and len(raw) == TEXTURE_NAME_BYTES:
            out.append(warning(STREAM, i, "texture name fills all 16 bytes without a NUL"))
        name = raw.split(b"\0", 1)[0]  # the runtime reads the name up to its NUL; bytes after it are unused
        if name and (problem := texture_name_problem(name.decode("cp1251", "replace"))):
            out.append(warning(STREAM, i, problem))
    for i, block in enumerate(material.animations):
        if not len(block.keys):  # every retail track holds a key (spec/retail-envelope.md 6); unknown in the game
            out.append(warning(STREAM, i, f"animation block {i} has no keys: it holds the first entry"))
        if len(block.keys) and int(block.keys["k0"].max()) >= len(material.phases):
            out.append(error(STREAM, i, f"animation block {i} refers to phase {int(block.keys['k0'].max())}; "
                                        f"the material has {len(material.phases)}"))
    return out


def texture_name_problem(name: str) -> str | None:
    """What the runtime's name check (section 9) makes of a texture name, or None when it is fine.

    It needs a '.' within the first 17 characters; the letter and digit after it pick a
    palette ``(L - 'A') * 11 + (D - '0' + 1)``, and an index of 286 or more reads past the palette bank.
    """
    dot = name.find(".")
    if not 0 <= dot <= 16:
        return f"texture name {name!r} has no '.' in its first 17 characters (\"Bad texture name.\")"
    letter = name[dot + 1:dot + 2].upper()
    digit = name[dot + 2:dot + 3]
    if not letter:
        return None
    index = (ord(letter) - ord("A")) * 11 + (ord(digit) - ord("0") + 1 if digit else 0)
    if index >= 286:
        return f"texture name {name!r}: its suffix picks palette {index}, past the 286 the runtime loads"
    return None
