"""Synthetic buildings with interiors (world digest W69-W75): a building model whose stream 17 holds a hall way,
its ground plan ``.bas`` and the ``fortif.rlb`` / ``objects.rlb`` pair that names them.

The building: a shell node, an interior node (node flag bit 0, the ``i*`` nodes) and a pod node set off and
turned, so a hall-way vertex placed through its joint lands elsewhere than its raw position. The hall way uses
every vertex flag W71 names and the three link kinds shipped: plain (eight 0xFFFFFFFF), door (1, 1) and
flyers only (word 1 = 0).
"""

from __future__ import annotations

import numpy as np

from ..animation.tracks import Animation, Track
from ..appearance.wear import WEAR_ATTRS, WEAR_TYPE_ID
from ..container.nres import Archive
from ..interior import bas as B
from ..interior import hallway as H
from ..msh import streams as S
from ..unit.dat import Component, UnitTree
from ..unit.objects import tag_id
from ..unit.text import BLOCK
from .build import ModelDef, NodeDef, Part, build_model
from .synth import axis_quat, box, box_uvs, bunker

FORTIF = "fortif.rlb"
HALL_DAT = "UNITS/SYNTH/synth_hall.dat"
BUILDING_TYPE = 0x80001000  # the synthetic fort's unit type (core.authoring.units)
OBJECTS = "objects.rlb"
BUILDING = "synth_hall"
WEAR = b"1\r\n0 SYNTH_HULL\r\n"
POD_OFFSET = (6.0, 0.0, 0.5)
POD_TURN = 90.0  # degrees about z


def hallway() -> H.HallWay:
    """Eight vertices (five on the shell, two inside, one on the pod) and ten links."""
    any_size, small = H.ANY_SIZE, H.BUILDING_SIZE
    vertices = [
        ((-5.0, -5.0, 0.0), any_size, 0), ((5.0, -5.0, 0.0), any_size, 0),
        ((5.0, 5.0, 0.0), any_size | H.UNLOADING, 0), ((-5.0, 5.0, 0.0), any_size | H.LOADING, 0),
        ((0.0, -3.5, 0.0), small | H.CREATION_FALLBACK, 0),
        ((0.0, -1.0, 0.2), small | H.CREATION, 1), ((0.0, 1.0, 0.2), small, 1),
        ((0.0, 0.0, 0.0), H.CONTROL_POD, 2),
    ]
    door, flyer = H.door_tail(), H.flyer_tail()
    links = [(0, 1, None), (1, 2, None), (2, 3, None), (3, 0, None), (0, 4, None), (4, 5, door), (5, 6, None),
             (6, 7, door), (1, 7, flyer), (2, 7, flyer)]
    return H.hallway_of_rows(vertices, links, attr3=0)


def building_model(graph: H.HallWay | None = None, name: str = BUILDING):
    """The building (a Model) with ``graph`` (default: ``hallway()``) as its stream 17."""
    graph = hallway() if graph is None else graph
    shell = bunker((8.0, 8.0, 4.0), (0.0, 0.0, 2.0))
    hall = box((3.0, 3.0, 2.0), (0.0, 0.0, 1.0))
    pod = box((1.0, 1.0, 1.0), (0.0, 0.0, 0.5))
    nodes = [NodeDef("fort"), NodeDef("i_hall", 0, flags=1), NodeDef("pod", 0)]
    parts = [Part(0, shell[0], shell[1]), Part(1, hall[0], hall[1], uvs=box_uvs()),
             Part(2, pod[0], pod[1], uvs=box_uvs())]
    turn = S.encode_rotations(axis_quat((0, 0, 1), np.radians(POD_TURN)))
    tracks = [Track.static(), Track.static(), Track.static(POD_OFFSET, turn)]
    extra = [(H.TYPE_ID, graph.to_bytes(), len(graph.vertices), len(graph.links), graph.attr3)]
    return build_model(ModelDef(nodes, parts, Animation(1, tracks), extra_streams=extra, stream_name=f"{name}.msh"))


def ground_plan_for(model, corners: int | None = None, clearance: float = 1.6) -> B.GroundPlan:
    """A plan whose inner ring traces the shell's footprint (the lowest points, anticlockwise, each
    back-referenced to a triangle corner that holds it) or, with ``corners``, a regular ring of that many corners
    round the footprint (no back-reference: 0xFFFFFFFF); the outer ring is the inner scaled by ``clearance``."""
    positions, triangles = model.positions, B.triangle_vertices(model)
    low = positions[:, 2].min()
    if corners is None:
        first_batch = model.batches[0]
        start = int(first_batch["index_start"]) // 3
        shell = np.unique(triangles[start:start + int(first_batch["index_count"]) // 3])
        footprint = shell[positions[shell, 2] == low]
        centre = positions[footprint].mean(axis=0)
        angles = np.arctan2(positions[footprint, 1] - centre[1], positions[footprint, 0] - centre[0])
        ring_vertices = footprint[np.argsort(angles, kind="stable")]
        _, first = np.unique(positions[ring_vertices].round(6), axis=0, return_index=True)
        ring_vertices = ring_vertices[np.sort(first)]
        inner = positions[ring_vertices]
        refs = [int(np.flatnonzero(triangles.reshape(-1) == v)[0]) for v in ring_vertices]
        triangles_of, corners_of = [r // 3 for r in refs], [r % 3 for r in refs]
    else:
        radius = float(np.abs(positions[:, :2]).max())
        angles = np.linspace(0, 2 * np.pi, corners, endpoint=False)
        inner = np.stack([radius * np.cos(angles), radius * np.sin(angles), np.full(corners, low)], axis=1)
        triangles_of = corners_of = None
    outer = np.asarray(inner, np.float32).copy()
    outer[:, :2] *= np.float32(clearance)
    return B.two_rings(inner, outer, triangles_of, corners_of)


def multi_contour_plan() -> bytes:
    """A plan in the form the public readings dispute (two inner contours, one outer): carried as read."""
    square = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 0)], np.float32)
    inner = B.Ring(square, np.zeros(4, np.uint32), np.zeros(4, np.uint32)).to_bytes()
    second = B.Ring(square + 2, np.zeros(4, np.uint32), np.zeros(4, np.uint32)).to_bytes()
    return np.uint32(2).tobytes() + inner + second + np.uint32(1).tobytes() + B.Ring(square * 3).to_bytes()


def _slot(archive: str, member: str) -> bytes:
    return archive.encode("cp1251").ljust(BLOCK, b"\0") + member.encode("cp1251").ljust(BLOCK, b"\0")


def fortif_archive(plan: B.GroundPlan | None = None, name: str = BUILDING) -> Archive:
    """``fortif.rlb``: the building's model, WEAR and ``.bas`` (NRes type BASE)."""
    model = building_model(name=name)
    plan = ground_plan_for(model) if plan is None else plan
    archive = Archive()
    archive.add(f"{name}.msh", model.to_bytes())
    archive.add(f"{name}.wea", WEAR, WEAR_TYPE_ID, **WEAR_ATTRS)
    archive.add(f"{name}.bas", plan.to_bytes(), B.BAS_TYPE_ID)
    return archive


def objects_archive(name: str = BUILDING) -> Archive:
    """``objects.rlb``: the FORT record (two slots: a parent record that holds the model, then the ``.bas``)
    and that STAT parent."""
    archive = Archive()
    archive.add(f"{name}_base", _slot(FORTIF, f"{name}.msh") + _slot(FORTIF, f"{name}.wea") + bytes(64 * 4),
                tag_id("STAT"))
    archive.add(name, _slot(OBJECTS, f"{name}_base") + _slot(FORTIF, f"{name}.bas"), tag_id("FORT"))
    return archive


def building_tree(name: str = BUILDING) -> UnitTree:
    """A unit of one component, the building's FORT record."""
    return UnitTree(BUILDING_TYPE, [Component.new(name, 0, -1, "Hall (hl01)", 0)])


def interior_files() -> dict[str, bytes]:
    """The game-folder files of the synthetic building, by path relative to the game folder."""
    return {FORTIF: fortif_archive().to_bytes(), OBJECTS: objects_archive().to_bytes(),
            HALL_DAT: building_tree().to_bytes()}


def extreme_plans() -> dict[str, bytes]:
    """The retail envelope of ground plans: rings of 3 and 26 corners (the extremes of the 60 retail rings), the
    traced footprint, and a multi-contour plan (carried)."""
    model = building_model()
    return {"traced": ground_plan_for(model).to_bytes(), "corners_3": ground_plan_for(model, 3).to_bytes(),
            "corners_26": ground_plan_for(model, 26).to_bytes(), "multi_contour": multi_contour_plan()}
