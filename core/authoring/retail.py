"""Files at the retail extremes and with the quirks the shipped files have (spec/retail-envelope.md), written
with the project's own writers: no retail file is read here, so these stand in for what the game ships when
the readers, validators, importers and writers are tried against it.

- ``legacy_model``: a stride-24 node table (``system.rlb::MTCHECK.MSH``, the one retail model with it: 4.3).
- ``flags_model``: every node, batch and face flag value the retail models carry (4.3, 4.6, 4.7), interior and
  cockpit nodes, portal batches, face words with bits above the edge codes.
- ``odd_keys_model``: the all-zero and unnormalised quaternions 11 of the 34 049 retail keys hold (4.8).
- ``longest_controller`` / ``longest_model``: ``a_a_l3.ctl``, the largest retail controller (222 496 bytes,
  about 217 states with no contacts: 9), on a 13-node model, with parameter values seen on retail (9).
- ``kinds_controller``: a component of every class 1..30, contacts flagged 0x20, on the walker model.
- ``quirk_unit_files``: a game folder whose chassis carries control points without a carrier (-1, past the
  mesh) and one whose node is outside it (8.3), whose tree names a component with no ``objects.rlb`` record
  (``fr_l_mast``: 3 of the 5 708 retail components, 8.1), with the flag values of retail points, damage rows
  and components.
"""

from __future__ import annotations

import numpy as np

from ..animation.controller.codec import (
    ACTION,
    ANCHOR,
    CHANNEL,
    CONTACT,
    FIXED_STEP,
    GROUP_BLOCK,
    NO_EDGE,
    NO_GROUP,
    Controller,
)
from ..animation.tracks import Animation, Track
from ..appearance.mat0 import ANIM_KEY, MAT0_TYPE_ID, AnimBlock, Material, phase
from ..appearance.texm import TEXM_TYPE_ID, encode_texm
from ..container.nres import Archive
from ..msh import streams as S
from ..msh.model import Model
from ..unit.cpt import points_of
from ..unit.dat import Component, UnitTree
from ..unit.ndp import INDESTRUCTIBLE, table_of
from . import units
from .build import ModelDef, NodeDef, Part, build_model
from .controllers import channel, component, default_params, state, walker_controller, walker_model
from .synth import axis_quat, box, box_uvs, keyed_track, library

LEGACY_NAME = "MTCHECK.MSH"

# Batch words (+0) seen on the 15 153 retail batches (4.6): nine single bits, portals (8) always with 0x100,
# and 0x102; 0x200 and 0x800 on none.
BATCH_FLAGS = (1, 2, 4, 0x10, 0x40, 0x100, 0x2000, 0x4000, 0x108, 0x102, 0x108)
PORTAL = 0x8
FACE_FLAGS = (0, 2, 4, 16, 32, 34)      # the six Res7 flag values (4.7)
FACE_WORD_HIGH = (0x28C0, 0x8800, 0x4DC0)  # bits above the edge codes on 1 387 retail faces (4.7)
INTERIOR, COCKPIT, SHELL = 0x1, 0x20, 0x100  # node flags with a retail meaning (4.3)

LONGEST_STATES = 217          # a_a_l3.ctl: 222 496 bytes with no contacts (9)
LONGEST_BYTES = 222_496
LONGEST_NODES = 13
LONGEST_FRAMES = 2 * LONGEST_STATES + 1
STEP_MS = 40.0

UNIT_DAT = "UNITS/RETAIL/retail_unit.dat"
MISSING_RECORD = "fr_l_mast"  # one of the three retail components naming no record (8.1)
CPT_FLAGS = 0x80000000       # the first word of retail points (8.3)


# --------------------------------------------------------------------- models
def legacy_model() -> bytes:
    """A model whose Res1 has the 24-byte stride: the nodes of a small static model, each record's first 24
    bytes, attr3 = 24 (fp ``variant_id`` keeps it copy-through: retail-envelope 4.3)."""
    pos, tris = box((1.0, 1.0, 1.0))
    model = build_model(ModelDef([NodeDef("MTCHECK"), NodeDef("probe", 0)],
                                 [Part(0, pos, tris, uvs=box_uvs())], stream_name=LEGACY_NAME))
    nodes = np.frombuffer(bytes(model.data(1)), np.uint8).reshape(-1, S.NODE.itemsize)
    legacy = nodes[:, :S.LEGACY_NODE.itemsize].copy()
    model.set_stream(1, legacy.tobytes(), attr1=len(legacy), attr3=S.LEGACY_NODE.itemsize)
    return model.to_bytes()


def flags_model(name: str = "retail_flags.msh") -> bytes:
    """Three nodes (an interior room, a cockpit drawn only in the first-person slot, a shell drawn at 0 life)
    whose batches carry every retail batch word and whose faces carry every retail face flag and high bits."""
    nodes = [NodeDef("i_room_m1o1", flags=INTERIOR), NodeDef("CP_m1o1", 0, flags=COCKPIT),
             NodeDef("o_shell_m1o1", 0, flags=SHELL)]
    parts = []
    for node, (size, centre, slot) in enumerate([((2.0, 2.0, 1.0), (0, 0, 0), 0), ((0.5, 0.5, 0.5), (0, 0.5, 1), 4),
                                                 ((2.2, 2.2, 1.2), (0, 0, 0), 0)]):
        pos, tris = box(size, centre)
        count = len(tris)
        parts.append(Part(node, pos, tris, uvs=box_uvs(), slot=slot, face_materials=np.arange(count) % 4,
                          face_flags=np.resize(FACE_FLAGS, count)))
    model = build_model(ModelDef(nodes, parts, stream_name=name))
    batches = model.batches.copy()
    batches["flags"] = np.resize(BATCH_FLAGS, len(batches))
    batches["unk6"] = np.where(batches["flags"] & PORTAL, 0, 0xFFFF)  # +6: the room node on portal batches
    model.set_stream(13, batches.tobytes())
    triangles = model.triangles.copy()
    triangles["selectors"][:len(FACE_WORD_HIGH)] |= np.asarray(FACE_WORD_HIGH, np.uint16)
    model.set_stream(7, triangles.tobytes())
    return model.to_bytes()


def odd_keys_model(name: str = "retail_odd_keys.msh") -> bytes:
    """Three static nodes whose keys hold what 11 of the 34 049 retail keys hold (4.8): an all-zero quaternion
    (node 1) and an unnormalised one (node 2)."""
    nodes = [NodeDef("body"), NodeDef("zero", 0), NodeDef("long", 0)]
    parts = []
    for node in range(3):
        pos, tris = box((0.5, 0.5, 0.5), (node, 0, 0))
        parts.append(Part(node, pos, tris, uvs=box_uvs()))
    model = build_model(ModelDef(nodes, parts, stream_name=name))
    keys = model.keys.copy()
    keys["rot"][1] = 0
    keys["rot"][2] = (20000, 20000, 0, 0)
    model.set_stream(8, keys.tobytes())
    return model.to_bytes()


# --------------------------------------------------------------------- what no source measured
def _static_three(name: str, animated: bool = False) -> Model:
    """Three nodes, each with a box; with ``animated``, node 1 turns over 5 frames (keys at 0, 2, 4)."""
    nodes = [NodeDef("body"), NodeDef("arm", 0, label="e_tur_lt"), NodeDef("tip", 1)]
    parts = []
    for node in range(3):
        pos, tris = box((0.5, 0.5, 0.5), (node, 0, 0))
        parts.append(Part(node, pos, tris, uvs=box_uvs()))
    anim = None
    if animated:
        times = np.array([0.0, 2.0, 4.0])
        turn = keyed_track(times, np.tile([1.0, 0.0, 0.0], (3, 1)), axis_quat((0, 0, 1), np.radians([0, 45, 90])))
        anim = Animation(5, [Track.static(), turn, Track.static()])
    return build_model(ModelDef(nodes, parts, anim, stream_name=name))


def unmeasured_models() -> dict[str, bytes]:
    """Models holding what no source measured on the retail files either way (spec/retail-envelope.md 17), each
    a warning now (docs/refusing-checks.md): a fallback key shared with an earlier node, a Res19 frame count of
    0, a mapped node with one key, key times that do not increase, a NUL inside a Res10 label, a Res15 shorter
    than the vertices."""
    out = {}
    model = _static_three("shared_fallback.msh")
    nodes = model.nodes.copy()
    nodes["fallback_key"][2] = 0
    model.set_stream(1, nodes.tobytes())
    model.set_stream(8, model.keys[:2].tobytes(), attr1=2)
    out["shared_fallback.msh"] = model.to_bytes()
    model = _static_three("frames_zero.msh", animated=True)
    model.set_stream(19, bytes(model.data(19)), attr2=0)
    out["frames_zero.msh"] = model.to_bytes()
    model = _static_three("one_key_map.msh", animated=True)
    keys = model.keys.copy()
    nodes = model.nodes.copy()
    nodes["fallback_key"][1] = nodes["fallback_key"][0] + 1  # node 1's map keeps its words; its track: one key
    keys = np.concatenate([keys[:int(nodes["fallback_key"][1]) + 1], keys[-1:]])
    nodes["fallback_key"][2] = len(keys) - 1
    words = np.minimum(model.map_words, nodes["fallback_key"][1])
    model.set_stream(1, nodes.tobytes())
    model.set_stream(8, keys.tobytes(), attr1=len(keys))
    model.set_stream(19, words.astype(S.MAP_WORD).tobytes())
    out["one_key_map.msh"] = model.to_bytes()
    model = _static_three("equal_times.msh", animated=True)
    keys = model.keys.copy()
    keys["time"][2] = keys["time"][1]  # node 1's second and first keys at one time
    model.set_stream(8, keys.tobytes())
    out["equal_times.msh"] = model.to_bytes()
    model = _static_three("label_nul.msh")
    label = b"e_tur\0lt"
    model.set_stream(10, b"".join(np.uint32(len(x)).tobytes() + (x + b"\0" if x else b"")
                                  for x in (b"", label, b"")))
    out["label_nul.msh"] = model.to_bytes()
    model = _static_three("short_res15.msh")
    count = model.vertex_count - 3
    model.set_stream(15, (np.arange(count * 8) % 251).astype(np.uint8).tobytes(), attr1=count, attr2=0, attr3=8)
    out["short_res15.msh"] = model.to_bytes()
    return out


# --------------------------------------------------------------------- the longest controller
def longest_model(name: str = "a_a_l3.msh") -> bytes:
    """Thirteen nodes in a chain, each turning over the whole timeline (two frames a state)."""
    nodes = [NodeDef(f"seg_{i:02d}", None if i == 0 else i - 1) for i in range(LONGEST_NODES)]
    times = np.unique(np.r_[np.arange(0, LONGEST_FRAMES, 8), LONGEST_FRAMES - 1]).astype(np.float64)
    tracks = [keyed_track(times, np.tile([0.0, 0.0, 0.4 if i else 1.0], (len(times), 1)),
                          axis_quat((0, 0, 1), 0.3 * np.sin(times / 20 + i))) for i in range(LONGEST_NODES)]
    parts = []
    for i in range(LONGEST_NODES):
        pos, tris = box((0.3, 0.3, 0.4), (0, 0, 0.2))
        parts.append(Part(i, pos, tris, uvs=box_uvs()))
    anim = Animation(LONGEST_FRAMES, tracks)
    anim.fit_frame_count()
    return build_model(ModelDef(nodes, parts, anim, stream_name=name)).to_bytes()


def longest_controller() -> bytes:
    """217 states in one cycle (state 0 the anchor, each a fixed 40 ms step of two frames), no contacts, two
    channels and one empty group: exactly the 222 496 bytes of ``a_a_l3.ctl``; parameter values seen on retail
    (+104 mode 3, +116 bit 0, +92 5000 ms, +112 1.57079, +124 FLT_MAX)."""
    states = [state((ANCHOR if i == 0 else 0) | FIXED_STEP, (-1.0, -1.0), (2.0 * i, 2.0 * i + 2), STEP_MS)
              for i in range(LONGEST_STATES)]
    costs = np.full((LONGEST_STATES, LONGEST_STATES), NO_EDGE, "<f4")
    for i in range(LONGEST_STATES):
        costs[(i + 1) % LONGEST_STATES, i] = 1.0
    params = default_params()
    params["mode"], params["death_delay_ms"] = 3, 5000
    params["word_116"][0] = 1
    channels = np.array([channel(1, -1.0, -1.0, 0.0, 1.0, 1.0, 0x10), channel(2, 0.0, 4.0, 0.5, 1.0, 1.0, 0)],
                        CHANNEL)
    controller = Controller(params, np.array(states), np.zeros((LONGEST_STATES, 0), CONTACT), costs, channels, [],
                            np.full(GROUP_BLOCK, NO_GROUP, "<i4"), [np.zeros(0, ACTION)])
    return controller.to_bytes()


def kinds_controller() -> bytes:
    """The walker's controller (core.authoring.controllers) with a component of every class the factory makes
    (1..30; retail uses 20 of them), contacts flagged 0x20 as 2 410 of the 2 634 retail ones are (+12 zero on
    all), and the parameter values seen on retail: +104 mode 2, +92 a 2 000 ms death delay (9)."""
    controller = walker_controller()
    controller.components = [component(kind, kind % 5, [kind % 2] if kind % 3 else [], label="i_c01_t" if kind == 2
                                       else "") for kind in range(1, 31)]
    controller.contacts["flags"] = 0x20
    controller.params["mode"], controller.params["death_delay_ms"] = 2, 2000
    return controller.to_bytes()


def kinds_model(name: str = "retail_walker.msh") -> bytes:
    return build_model(walker_model(name)).to_bytes()


# --------------------------------------------------------------------- the material libraries
TEXTURE_FORMATS = (0, 565, 4444, 888, 8888)  # every format a retail texture has (556 and 88 never: 5.1)
MATERIAL_ATTR1 = (0, 2, 4, 5, 8)            # every directory attr1 of the 905 retail materials (6)
TRACK_MODES = (0, 1, 2, 3)                  # the four track modes seen, and the masks (6)
TRACK_MASKS = (0, 1, 3, 7, 17, 2)
MOST_PHASES = 29                            # the most phases one retail material has (6)
FLAGS_MATERIALS = ("R_FLAGS_0", "R_FLAGS_1", "R_FLAGS_2", "R_FLAGS_3")


def _picture(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (size, size, 4), dtype=np.uint8)


def _material(name: str, attr1: int, phases: int, tracks: list[tuple[int, list[tuple[int, int]]]],
              texture: str, class_byte: int = 0xFF, glow: int = 0) -> tuple[str, bytes, int, dict]:
    """A MAT0 entry: ``phases`` phases on ``texture``, ``tracks`` of (header word, [(entry, time ms)])."""
    material = Material(attr1, phases=np.array([phase((1.0, 1.0 - i / max(phases, 1), 1.0, 1.0), texture)
                                                for i in range(phases)]))
    material.meta_a, material.meta_d = class_byte, glow  # byte 4: class (0xFF unset), dword: 0/1000/10000
    for header, keys in tracks:
        block = np.zeros(len(keys), ANIM_KEY)
        for k, (entry, time) in enumerate(keys):
            block[k] = (entry, time, 0)
        material.animations.append(AnimBlock(header, block))
    return name, material.to_bytes(), MAT0_TYPE_ID, {"attr1": material.attr1, "attr2": material.attr2}


def retail_libraries() -> dict[str, Archive]:
    """Material.lib, Textures.lib and LightMap.lib with the retail variety (5, 6): a texture in each retail
    format (flags4 32 on mip-mapped ones, 0 otherwise; a palettised 64 x 64 like WATER0; a 256 x 256 4444 sheet
    with three 64 x 128 Page strips like SUN4.0; a 565 base and its 888 "M" twin), materials with every directory
    attr1 value, each track mode and mask, a WATER_M-like track of ten keys 200 ms apart that does not start at
    0, an eight-track label material (track i names entry i), the most phases, a glow dword, class bytes; and
    lightmap pages of 128 and 256 px in 565."""
    textures = [(f"R_FMT_{fmt}.0", encode_texm(_picture(16, fmt), fmt, flags4=32).to_bytes(), TEXM_TYPE_ID, {})
                for fmt in TEXTURE_FORMATS]
    textures += [
        ("R_WATER0.0", encode_texm(_picture(64, 1), 0, flags4=32).to_bytes(), TEXM_TYPE_ID, {}),
        ("R_FLAT.0", encode_texm(_picture(8, 2), 565, mips=False).to_bytes(), TEXM_TYPE_ID, {}),
        ("R_SUN4.0", encode_texm(_picture(256, 3), 4444, flags4=32,
                                 rects=[(0, 64, 0, 128), (64, 64, 0, 128), (128, 64, 0, 128)]).to_bytes(),
         TEXM_TYPE_ID, {}),
        ("R_GROUND.0", encode_texm(_picture(32, 4), 565, flags4=32).to_bytes(), TEXM_TYPE_ID, {}),
        ("R_GROUNDM.0", encode_texm(_picture(32, 5), 888, flags4=32).to_bytes(), TEXM_TYPE_ID, {}),
    ]
    materials = [_material(name, attr1, 2, [((mode | mask << 3), [(0, 0), (1, 400)])], f"R_FMT_{fmt}.0")
                 for name, attr1, mode, mask, fmt in zip(FLAGS_MATERIALS, MATERIAL_ATTR1, TRACK_MODES, TRACK_MASKS,
                                                         TEXTURE_FORMATS)]
    materials += [
        _material("R_ENV_STARS", MATERIAL_ATTR1[4], 1, [(TRACK_MASKS[4] << 3, [(0, 0)])], "R_FMT_8888.0",
                  class_byte=3),
        _material("R_WATER_M", 2, 10, [(0, [(i, 200 * (i + 1)) for i in range(10)])], "R_WATER0.0", class_byte=0),
        _material("R_LBL_01", 2, 8, [(0, [(i, 0)]) for i in range(8)], "R_SUN4.0"),
        _material("R_MANY", 4, MOST_PHASES, [(TRACK_MASKS[5] << 3 | 1, [(i, 100 * i) for i in range(MOST_PHASES)])],
                  "R_FLAT.0", glow=10_000),
        _material("R_GROUND", 2, 2, [(0, [(0, 0)]), (0, [(1, 0)])], "R_GROUND.0", class_byte=10, glow=1000),
    ]
    lightmaps = [(f"R_LM_{size}.0", encode_texm(_picture(size, size), 565, mips=False).to_bytes(), TEXM_TYPE_ID, {})
                 for size in (128, 256)]
    return {"Material.lib": library(materials), "Textures.lib": library(textures), "LightMap.lib": library(lightmaps)}


def flags_wear() -> bytes:
    """The flags model's material list: its four materials, one per WEAR row the batches name."""
    rows = "".join(f"{i} {name}\r\n" for i, name in enumerate(FLAGS_MATERIALS))
    return f"{len(FLAGS_MATERIALS)}\r\n{rows}".encode("cp1251")


# --------------------------------------------------------------------- a unit with the retail quirks
def quirk_points() -> bytes:
    """The chassis's points with the first word retail points carry: two whose carrier is no node (-1, and one
    past the 4-node mesh: they stay on their node) and one whose node is outside the mesh."""
    rows = [("CameraCenter", 0, 0, (0, 0, 1.5), (0, 1, 0)), ("Foot", 3, 3, (0, 0, -0.8), (0, 0, -1)),
            ("WheelL", 3, -1, (-0.4, 0, -0.8), (0, 0, -1)), ("WheelR", 3, 9, (0.4, 0, -0.8), (0, 0, -1)),
            ("Far", 7, 0, (0, 0, 0), (0, 1, 0)), ("Width", 0, 0, (0, 0, 0), (0.7, 0, 0))]
    return points_of(rows, CPT_FLAGS).to_bytes()


def quirk_damage(node_count: int) -> bytes:
    """Rows with the retail flag values: running gear left (0x20, x < 0) and right (0x40), scenery (1),
    projectile (112); an indestructible row (1e6 hit points)."""
    flags = [0, 0x20, 0x40, 1, 112]
    rows = [(flags[n % len(flags)], INDESTRUCTIBLE if n == 0 else 50.0 * (n + 1), 7.8, units.PARTS,
             f"synth_chassis_{n}.exp") for n in range(node_count)]
    return table_of(rows).to_bytes()


def quirk_parts() -> Archive:
    archive = units.parts_archive()
    chassis = Model.parse(bytes(archive.find("synth_chassis.msh").data))
    archive.replace("synth_chassis.cpt", quirk_points())
    archive.replace("synth_chassis.ndp", quirk_damage(chassis.node_count))
    return archive


def quirk_tree() -> UnitTree:
    """The battle robot with a component naming no record (an internal part, left out) and a gun of class 2
    (26 retail guns carry it: 8.1)."""
    tree = units.unit_tree()
    root = tree.components[0]
    root.children += 1
    missing = Component.new(MISSING_RECORD, 3, 1, "Мачта (ms01)")
    tree.components.insert(2, missing)
    tree.components[4].kind = 2
    return tree


def quirk_unit_files() -> dict[str, bytes]:
    """The game-folder files of the quirk unit (the synthetic unit's folder, its chassis and tree changed)."""
    files = units.unit_files()
    files[units.PARTS] = quirk_parts().to_bytes()
    files[UNIT_DAT] = quirk_tree().to_bytes()
    return files


def model_files() -> dict[str, bytes]:
    """The models (and the longest controller beside its model), by file name."""
    return {LEGACY_NAME: legacy_model(), "retail_flags.msh": flags_model(), "retail_flags.wea": flags_wear(),
            "retail_odd_keys.msh": odd_keys_model(), "a_a_l3.msh": longest_model(), "a_a_l3.ctl": longest_controller(),
            "retail_walker.msh": kinds_model(), "retail_walker.ctl": kinds_controller()}


def retail_files() -> dict[str, bytes]:
    """Every file of this module, by path relative to one game folder (MODELS: the retail quirks and extremes;
    UNMEASURED: what no source measured)."""
    return {**quirk_unit_files(), **{f"MODELS/{name}": data for name, data in model_files().items()},
            **{f"UNMEASURED/{name}": data for name, data in unmeasured_models().items()},
            **{name: archive.to_bytes() for name, archive in retail_libraries().items()}}
