"""What a file holds, told from its bytes, so that a writer replaces only a file of the kind it writes: a map
export never puts a terrain into ``data.tma``, an engine export never puts glTF over a model."""

from __future__ import annotations

import struct

from .container.nres import MAGIC
from .errors import FormatError
from .rsli import is_rsli
from .sky import ske

EMPTY, OTHER = "empty", "other"
KIND_NAMES = {
    "model": "a model", "archive": "an NRes archive", "rsli": "an RsLi archive", "land": "a terrain mesh (Land.msh)",
    "arealmap": "an areal map (Land.map)", "mission": "a mission (data.tma)", "unit tree": "a unit tree (.dat)",
    "sky": "a sky (sky.ske)",
    "glb": "a binary glTF file", "gltf": "a glTF file", "fbx": "an FBX file", "blend": "a .blend file",
    EMPTY: "an empty file", OTHER: "text or other data",
}
SKY_HEADER = struct.pack("<2I", ske.MAGIC, ske.VERSION)
_BLEND_MAGICS = (b"BLENDER", b"\x28\xb5\x2f\xfd", b"\x1f\x8b")  # plain, zstd- and gzip-compressed .blend


def kind_of(data: bytes) -> str:
    """One of KIND_NAMES' keys for ``data``. An NRes archive that does not parse is still an archive."""
    if not data:
        return EMPTY
    if data[:4] == MAGIC:
        from .files import read_container  # core.files reads every container kind; it imports much of core

        try:
            container = read_container(data, tolerant=True)
        except FormatError:
            return "archive"
        return container.map_kind or ("model" if container.is_model else "archive")
    if is_rsli(data):  # gamefont.rlb, sprites.lib
        return "rsli"
    if data[:4] == b"glTF":
        return "glb"
    if data[:18] == b"Kaydara FBX Binary":
        return "fbx"
    if data.startswith(_BLEND_MAGICS):
        return "blend"
    if data.lstrip()[:1] == b"{" and b'"asset"' in data:
        return "gltf"
    if len(data) >= 8 and struct.unpack_from("<I", data)[0] == 0xF0F1 and (len(data) - 8) % 112 == 0:
        return "unit tree"
    if data[:8] == SKY_HEADER:
        return "sky"
    if _is_mission(data):
        return "mission"
    return OTHER


def _is_mission(data: bytes) -> bool:
    from .map.tma import parse_tma

    try:
        parse_tma(data)
    except (FormatError, ValueError, struct.error):
        return False
    return True


def replaceable(old: str, new: str) -> bool:
    """Whether a file holding ``old`` may be replaced by one holding ``new``: the same kind, or nothing of the
    game's (an empty file, text or other data)."""
    return old == new or old in (EMPTY, OTHER)


def described(kind: str) -> str:
    return KIND_NAMES.get(kind, kind)

