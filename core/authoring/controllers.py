"""Synthetic controllers (``.ctl``) and the animated model they drive, for tests, the CLI and later Blender work.

No retail controller is available; ``walker_controller`` is built from the layout dragonee/openparkan
docs/13-control.md and docs/24-motion.md give, with this project's own writer, shaped like openparkan's hero
example r_h_02 (docs/24-motion.md): a stand anchor that loops on itself, a walk cycle and a run cycle,
transition states between them, two contacts, and two channels (turret yaw and gun pitch) on segments of
their own. ``walker_model`` is the model whose timeline those states play.
"""

from __future__ import annotations

import numpy as np

from ..animation.controller.codec import (
    ACTION,
    ANCHOR,
    BY_VELOCITY,
    CHANNEL,
    COMPONENT,
    CONTACT,
    FIXED_STEP,
    GROUP_BLOCK,
    NO_EDGE,
    NO_GROUP,
    PARAMS,
    STATE,
    Component,
    Controller,
)
from ..animation.tracks import Animation
from .build import ModelDef, NodeDef, Part
from .synth import axis_quat, box, box_uvs, keyed_track

FRAME_COUNT = 41
STAND, WALK, RUN = (2.0, 2.0), (4.0, 12.0), (14.0, 30.0)   # frames of the timeline's parts
YAW_FRAMES, PITCH_FRAMES = (32.0, 36.0), (38.0, 40.0)
WALK_STEP, RUN_STEP = 0.15, 0.25   # body travel per frame in the walk and run parts


def state(mode: int, pair_a=(-1.0, -1.0), pair_b=(0.0, 0.0), length_ms: float = 0.0, blend: float = 1.0,
          velocity_y=None, entry_group: int = NO_GROUP, uses: int = -1, request: int = -1) -> np.ndarray:
    """One 156-byte state record; ``velocity_y`` = (min, max) switches the y velocity box on."""
    record = np.zeros((), STATE)
    record["mode"] = mode
    record["pair_a"], record["pair_b"] = pair_a, pair_b
    record["blend"], record["length_ms"] = blend, length_ms
    if velocity_y is not None:
        record["boxes"] = 0x2
        record["velocity_min"] = (0.0, velocity_y[0], 0.0)
        record["velocity_max"] = (0.0, velocity_y[1], 0.0)
    record["entry_group"], record["uses"], record["request"] = entry_group, uses, request
    return record


def channel(node: int, first: float, last: float, initial: float, rate: float, span: float, flags: int,
            point: int = -1) -> np.ndarray:
    record = np.zeros((), CHANNEL)
    record["node"], record["first"], record["last"], record["initial"] = node, first, last, initial
    record["second_point"], record["point"] = -1, point
    record["rate"], record["span"], record["flags"] = rate, span, flags
    return record


def component(kind: int, node: int, channels, label: str = "", archive: str = "", member: str = "") -> Component:
    fixed = np.zeros((), COMPONENT)
    fixed["kind"], fixed["node"] = kind, node
    fixed["stroke_group"] = fixed["start_group"] = fixed["stop_group"] = NO_GROUP
    fixed["initial_state"] = -1
    fixed["archive"], fixed["member"] = archive.encode("cp1251"), member.encode("cp1251")
    raw = label.encode("cp1251") + b"\0" if label else b""
    return Component(fixed, np.asarray(channels, "<i4"), raw)


def default_params() -> np.ndarray:
    """The constructor's defaults (openparkan control.py), with a top speed of 14 m/s forward."""
    params = np.zeros((), PARAMS)
    params["acceleration"] = 2.5
    params["top_speed"] = (0.0, 14.0, 0.0)
    params["turn_rate"] = params["max_lean"] = 6.28
    params["righting_rate"] = 1.0
    params["word_108"] = np.float32(-1.0).view(np.uint32)
    params["slope_cone"] = 1.57079
    params["word_116"] = (0, np.float32(-1.0).view(np.uint32))
    params["payload_kg"] = np.finfo(np.float32).max
    return params


def pair(start: float, frames: float) -> tuple[float, float]:
    return (start, start + frames)


def walker_states() -> list[np.ndarray]:
    """Eleven states: 0 stand (anchor), 1 walk start, 2-5 the walk cycle (anchor 2), 6 run entry (q 0.6),
    7-10 the run cycle (anchor 7; state 9 neither velocity-driven nor fixed, blend base 0.75)."""
    walk, run = (2.0, 6.0), (6.0, 14.0)
    return [
        state(ANCHOR | FIXED_STEP, STAND, STAND, 50.0, velocity_y=(-2.0, 2.0)),
        state(FIXED_STEP, STAND, (2.0, 4.0), 125.0, velocity_y=(-2.0, 6.0)),
        state(ANCHOR | BY_VELOCITY, (-1.0, -1.0), pair(4, 2), velocity_y=walk, entry_group=0),
        state(BY_VELOCITY, (-1.0, -1.0), pair(6, 2), velocity_y=walk),
        state(BY_VELOCITY, (-1.0, -1.0), pair(8, 2), velocity_y=walk),
        state(BY_VELOCITY, (-1.0, -1.0), pair(10, 2), velocity_y=walk),
        state(0, STAND, (12.0, 14.0), 100.0, blend=0.6, velocity_y=(4.0, 10.0)),
        state(ANCHOR | BY_VELOCITY, (-1.0, -1.0), pair(14, 4), velocity_y=run),
        state(BY_VELOCITY, (-1.0, -1.0), pair(18, 4), velocity_y=run),
        state(0, (14.0, 15.0), pair(22, 4), 120.0, blend=0.75, velocity_y=run),
        state(BY_VELOCITY, (-1.0, -1.0), pair(26, 4), velocity_y=run),
    ]


# (to, from): cost. The rest of the table is 1e6, no edge.
WALKER_EDGES = {
    (0, 0): 1.0, (1, 0): 2.0, (2, 1): 1.0,
    (3, 2): 0.0, (4, 3): 0.0, (5, 4): 0.0, (2, 5): 0.0, (5, 3): 3.0,
    (0, 5): 4.0, (0, 2): 4.0, (6, 5): 2.0, (7, 6): 1.0,
    (8, 7): 0.0, (9, 8): 0.0, (10, 9): 0.0, (7, 10): 0.0, (2, 10): 3.0,
}
WALKER_CLIPS = [[0], [2, 3, 4, 5], [7, 8, 9, 10]]  # the cycles the three anchors plan


def walker_controller() -> Controller:
    states = walker_states()
    a = len(states)
    costs = np.full((a, a), NO_EDGE, "<f4")
    for (to, source), cost in WALKER_EDGES.items():
        costs[to, source] = cost
    contacts = np.zeros((a, 2), CONTACT)
    contacts["point"] = (0, 1)
    contacts["flags"] = 0x1
    contacts["landing_group"] = NO_GROUP
    contacts["landing_group"][2:6] = 0
    channels = np.array([channel(1, *YAW_FRAMES, 0.5, 1.0, 2 * np.pi, 0x3, point=0),
                         channel(2, *PITCH_FRAMES, 0.25, 0.5, 1.05, 0x0, point=1)])
    components = [component(1, 1, [0, 1]), component(2, 2, [1], label="i_c01_t", archive="objects.rlb",
                                                     member="gun.msh")]
    block = np.full(GROUP_BLOCK, NO_GROUP, "<i4")
    block[0] = 0
    step = np.zeros(1, ACTION)
    step["values"][0, 3] = 3  # start an effect on a control point
    step["archive"], step["member"] = b"effects.rlb", b"step.eff"
    return Controller(default_params(), np.array(states), contacts, costs, channels, components, block, [step])


def walker_model(name: str = "walker.msh") -> ModelDef:
    """Body (node 0) moving forward over the walk (0.15 per frame) and run (0.25 per frame) parts of the
    timeline and bobbing; turret (1) yawing 180, 0, 180 degrees over frames 32-36; gun (2) pitching -30..+30
    degrees over 38-40; two legs (3, 4) swinging."""
    nodes = [NodeDef("body"), NodeDef("turret", 0), NodeDef("gun", 1), NodeDef("leg_l", 0), NodeDef("leg_r", 0)]
    parts = []
    for node, (size, centre) in enumerate([((1.6, 2.0, 0.8), (0, 0, 0)), ((1.0, 1.0, 0.4), (0, 0, 0.2)),
                                          ((0.2, 1.2, 0.2), (0, 0.6, 0)), ((0.3, 0.3, 1.0), (0, 0, -0.5)),
                                          ((0.3, 0.3, 1.0), (0, 0, -0.5))]):
        pos, tris = box(size, centre)
        parts.append(Part(node, pos, tris, uvs=box_uvs()))
    frames = np.arange(FRAME_COUNT, dtype=np.float64)
    forward = np.select([(frames >= WALK[0]) & (frames <= WALK[1]), (frames >= RUN[0]) & (frames <= RUN[1])],
                        [(frames - WALK[0]) * WALK_STEP, (frames - RUN[0]) * RUN_STEP], 0.0)
    body_pos = np.c_[np.zeros_like(frames), forward, 1.0 + 0.05 * np.sin(frames * np.pi / 2)]
    body = keyed_track(frames, body_pos, axis_quat((0, 1, 0), 0.08 * np.sin(frames * np.pi / 2)))
    yaw_times = np.array([0, *np.arange(YAW_FRAMES[0], YAW_FRAMES[1] + 1)], np.float64)
    yaw = np.radians([0, 180, 90, 0, -90, -180])
    turret = keyed_track(yaw_times, np.tile([0, 0, 0.4], (len(yaw_times), 1)), axis_quat((0, 0, 1), yaw))
    pitch_times = np.array([0, *np.arange(PITCH_FRAMES[0], PITCH_FRAMES[1] + 1)], np.float64)
    gun = keyed_track(pitch_times, np.tile([0, 0.3, 0.2], (len(pitch_times), 1)),
                      axis_quat((1, 0, 0), np.radians([0, -30, 0, 30])))
    swing = 0.5 * np.sin(frames * np.pi / 4)
    legs = [keyed_track(frames, np.tile([side * 0.5, 0, -0.3], (FRAME_COUNT, 1)), axis_quat((1, 0, 0), sign * swing))
            for side, sign in ((-1, 1), (1, -1))]
    anim = Animation(FRAME_COUNT, [body, turret, gun, *legs])
    anim.fit_frame_count()
    return ModelDef(nodes, parts, anim, stream_name=name)
