"""A synthetic unit (no retail unit is available): a chassis with two turret sockets, two turrets with gun
sockets, three guns, an internal part and an ammo clip, plus a building whose record redirects; with the
``objects.rlb`` that lists every tag openparkan lists, a parts archive holding the
models, material lists, controllers, control points and damage tables, and the ``.dat`` trees.

Everything is written with the project's own writers (build, core.unit); the child order is the game's
(openparkan docs/38-designs.md): under each parent its internal parts first, then its sockets' parts by ascending node.
"""

from __future__ import annotations

import numpy as np

from ..animation.tracks import Animation, Track
from ..appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID
from ..container.nres import Archive
from ..interior.bas import two_rings
from ..msh import streams as S
from ..msh.model import Model
from ..unit.cpt import points_of
from ..unit.dat import Component, UnitTree
from ..unit.ndp import table_of
from ..unit.objects import SLOT_SIZE, tag_id
from ..unit.text import BLOCK
from .build import ModelDef, NodeDef, Part, build_model
from .synth import axis_quat, barrel, box, box_uvs, bunker, cylinder, dress, hull, keyed_track, leg, merge, slab, turret

PARTS = "synth_parts.rlb"
OBJECTS = "objects.rlb"
UNIT_DAT = "UNITS/SYNTH/synth_unit.dat"
FORT_DAT = "UNITS/SYNTH/synth_fort.dat"
FRAMES = 41
# An empty controller (2.1): zero counts and parameter block, and a group table of -1 (no group), as the validator
# reads it (with no section-5 group, an index 0 would name a group that is not there; docs/formats/controller.md).
CONTROLLER = bytes(20 + 108) + b"\xff" * 84
UNIT_TYPE = 0x01008000            # battle robot (openparkan docs/30-turrets.md)
BRIDGE_TYPE = 0x80001000


def _times() -> np.ndarray:
    return np.arange(0, FRAMES, 5, dtype=np.float32)


def _spin(axis, degrees, pos=(0.0, 0.0, 0.0)) -> Track:
    """A node turning about ``axis`` through ``degrees`` (one value per key time) at a fixed offset."""
    t = _times()
    return keyed_track(t, np.tile(pos, (len(t), 1)), axis_quat(axis, np.radians(degrees)))


def _wave(amplitude: float, count: int | None = None) -> np.ndarray:
    t = _times() if count is None else np.arange(count)
    return amplitude * np.sin(t / (FRAMES - 1) * 2 * np.pi)


def _static(pos=(0.0, 0.0, 0.0), axis=(0, 0, 1), degrees: float = 0.0) -> Track:
    return Track.static(pos, _quat(axis, degrees))


def _quat(axis, degrees: float) -> np.ndarray:
    return S.encode_rotations(axis_quat(axis, np.radians(degrees)))


def _legs(size, centre) -> tuple:
    """The chassis's leg node as a pair of legs, one each side."""
    x, y, z = centre
    return merge(*(leg(size, (x + side * size[0] * 2.2, y, z)) for side in (-1, 1)))


def _chassis_hull(size, centre) -> tuple:
    """The chassis's hull with a turret ring under each turret socket (Base_TL, Base_TM)."""
    return merge(hull(size, centre), cylinder(0.38, 0.24, (-0.6, 0.2, 0.4), sides=8),
                 cylinder(0.38, 0.24, (0.6, 0.0, 0.4), sides=8))


# the robot look (robot=True, the bundled sample): each model's nodes that get a shape instead of their box
ROBOT_SHAPES = {"synth_chassis.msh": {"body": _chassis_hull, "leg": _legs}, "e_tur_lt_01.msh": {"Turn": turret},
                "e_tur_mt_01.msh": {"Turn": turret, "GP": barrel}, "e_gun_ll_01.msh": {"barrel": barrel},
                "e_gun_mc_01.msh": {"barrel": barrel}, "synth_fort_base.msh": {"fort": bunker}}


def _model(name: str, nodes: list[NodeDef], tracks: list[Track], boxes: dict[int, tuple], robot: bool = False) -> bytes:
    parts = []
    for node, (size, center) in boxes.items():
        pos, tris = box(size, center)
        parts.append(Part(node, pos, tris, uvs=box_uvs(), material=node % 2))
    spec = ModelDef(nodes, parts, Animation(FRAMES, tracks), stream_name=name)
    return build_model(dress(spec, ROBOT_SHAPES.get(name, {})) if robot else spec).to_bytes()


def chassis(robot: bool = False) -> bytes:
    nodes = [NodeDef("body"), NodeDef("Base_TL", 0, label="e_tur_lt"), NodeDef("Base_TM", 0, label="e_tur_mt"),
             NodeDef("leg", 0)]
    t = _times()
    body = keyed_track(t, np.c_[np.zeros(len(t)), _wave(0.2), 1.0 + _wave(0.1)], axis_quat((0, 0, 1), _wave(0.1)))
    tracks = [body, _static((-0.6, 0.2, 0.5), (0, 0, 1), 10.0), _spin((0, 0, 1), _wave(30.0), (0.6, 0.0, 0.5)),
              _spin((1, 0, 0), _wave(25.0), (0.0, 0.0, -0.4))]
    return _model("synth_chassis.msh", nodes, tracks, {0: ((2.0, 1.4, 0.6), (0, 0, 0)),
                                                        3: ((0.3, 0.3, 0.8), (0, 0, -0.4))}, robot)


def turret_a(robot: bool = False) -> bytes:
    """Its root turned 40 degrees: the mount ignores it (the socket wins, openparkan docs/28-chassis.md)."""
    nodes = [NodeDef("tur_root"), NodeDef("Turn", 0), NodeDef("Base_LU_01", 1, label="universal_ll"),
             NodeDef("Base_RU_01", 1, label="universal_lr")]
    tracks = [_static((0, 0, 0), (0, 0, 1), 40.0), _spin((0, 0, 1), np.linspace(0, 90, len(_times())), (0, 0, 0.2)),
              _static((-0.3, 0.4, 0.2)), _static((0.3, 0.4, 0.2), (0, 1, 0), 15.0)]
    return _model("e_tur_lt_01.msh", nodes, tracks, {1: ((0.9, 0.9, 0.4), (0, 0, 0))}, robot)


def turret_b(robot: bool = False) -> bytes:
    nodes = [NodeDef("tur_root"), NodeDef("Turn", 0), NodeDef("GP", 1), NodeDef("Base_C", 2, label="central_mc")]
    tracks = [_static((0, 0, 0), (1, 0, 0), 180.0), _spin((0, 0, 1), _wave(60.0), (0, 0, 0.25)),
              _spin((1, 0, 0), _wave(20.0), (0, 0.1, 0.2)), _static((0, 0.5, 0))]
    return _model("e_tur_mt_01.msh", nodes, tracks, {1: ((1.0, 1.0, 0.4), (0, 0, 0)),
                                                      2: ((0.3, 0.6, 0.3), (0, 0.2, 0))}, robot)


def gun(name: str, length: float, robot: bool = False) -> bytes:
    nodes = [NodeDef("gun_root"), NodeDef("barrel", 0), NodeDef("muzzle", 1)]
    t = _times()
    barrel = keyed_track(t, np.c_[np.zeros(len(t)), 0.1 + np.abs(_wave(0.1)), np.zeros(len(t))],
                         axis_quat((0, 1, 0), _wave(45.0 * np.pi / 180)))
    tracks = [_static((0, 0, 0), (0, 0, 1), 90.0), barrel, _static((0, length, 0))]
    return _model(name, nodes, tracks, {1: ((0.12, length, 0.12), (0, length / 2, 0))}, robot)


def tree(size, centre) -> tuple:
    """A stylised tree: a trunk under three stacked eight-sided crowns."""
    w, d, h = size
    x, y, z = centre
    base = z - h / 2
    return merge(cylinder(w * 0.08, h * 0.45, (x, y, base + h * 0.22)),
                 *(slab((w * k, d * k, h * 0.2), (x, y, base + h * (0.5 + 0.17 * n)), cut=w * k * 0.3)
                   for n, k in enumerate((1.0, 0.7, 0.4))))


def rock(size, centre) -> tuple:
    """A boulder: two cut blocks, the smaller leaning on the larger."""
    w, d, h = size
    x, y, z = centre
    return merge(slab((w, d * 0.8, h * 0.6), (x, y, z - h * 0.2), cut=min(w, d) * 0.3),
                 slab((w * 0.55, d * 0.55, h * 0.45), (x + w * 0.15, y + d * 0.1, z + h * 0.25), cut=w * 0.18))


SCENERY_SHAPES = {"synth_tree": (tree, (2.0, 2.0, 3.0)), "synth_rock": (rock, (2.0, 1.6, 1.2))}


def scenery(stem: str) -> bytes:
    """A tree's or a rock's model (one node standing on its origin), for the sample map's scenery."""
    shape, size = SCENERY_SHAPES[stem]
    pos, tris, uvs = shape(size, (0.0, 0.0, size[2] / 2))
    spec = ModelDef([NodeDef("part")], [Part(0, pos, tris, uvs=uvs, material=0 if stem == "synth_tree" else 1)],
                    Animation(FRAMES, [_static()]), stream_name=f"{stem}.msh")
    return build_model(spec).to_bytes()


def single(name: str, size=(0.3, 0.3, 0.3)) -> bytes:
    return _model(name, [NodeDef("part")], [_static()], {0: (size, (0, 0, 0))})


def fort_base(robot: bool = False) -> bytes:
    nodes = [NodeDef("fort"), NodeDef("Base_TM", 0, label="e_bnt_mt")]
    return _model("synth_fort_base.msh", nodes, [_static(), _static((0, 0, 2.0), (0, 0, 1), 45.0)],
                  {0: ((3.0, 3.0, 2.0), (0, 0, 1.0))}, robot)


WEAR = b"2\r\n0 SYNTH_HULL\r\n1 SYNTH_METAL\r\n"
MEMBERS = ("synth_chassis", "e_tur_lt_01", "e_tur_mt_01", "e_gun_ll_01", "e_gun_mc_01", "i_eng_m_df",
           "i_c01_clip", "synth_round", "synth_weapon", "synth_fort_base")


def _models(robot: bool = False) -> dict[str, bytes]:
    scenery_models = {stem: scenery(stem) for stem in SCENERY_SHAPES} if robot else {}
    return {"synth_chassis": chassis(robot), "e_tur_lt_01": turret_a(robot), "e_tur_mt_01": turret_b(robot),
            "e_gun_ll_01": gun("e_gun_ll_01.msh", 0.8, robot), "e_gun_mc_01": gun("e_gun_mc_01.msh", 1.2, robot),
            "i_eng_m_df": single("i_eng_m_df.msh"), "i_c01_clip": single("i_c01_clip.msh", (0.1, 0.2, 0.1)),
            "synth_round": single("synth_round.msh", (0.05, 0.2, 0.05)),
            "synth_weapon": single("synth_weapon.msh", (0.1, 0.5, 0.1)), "synth_fort_base": fort_base(robot),
            **scenery_models}


def _points(stem: str) -> bytes:
    """Control points: one on node 0 (for a mounted part: its socket) and one on its last node."""
    rows = {"synth_chassis": [("CameraCenter", 0, 0, (0, 0, 1.5), (0, 1, 0)), ("Foot", 3, 3, (0, 0, -0.8),
                                                                               (0, 0, -1))],
            "e_tur_lt_01": [("TurretBase", 0, 0, (0, 0, 0.1), (0, 0, 1)), ("TurretDirect", 1, 1, (0, 0.5, 0.2),
                                                                          (0, 1, 0))],
            "e_tur_mt_01": [("TurretBase", 0, 0, (0, 0, 0.1), (0, 0, 1)), ("TargetDirect", 2, 2, (0, 0.6, 0),
                                                                          (0, 1, 0))],
            }.get(stem, [("Barrel", 0, 0, (0, 0, 0), (0, 1, 0)), ("Width", 0, 0, (0, 0, 0), (0.2, 0, 0))])
    return points_of(rows).to_bytes()


def _damage(stem: str, node_count: int) -> bytes:
    rows = [(0x20 if stem == "synth_chassis" and n == 3 else 0, 100.0 * (n + 1), 7.8, "synth_parts.rlb",
             f"{stem[:20]}_{n}.exp") for n in range(node_count)]
    return table_of(rows).to_bytes()


def parts_archive(robot: bool = False) -> Archive:
    """The parts' archive; ``robot``: the models in the robot look (core.authoring.synth.dress), as bundled."""
    archive = Archive()
    for stem, data in _models(robot).items():
        archive.add(f"{stem}.msh", data)
        archive.add(f"{stem}.wea", WEAR, WEAR_TYPE_ID, **WEAR_ATTRS)
        archive.add(f"{stem}.cpt", _points(stem), tag_id("CTPT"))
        archive.add(f"{stem}.ndp", _damage(stem, Model.parse(data).node_count), tag_id("NDPT"))
        archive.add(f"{stem}.ctl", CONTROLLER, tag_id("CTLD"))
    archive.add("synth_fort.bas", fort_plan(), tag_id("BASE"))
    return archive


def fort_plan() -> bytes:
    """The fort's ground plan in the shipped two-ring form: a square round its base and a clearance 1.6 times
    as wide (no back-reference into the mesh)."""
    inner = np.array([(-2.0, -2.0, 0.0), (2.0, -2.0, 0.0), (2.0, 2.0, 0.0), (-2.0, 2.0, 0.0)], np.float32)
    outer = inner.copy()
    outer[:, :2] *= np.float32(1.6)
    return two_rings(inner, outer).to_bytes()


def _slot(archive: str, member: str) -> bytes:
    return archive.encode("cp1251").ljust(BLOCK, b"\0") + member.encode("cp1251").ljust(BLOCK, b"\0")


def part_slots(stem: str, empty: int = 0) -> bytes:
    return b"".join(_slot(PARTS, f"{stem}{ext}") for ext in (".msh", ".wea", ".cpt", ".ndp", ".ctl")) + \
        bytes(SLOT_SIZE * empty)


def objects_archive() -> Archive:
    """Every tag the sources list: BTLU (7 slots), EXTO, INTO, BULL, WPNS (5), STAT (6), FORT and SUNO (2).

    The FORT record has no .msh: a suffix-less slot names the STAT record that has it.
    """
    records = [
        ("synth_chassis", "BTLU", part_slots("synth_chassis", 2)),
        ("e_tur_lt_01", "EXTO", part_slots("e_tur_lt_01")), ("e_tur_mt_01", "EXTO", part_slots("e_tur_mt_01")),
        ("e_gun_ll_01", "EXTO", part_slots("e_gun_ll_01")), ("e_gun_mc_01", "EXTO", part_slots("e_gun_mc_01")),
        ("i_eng_m_df", "INTO", part_slots("i_eng_m_df")), ("i_c01_clip", "INTO", part_slots("i_c01_clip")),
        ("synth_round", "BULL", part_slots("synth_round")), ("synth_weapon", "WPNS", part_slots("synth_weapon")),
        ("synth_fort_base", "STAT", part_slots("synth_fort_base", 1)),
        ("synth_fort", "FORT", _slot(OBJECTS, "synth_fort_base") + _slot(PARTS, "synth_fort.bas")),
        ("synth_suno", "SUNO", _slot(PARTS, "synth_round.msh") + bytes(SLOT_SIZE)),
    ]
    archive = Archive()
    for key, tag, payload in records:
        archive.add(key, payload, tag_id(tag))
    return archive


def _component(record: str, kind: int, attach: int, display: str, children: int, junk: bool = False) -> Component:
    component = Component.new(record, kind, attach, display, children)
    if junk:  # bytes after the NUL, as most retail name blocks hold (openparkan docs/07-objects.md): kept on write
        end = len(component.display_raw.split(b"\0", 1)[0]) + 1
        component.display_raw = component.display_raw[:end] + bytes(range(0xC0, 0xC0 + BLOCK - end))
    return component


def unit_tree() -> UnitTree:
    """The battle robot, in the game's child order (openparkan docs/38-designs.md)."""
    return UnitTree(UNIT_TYPE, [
        _component("synth_chassis", 0, -1, "Шасси (sh01)", 3, junk=True),
        _component("i_eng_m_df", 3, 0, "Двигатель (en01)", 0),
        _component("e_tur_lt_01", 1, 1, "Turret L (tl01)", 2, junk=True),
        _component("e_gun_ll_01", 4, 2, "Gun LL (gl01)", 0),
        _component("e_gun_ll_01", 4, 3, "Gun LL (gl02)", 0),
        _component("e_tur_mt_01", 1, 2, "Turret M (tm01)", 1),
        _component("e_gun_mc_01", 4, 3, "Gun MC (gm01)", 1),
        _component("i_c01_clip", 5, 0, "Clip (cl01)", 0),
    ])


def fort_tree() -> UnitTree:
    """A building whose root record (FORT) finds its model through a redirect."""
    return UnitTree(BRIDGE_TYPE, [
        _component("synth_fort", 0, -1, "Fort (fo01)", 1),
        _component("e_tur_mt_01", 1, 1, "Turret M (tm02)", 0),
    ])


def unit_files(robot: bool = False) -> dict[str, bytes]:
    """The game-folder files of the synthetic units, by path relative to the game folder (``robot``: the parts in
    the robot look, as samples/unit holds them)."""
    return {OBJECTS: objects_archive().to_bytes(), PARTS: parts_archive(robot).to_bytes(),
            UNIT_DAT: unit_tree().to_bytes(), FORT_DAT: fort_tree().to_bytes()}


# --------------------------------------------------------------------- big units (scale)
CHAIN_DAT = "UNITS/SYNTH/synth_chain.dat"
WIDE_DAT = "UNITS/SYNTH/synth_wide.dat"


def chain_tree(count: int) -> UnitTree:
    """The chassis carrying a chain of ``count - 1`` guns: the first on the chassis's socket Base_TM (node 2),
    each next one on the muzzle (node 2) of the one before. Deep: the tree's depth is its size."""
    components = [_component("synth_chassis", 0, -1, "Шасси (sh01)", 1 if count > 1 else 0)]
    components += [_component("e_gun_ll_01", 4, 2, f"Gun (g{i:05d})", 1 if i < count - 1 else 0)
                   for i in range(1, count)]
    return UnitTree(UNIT_TYPE, components)


def wide_tree(count: int) -> UnitTree:
    """The chassis carrying ``count - 1`` guns side by side on its socket Base_TM (node 2). Wide: one parent."""
    return UnitTree(UNIT_TYPE, [_component("synth_chassis", 0, -1, "Шасси (sh01)", count - 1)] +
                    [_component("e_gun_ll_01", 4, 2, f"Gun (g{i:05d})", 0) for i in range(1, count)])
