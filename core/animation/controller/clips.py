"""What the game makes of a controller (dragonee/openparkan docs/24-motion.md, docs/30-turrets.md): the
transition graph, the clips (the cycle each anchor plans back to itself), step timing and strides, and the
pose the game draws at a step.

Decisions the sources leave open are marked "Decision" and listed in docs/formats/controller.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import FormatError
from ..pose import pose_matrix
from ..sampler import NONE, AnimationData, blend, blend_poses, sample
from .codec import BY_VELOCITY, CHANNEL, FIXED_STEP, Controller
from .graph import PLAN_LIMIT, live_costs, plan_cycles

F32 = np.float32
STEP_MIN_MS, STEP_MAX_MS = 10.0, 5000.0   # 2.4: the step is held to 0.01..5 s
VELOCITY_REACH = 5.0                      # 2.4: a velocity state's set length is cut so speed * step <= 5
CHANNEL_WRAP, CHANNEL_INVERT = 0x1, 0x2


# ------------------------------------------------------------------- the graph
def load_costs(controller: Controller) -> np.ndarray:
    """The costs the planner uses for a controller (``graph.live_costs`` of its states and cost table)."""
    return live_costs(controller.states, controller.costs)


# ---------------------------------------------------------------- timing, stride
def state_speed(controller: Controller, state: int) -> float:
    """Decision: the nominal speed of a state, the largest |component| of its velocity box's centre over its
    switched-on axes (0 when none is on). The game uses the body's live speed (2.4)."""
    s = controller.states[state]
    centre = (s["velocity_min"].astype(np.float64) + s["velocity_max"]) / 2
    on = [abs(float(centre[k])) for k in range(3) if s["boxes"] & (1 << k)]
    return max(on, default=0.0)


def state_weight(controller: Controller, state: int, speed: float) -> float:
    """q (2.4): 1, except on states neither velocity-driven nor fixed while moving: p + (1 - p) * blend.
    Decision: p = 0 (its lo and D are not in the sources read), so such a state's q is its blend base."""
    s = controller.states[state]
    if s["mode"] & (BY_VELOCITY | FIXED_STEP) or not speed > 0:
        return 1.0
    return float(s["blend"])


def stride(data: AnimationData, controller: Controller, state: int, q: float = 1.0) -> float:
    """Node 0's travel over a step: (1 - q) * travel over pair A + q * travel over pair B, a travel being the
    length of node 0's displacement from the pair's first to its last frame (0 for an unused, negative pair)."""
    s = controller.states[state]
    travel = []
    for pair in (s["pair_a"], s["pair_b"]):
        if not (np.all(np.isfinite(pair)) and np.all(pair >= 0)):
            travel.append(0.0)
            continue
        pos = sample(data, pair, [0]).pos[0].astype(np.float64)
        travel.append(float(np.linalg.norm(pos[1] - pos[0])))
    return (1 - q) * travel[0] + q * travel[1]


def step_duration_ms(controller: Controller, state: int, state_stride: float | None, speed: float) -> float | None:
    """A step's length in ms (2.4), without the jitter (bit 0x1000000 varies it by up to 12.5% at random).

    A fixed step takes its +0x20 length; else a set length (a velocity state's cut so that speed x step <= 5 m);
    else stride / speed. Held to 10..5000 ms. Decision: a length that is not finite (0 / 0, NaN in the file) is
    held at the longest, 5000 ms. None when it needs a stride and none is known (no model).
    """
    s = controller.states[state]
    length = float(s["length_ms"])
    if s["mode"] & FIXED_STEP:
        ms = length
    elif length != 0:
        ms = length
        if s["mode"] & BY_VELOCITY and speed > 0:
            ms = min(ms, VELOCITY_REACH / speed * 1000)
    elif state_stride is None:
        return None
    else:
        ms = state_stride / speed * 1000 if speed > 0 else float("inf")
    if np.isnan(ms):
        return STEP_MAX_MS
    return float(min(max(ms, STEP_MIN_MS), STEP_MAX_MS))


# ---------------------------------------------------------------------- clips
@dataclass
class ClipStep:
    state: int
    q: float                    # the weight the step blends toward (state_weight)
    duration_ms: float | None
    stride: float | None


@dataclass
class Clip:
    """An anchor's cycle: the anchor, then the states it queues until it is back (2.3)."""

    index: int
    anchor: int
    steps: list[ClipStep]
    speed: float

    @property
    def states(self) -> list[int]:
        return [s.state for s in self.steps]

    @property
    def duration_ms(self) -> float | None:
        values = [s.duration_ms for s in self.steps]
        return None if None in values else float(sum(values))

    @property
    def stride(self) -> float | None:
        values = [s.stride for s in self.steps]
        return None if None in values else float(sum(values))


def clips_of(controller: Controller, data: AnimationData | None = None, speed: float | None = None) -> list[Clip]:
    """One clip per anchor that has a way back to itself, in anchor order. Strides and durations need the
    model's ``data``; ``speed`` (m/s) overrides each clip's nominal speed (its anchor's, ``state_speed``)."""
    a = len(controller.states)
    if a > PLAN_LIMIT:
        raise FormatError.single("state", None, f"{a} states: the planner is run over at most {PLAN_LIMIT}")
    live = load_costs(controller)
    out = []
    for anchor, cycle in zip(controller.anchors, plan_cycles(live, controller.anchors)):
        if cycle is None:
            continue
        states = [anchor, *cycle[:-1]]
        clip_speed = state_speed(controller, anchor) if speed is None else float(speed)
        steps = []
        for state in states:
            q = state_weight(controller, state, clip_speed)
            travel = None if data is None else stride(data, controller, state, q)
            steps.append(ClipStep(state, q, step_duration_ms(controller, state, travel, clip_speed), travel))
        out.append(Clip(len(out), anchor, steps, clip_speed))
    return out


# ---------------------------------------------------------------------- poses
@dataclass
class Step:
    """Where a clip is at step ``position``: the state, its phase s and the game's two frames and weight."""

    position: int
    state: int
    phase: np.float32
    frame_a: np.float32
    frame_b: np.float32
    weight: np.float32


def step_at(controller: Controller, clip: Clip, step: float) -> Step:
    """Step ``step`` of the clip: the integer part picks the state (modulo the cycle), the fraction is the
    phase s (2.4). Frames A = A0 + s (A1 - A0), B = B0 + s (B1 - B0); weight w = (1 - u) q_prev + u q with
    u = min(4 s, 1), q_prev the previous step's q (the cycle's last for its first), all in float32."""
    if not np.isfinite(step):
        raise FormatError.single("clip", clip.index, f"step {step} is not a finite number")
    whole = int(np.floor(step))
    position = whole % len(clip.steps)
    s = F32(step - whole)
    here = clip.steps[position]
    q, q_prev = F32(here.q), F32(clip.steps[position - 1].q)
    record = controller.states[here.state]
    a0, a1 = record["pair_a"].astype(F32)
    b0, b1 = record["pair_b"].astype(F32)
    u = min(F32(4) * s, F32(1))
    return Step(position, here.state, s, F32(a0 + s * (a1 - a0)), F32(b0 + s * (b1 - b0)),
                F32((F32(1) - u) * q_prev + u * q))


@dataclass
class Steps:
    """``step_at`` of many steps at once: each field an array, one entry per step."""

    position: np.ndarray  # int64
    state: np.ndarray     # int64
    phase: np.ndarray     # float32
    frame_a: np.ndarray   # float32
    frame_b: np.ndarray   # float32
    weight: np.ndarray    # float32

    def __len__(self) -> int:
        return len(self.position)

    def __getitem__(self, k: int) -> Step:
        return Step(int(self.position[k]), int(self.state[k]), self.phase[k], self.frame_a[k], self.frame_b[k],
                    self.weight[k])


def steps_at(controller: Controller, clip: Clip, steps) -> Steps:
    """``step_at`` of every step in ``steps``, in one pass: the same float32 steps, bit for bit."""
    steps = np.asarray(steps, np.float64).reshape(-1)
    bad = np.flatnonzero(~np.isfinite(steps) | (np.abs(steps) >= 2.0 ** 62))
    if len(bad):
        if not np.isfinite(steps[bad[0]]):
            raise FormatError.single("clip", clip.index, f"step {steps[bad[0]]} is not a finite number")
        return _steps_one_by_one(controller, clip, steps)  # past int64: Python's integers, as step_at
    whole = np.floor(steps) + 0.0  # floor(-0.0) is -0.0; step_at's int(...) is 0, and -0.0 - 0 keeps the sign
    position = whole.astype(np.int64) % len(clip.steps)
    s = (steps - whole).astype(F32)
    state = np.array([c.state for c in clip.steps], np.int64)[position]
    q_all = np.array([F32(c.q) for c in clip.steps], F32)
    q, q_prev = q_all[position], q_all[position - 1]
    records = controller.states[state]
    a0, a1 = records["pair_a"].astype(F32).T
    b0, b1 = records["pair_b"].astype(F32).T
    u = np.minimum(F32(4) * s, F32(1))
    return Steps(position, state, s, (a0 + s * (a1 - a0)).astype(F32), (b0 + s * (b1 - b0)).astype(F32),
                 ((F32(1) - u) * q_prev + u * q).astype(F32))


def _steps_one_by_one(controller: Controller, clip: Clip, steps: np.ndarray) -> Steps:
    each = [step_at(controller, clip, float(v)) for v in steps]
    return Steps(np.array([e.position for e in each], np.int64), np.array([e.state for e in each], np.int64),
                 *(np.array([getattr(e, f) for e in each], F32) for f in ("phase", "frame_a", "frame_b", "weight")))


def channel_frame(channel: np.ndarray, value: float) -> np.float32:
    """The frame a channel's node plays at ``value`` (2.5): wrap (flag 1) or clamp to 0..1, then 1 - v when
    inverted (flag 2), then first + v (last - first). Decision: the inversion after the wrap, as openparkan."""
    v = F32(value)
    v = v - np.floor(v) if channel["flags"] & CHANNEL_WRAP else min(max(v, F32(0)), F32(1))
    if channel["flags"] & CHANNEL_INVERT:
        v = F32(1) - v
    first, last = F32(channel["first"]), F32(channel["last"])
    return F32(first + v * (last - first))


def node_channels(controller: Controller) -> dict[int, int]:
    """The channel posing each node a channel animates: of the channels with a segment of their own (first,
    last not both -1), the first naming the node. Decision: the sources are silent on two channels naming one
    node (openparkan docs/30-turrets.md, docs/07-objects.md: how one channel plays its segment); the first wins,
    in core and in Blender."""
    out: dict[int, int] = {}
    for i, channel in enumerate(np.asarray(controller.channels, CHANNEL)):
        if (channel["first"], channel["last"]) != (-1, -1):
            out.setdefault(int(channel["node"]), i)
    return out


def shadowed_channels(controller: Controller) -> list[tuple[int, int, int]]:
    """(node, channel posing it, other channel) for every further channel with a segment naming a node an
    earlier one poses (``node_channels``): the other poses nothing."""
    posing = node_channels(controller)
    return [(int(c["node"]), posing[int(c["node"])], i)
            for i, c in enumerate(np.asarray(controller.channels, CHANNEL))
            if (c["first"], c["last"]) != (-1, -1) and posing[int(c["node"])] != i]


def pose_at_step(data: AnimationData, controller: Controller, step: Step, nodes=None,
                 channel_values: dict[int, float] | None = None, in_place: bool = True) -> np.ndarray:
    """The game's local matrices (nodes, 4, 4) float32 at a clip step (translation in elements 3/7/11).

    Each node: ``blend(data, node, frame_a, frame_b, weight)``, bit for bit; a node a channel animates plays
    its own segment instead (2.5: A = -1, B = the channel's frame, weight 1) at ``channel_values[channel]``
    (default the channel's initial value); of two channels naming a node, the first (``node_channels``).
    ``in_place``: node 0's translation is cleared when it has no parent, as the game draws it (2.4). NaN where
    the runtime has no pose (neither frame taken).
    """
    node_ids = range(data.node_count) if nodes is None else [int(n) for n in nodes]
    channel_of = node_channels(controller)
    out = np.full((len(node_ids), 4, 4), np.nan, F32)
    for row, node in enumerate(node_ids):
        if not 0 <= node < data.node_count:
            raise FormatError.single("Res1", None, f"node {node} of {data.node_count}")
        if node in channel_of:
            channel = controller.channels[channel_of[node]]
            value = (channel_values or {}).get(channel_of[node], float(channel["initial"]))
            matrix = blend(data, node, -1.0, float(channel_frame(channel, value)), 1.0)
        else:
            matrix = blend(data, node, float(step.frame_a), float(step.frame_b), float(step.weight))
        if matrix is None:
            continue
        out[row] = matrix
        if in_place and node == 0 and data.parents[0] == NONE:
            out[row, :3, 3] = 0
    return out



def poses_at_steps(data: AnimationData, controller: Controller, steps: Steps, nodes=None,
                   channel_values: dict[int, float] | None = None, in_place: bool = True
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``pose_at_step`` of every step of ``steps`` before the matrix, all nodes and steps in one call: (rot
    (nodes, steps, 4) file-order quaternions as ``blend_pose`` gives them, pos (nodes, steps, 3), shown (nodes,
    steps)), bit for bit; NaN and ``shown`` False where the runtime has no pose. ``in_place`` clears node 0's
    translation as ``pose_at_step`` does."""
    node_ids = np.arange(data.node_count) if nodes is None else np.asarray([int(n) for n in nodes], np.int64)
    for node in node_ids:
        if not 0 <= node < data.node_count:
            raise FormatError.single("Res1", None, f"node {node} of {data.node_count}")
    channel_of = node_channels(controller)
    count = len(steps)
    rot = np.full((len(node_ids), count, 4), np.nan, F32)
    pos = np.full((len(node_ids), count, 3), np.nan, F32)
    shown = np.zeros((len(node_ids), count), bool)
    played = np.array([int(n) not in channel_of for n in node_ids], bool)
    if played.any():
        rot[played], pos[played], shown[played] = blend_poses(data, node_ids[played], steps.frame_a, steps.frame_b,
                                                              steps.weight)
    for row in np.flatnonzero(~played):  # a channel's node: its own segment, the same at every step
        channel = controller.channels[channel_of[int(node_ids[row])]]
        value = (channel_values or {}).get(channel_of[int(node_ids[row])], float(channel["initial"]))
        r, p, ok = blend_poses(data, node_ids[row:row + 1], [-1.0], [float(channel_frame(channel, value))], [1.0])
        rot[row], pos[row], shown[row] = r[0, 0], p[0, 0], ok[0, 0]
    if in_place and data.parents[0] == NONE:
        pos[(node_ids == 0) [:, None] & shown] = 0
    return rot, pos, shown


def matrices_at_steps(data: AnimationData, controller: Controller, steps: Steps, nodes=None,
                      channel_values: dict[int, float] | None = None, in_place: bool = True) -> np.ndarray:
    """``pose_at_step`` of every step: (steps, nodes, 4, 4) float32, bit for bit, NaN where there is no pose."""
    rot, pos, shown = poses_at_steps(data, controller, steps, nodes, channel_values, in_place)
    out = np.full((*shown.shape, 4, 4), np.nan, F32)
    out[shown] = pose_matrix(rot[shown], pos[shown])
    return out.transpose(1, 0, 2, 3)
