"""Names of the custom properties the importer writes and the exporter reads (the scene contract)."""

import os

from ...core.errors import FormatError, printable

MODEL = "msh_model"            # on the root object: the file or archive entry name
SOURCE = "msh_source"          # on the root object: the model's bytes as read (for a lossless export)
SOURCE_PATH = "msh_source_path"  # on the root object: the file it came from
ENTRY_INDEX = "msh_entry_index"  # on the root object: its entry's index in that archive (names may differ in case)
NODE_MODE = "msh_node_mode"    # on the root object: 'ARMATURE' or 'EMPTIES'
ANIMATION_MODE = "msh_animation"  # on the root object: 'FAITHFUL', 'KEYS' or 'NONE'
SLOTS = "msh_slots"            # on the root object: 'CHOSEN' or 'ALL', the slots the import made meshes for
SLOT_POSITION = "msh_slot_position"  # on the root object: the chosen slot (stage * 5 + lod)
WEAR = "msh_wear"              # on the root object: the model's WEAR text as read (for a lossless export)
FRAME_COUNT = "msh_frame_count"   # on the root object
WRITTEN = "msh_written"        # on a model's root: SHA-256 of the model bytes an export last wrote into its file
WRITTEN_WEAR = "msh_written_wear"  # beside it: SHA-256 of the WEAR list it last wrote there
CURVES = "msh_curves"          # on the root object: the fingerprint of the F-curves the import wrote
NODE_INDEX = "msh_node_index"  # on every node's Empty or Bone, and on every mesh object
IMPORTED_NAME = "msh_imported_name"  # on every node's Empty or Bone: its Blender name at import (else: renamed)
CONTROL_POINT = "msh_cpt"      # on a unit's control-point Empties: the point's index in its part's .cpt (not a node)
PATH_NAME = "msh_path_name"    # on a bone renamed since the import: the name its model's actions' paths now use
BONE_FRAME = "msh_bone_frame"  # on a bone turned from its node (io_msh.com.conversion.bone_frames): that turn
NAME = "msh_name"              # where Blender had to shorten or de-duplicate the node's name
SLOT = "msh_slot"              # on mesh objects and slot collections: the slot position a * 5 + b
MATERIAL = "msh_material"      # on materials: the WEAR row of the batch material (batch +4, low byte)
LIGHTMAP = "msh_lightmap"      # on lightmapped materials: the LIGHTMAPS row (batch +4, high byte)
WEAR_NAME = "msh_wear_name"    # on materials: the WEAR row's name (the Blender name may carry a .001)
MAT0 = "msh_mat0"              # on materials from Material.lib: the MAT0 entry shown
MATERIAL_CURVES = "msh_material_curves"  # on animated materials: the fingerprint of the node F-curves imported
TRACK = "msh_track"            # on materials with alternative MAT0 tracks: the one shown (a view, not exported)
TEXTURE = "msh_texture"        # on images from a library: 'library path|entry', shared by every import
CHANNEL = "msh_channel"        # on the root object: 'msh_channel <index> <node>', a controller channel's 0..1 slider
CLIPS = "msh_clips"            # on the root object: the names of the controller's clip actions, in clip order
CLIP_STEPS = "msh_clip_steps"  # on the root object: JSON, per clip its steps (frames, pair B, pure-from phase,
#                                state), node 0's root-motion keys and its curves' fingerprints
CLIP = "msh_clip"              # on a clip's action(s): the clip's name in msh_clips (renaming the action keeps it)
CLIP_HOLDER = "msh_clip_holder"  # on a 4.2 Empty's clip action: that Empty (a pointer: renames keep it)
TIMELINE = "msh_timeline"      # on each action holder (the armature, or a node's Empty): its timeline action
TIMELINE_SLOT = "msh_timeline_slot"  # beside msh_timeline (4.4+): the handle of the holder's slot in it
STATE = "msh_state"            # on the root object: 'msh_state <index> <field>', a value of a state a clip plays
STATE_FIELDS = ("frames A", "frames B", "step ms")  # the fields: float[2], float[2], float (the export writes edits)
STATES_IMPORTED = "msh_states_imported"  # on the root object: JSON, where the controller was and those values as read
UNIT = "msh_unit"              # on a unit's collection: the .dat path
UNIT_PARTS = "msh_unit_parts"  # on a unit's collection: the components imported (a deleted one is told)
UNIT_TREE = "msh_unit_tree"    # on a unit's collection: the .dat's bytes the parts' properties describe (as the
#                                import read them, or as Export Unit last wrote them)
UNIT_COMPONENT = "msh_unit_component"  # on each unit part's root: its component index in the .dat
UNIT_RECORD = "msh_unit_record"        # on each unit part's root: its objects.rlb record
UNIT_ATTACH = "msh_unit_attach"        # on each unit part's root: the component's attach as read
UNIT_DISPLAY = "msh_unit_display"      # on each unit part's root: its display name
UNIT_EXTERNAL = "msh_unit_external"    # on each unit part's root: it hangs on a socket (or is the root part)
UNIT_MOUNT = "Mount"           # the name of the Child Of constraint of a mounted unit part's root
HALLWAY = "msh_hallway"        # on a building's hall-way object (mesh stream 17): the model root it belongs to
GROUND_PLAN = "msh_ground_plan"  # on a building's ground-plan object (.bas): 'archive/member' it was read from
EFFECT = "msh_effect"          # on an effect's Empty: 'archive/member', the effect (or explosion) a controller attaches
EFFECT_PLACE = "msh_effect_place"    # beside it: 'node', 'points', 'sphere' (construction sphere) or 'explode'
EFFECT_RECORD = "msh_effect_record"  # beside it: [group, record] of the controller's section-5 record
EFFECT_PARAMS = "msh_effect_params"  # beside it: JSON, the effect's header and emitters (or the explosion's fields)
EFFECT_FOUND = "msh_effect_found"    # beside it: whether the named effect was found and read (else: why not, below)
EFFECT_PROBLEM = "msh_effect_problem"
EFFECT_FILE = "msh_effect_file"      # on an explosion's Empty: the archive it was read from (Export writes edits there)
EFFECT_PREVIEW = "msh_effect_preview"  # on an effect's preview object (and its collection): the effect it previews


def bone_frame(bone) -> tuple[float, ...]:
    """The bone's frame relative to its node (a Blender quaternion): the identity unless the import turned it."""
    return tuple(float(v) for v in bone.get(BONE_FRAME, (1.0, 0.0, 0.0, 0.0)))


def state_property(index: int, field: str) -> str:
    """The root's property holding ``field`` (one of STATE_FIELDS) of controller state ``index``."""
    return f"{STATE} {index} {field}"


# UV maps of an imported mesh: the base texture's, and the lightmap's (read back to tell the two images apart).
BASE_UV = "UVMap"
LIGHTMAP_UV = "Lightmap"


def store_bytes(holder, key: str, data: bytes) -> None:
    """``data`` on custom property ``key``, whole: Blender cuts bytes assigned over an existing bytes property at
    their first zero byte, so the old one is removed first."""
    if key in holder:
        del holder[key]
    holder[key] = data


def store_path(holder, key: str, path: str) -> None:
    """A file path on custom property ``key``: as text the user can read (``printable``), and, when that text is
    not the path itself (a name whose bytes did not decode, or control characters), the path's bytes under
    ``key + "_bytes"`` as well, so that the file can still be opened (``stored_path``)."""
    holder[key] = printable(path)
    if printable(path) != path:
        holder[key + "_bytes"] = os.fsencode(path)
    elif key + "_bytes" in holder:
        del holder[key + "_bytes"]


def stored_path(holder, key: str) -> str | None:
    """The path ``store_path`` stored (None when there is none)."""
    raw = holder.get(key + "_bytes")
    if raw is not None:
        return os.fsdecode(bytes(raw))
    text = holder.get(key)
    return None if text is None else str(text)


# The typed readers of the properties the export reads: a value edited by hand into something the import never
# writes (text where a number belongs, a negative index, a number where a list belongs) is refused naming the
# object and the property, never a Python error further on.

def _bad_property(holder, key: str, value, wanted: str) -> FormatError:
    return FormatError.single("scene", None, f"{holder.name!r}: custom property {key!r} is {_shown(value)}, not "
                                             f"{wanted}; set it back, or import the model again")


def _shown(value) -> str:
    if hasattr(value, "to_list"):
        value = value.to_list()
    elif hasattr(value, "to_dict"):
        value = value.to_dict()
    return printable(repr(value))[:60]


def int_property(holder, key: str, default: int | None = None, minimum: int | None = 0) -> int | None:
    """The whole number on ``key`` (``default`` when there is none); FormatError when it is not one, or is
    below ``minimum``."""
    value = holder.get(key)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a count past Blender's 32-bit int property, stored as a float (imp.build)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad_property(holder, key, value, "a whole number")
    if minimum is not None and value < minimum:
        raise _bad_property(holder, key, value, f"a whole number of at least {minimum}")
    return value


def shown_int(holder, key: str, default: int = 0) -> int:
    """The whole number on ``key`` for the panel to show: ``default`` when there is none or it is not one (the
    export check names such a value, check_root)."""
    try:
        value = int_property(holder, key, default, minimum=None)
    except FormatError:
        return default
    return default if value is None else value


def text_list_property(holder, key: str) -> list[str]:
    """The list of names on ``key`` (empty when there is none); FormatError when it is not a list of text."""
    value = holder.get(key)
    if value is None:
        return []
    items = value.to_list() if hasattr(value, "to_list") else value
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)) \
            or not all(isinstance(item, str) for item in items):
        raise _bad_property(holder, key, value, "a list of names")
    return list(items)


def check_root(root) -> None:
    """Every property of a model's root that the export reads as a number or a list, checked up front (the
    export's steps that read them then cannot fail on a hand-edited value)."""
    for key in (ENTRY_INDEX, SLOT_POSITION, FRAME_COUNT):
        int_property(root, key)
    text_list_property(root, CLIPS)
    for key in (SOURCE, WEAR):  # the bytes as read: anything else is not what the import stored
        value = root.get(key)
        if value is not None and not isinstance(value, bytes):
            raise _bad_property(root, key, value, "the bytes the import stored")


# --------------------------------------------------------------------- u32 words
U32 = 1 << 32


def store_u32(holder, key: str, word: int) -> None:
    """A u32 word of the file (flags) on custom property ``key``. Blender's int properties are signed 32-bit,
    so a word with the top bit set is stored as the negative int with the same 32 bits (0x80000000 becomes
    -2147483648); ``stored_u32`` gives the word back. A value that is no u32 is a ValueError (a bug, not data)."""
    word = int(word)
    if not 0 <= word < U32:
        raise ValueError(f"{key}: {word} is not a 32-bit word")
    holder[key] = word - U32 if word & 0x80000000 else word


def stored_u32(holder, key: str, default: int | None = None) -> int | None:
    """The u32 word ``store_u32`` stored on ``key`` (``default`` when there is none): the property's 32 bits,
    so a negative int reads as the word with its top bit set. FormatError when the property holds no whole
    number in -2^31 .. 2^32 - 1 (edited by hand)."""
    value = holder.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not -(1 << 31) <= value < U32:
        raise FormatError.single("scene", None, f"property {key} on {printable(str(getattr(holder, 'name', '')))} "
                                                f"holds {printable(repr(value))}, not a 32-bit word")
    return value & 0xFFFFFFFF


PROPERTY_NAME_BYTES = 63  # Blender's longest custom property name (MAX_IDPROP_NAME - 1)


def channel_property(index: int, node_name: str) -> str:
    """The name of controller channel ``index``'s slider on the model root (CHANNEL), the node's name cut to fit
    a property name (the index keeps it unique)."""
    name = f"{CHANNEL} {index} {node_name}"
    return name.encode("utf-8")[:PROPERTY_NAME_BYTES].decode("utf-8", "ignore")
