"""Import planning of a model's controller (``.ctl``; docs/formats/controller.md): one set of keys per clip, the game's
blended pose at every step, and the channels an artist poses with sliders.

The controller is found and checked against the model by core (``core.model_controller``: ``STEM.ctl``
beside a model file, any case, or an archive's CTLD entry, the one named like the model, else the archive's only
one), as ``python -m core clips`` finds and checks it. Clip names follow ``clip_name``. Times: a clip starts at
Blender frame 0 and step k starts at ``sum(duration_ms of the steps before) * frame_rate / 1000``; keys sit at
every integer frame and every step start (but one within 0.01 frame of an integer frame, which Blender would
merge with that frame's key: ``com.key_frames.spaced``), each the pose ``core.animation.controller.pose_at_step``
gives there (its quaternion normalised, as Blender shows it). Nodes a channel animates are left to their sliders.

No bpy: pure numpy on top of core.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.animation.controller import Clip, Controller, channel_frame, clips_of
from ...core.animation.controller.clips import node_channels, shadowed_channels, state_speed, steps_at
from ...core.animation.controller.codec import MATERIAL_CHANNEL
from ...core.animation.sampler import NONE, AnimationData, blend_poses
from ...core.container.nres import Entry
from ...core.errors import FormatError, printable
from ...core.files import Container
from ...core.model_controller import (  # noqa: F401  (controller_beside, controller_entry: exp uses them)
    FoundController,
    controller_beside,
    controller_entry,
    locate_controller,
    read_for_model,
    where_looked,
)
from ...core.msh.model import Model
from ..com import conversion as C
from ..com.key_frames import spaced
from ..com.props import channel_property
from .material_keys import BeltChannel

CLIPS = ("NONE", "ACTIONS", "NLA")
ROOT_MOTION = ("IN_PLACE", "MOVING")
KEY_LIMIT = 1 << 20             # node-keys over all clips: a hostile step length or frame rate is refused (the
#                                 217 states of the largest retail controller on its 13-node model, as
#                                 core.authoring.retail writes them with 40 ms steps, need about 2 700 at 24 fps)
CHANNEL_SAMPLES_PER_FRAME = 16   # slider keys per timeline frame of a channel's segment
CHANNEL_SAMPLES = (64, 1024)     # at least, at most per channel


@dataclass
class NodeKeys:
    """One node's keys in a clip, in the node mode's terms."""

    node: int
    location: np.ndarray  # (k, 3)
    rotation: np.ndarray  # (k, 4) Blender quaternions, sign-continuous


@dataclass
class ClipPlan:
    index: int            # the clip's number in core's clips_of (``python -m core clips``)
    name: str             # '<model>|<motion> <index>'
    motion: str
    frames: np.ndarray    # (k,) Blender frames of the keys
    step_frames: np.ndarray  # (steps + 1,) where each step starts, and the clip's end
    nodes: list[NodeKeys]
    pair_b: list[tuple[float, float]] = field(default_factory=list)  # each step's timeline frames B0, B1
    pure_from: list[float | None] = field(default_factory=list)  # each step's phase from which it shows B alone
    states: list[int] = field(default_factory=list)  # each step's state
    root: np.ndarray | None = None  # (steps + 1, 3) node 0's keyed location at each step start and the end,
    #                                 when node 0 is root motion (keyed, no parent): linear between


@dataclass
class SliderPlan:
    """A section-2 channel: a 0..1 slider on the root posing ``node`` at ``first + v (last - first)``."""

    index: int
    node: int
    property: str         # the root's custom property
    initial: float
    values: np.ndarray    # (k,) slider values of the keys, 0..1 increasing
    location: np.ndarray  # (k, 3) the node's pose at each value, in the node mode's terms
    rotation: np.ndarray  # (k, 4)


@dataclass
class ControllerPlan:
    source: str
    clips: list[ClipPlan]
    sliders: list[SliderPlan]
    found: FoundController | None = None
    states: dict[int, dict[str, list[float]]] = field(default_factory=dict)  # the states the clips play, as read
    belts: list[BeltChannel] = field(default_factory=list)  # channels playing their node's materials


# ------------------------------------------------------------------ names
def clip_motion(controller: Controller, clip: Clip, slowest_forward: float) -> str:
    """The motion word of a clip, from its anchor state's boxes (2.2):

    - ``turn``: the spin box is on and its centre is not 0 while the velocity box's centre is 0;
    - ``stand``: otherwise, when the velocity box's centre is 0 (or no box is on);
    - ``back``: the velocity centre's largest component is negative;
    - ``walk``: the slowest forward clip (by the anchor's nominal speed), ``run``: faster ones.
    """
    s = controller.states[clip.anchor]
    speed = state_speed(controller, clip.anchor)
    spin_centre = (s["spin_min"].astype(np.float64) + s["spin_max"]) / 2
    spinning = any(s["boxes"] & (0x10 << k) and spin_centre[k] != 0 for k in range(3))
    if speed == 0:
        return "turn" if spinning else "stand"
    centre = (s["velocity_min"].astype(np.float64) + s["velocity_max"]) / 2
    on = [centre[k] for k in range(3) if s["boxes"] & (1 << k)]
    if max(on, key=abs) < 0:
        return "back"
    return "walk" if speed <= slowest_forward else "run"


def clip_names(controller: Controller, clips: list[Clip], model_name: str) -> list[tuple[str, str]]:
    """(motion, name) per clip: '<model>|<motion> <clip index>'."""
    forward = []
    for clip in clips:
        s = controller.states[clip.anchor]
        centre = (s["velocity_min"].astype(np.float64) + s["velocity_max"]) / 2
        on = [centre[k] for k in range(3) if s["boxes"] & (1 << k)]
        speed = state_speed(controller, clip.anchor)
        if speed > 0 and max(on, key=abs) > 0:
            forward.append(speed)
    slowest = min(forward, default=0.0)
    out = []
    for clip in clips:
        motion = clip_motion(controller, clip, slowest)
        out.append((motion, f"{model_name}|{motion} {clip.index}"))
    return out


# ------------------------------------------------------------------ clips
def plan_controller(container: Container, entry: Entry | None, model: Model, nodes: list, options
                    ) -> tuple[ControllerPlan | None, list[str]]:
    """The clips and channels of the model's controller when ``options.clips`` asks for them, and the warnings:
    none found, the controller's own warnings (``read_for_model``, as ``python -m core clips`` prints them), or
    a controller that does not fit: then the model imports without clips. FormatError only
    for what the options ask (a frame rate past the key limit)."""
    if options.clips == "NONE":
        return None, []
    found = locate_controller(container, entry)
    if found is None:
        return None, [f"no controller ({where_looked(container)}): no clips were made"]
    try:
        controller, findings = read_for_model(found.data, found.source, model)
        clips_of(controller)  # the planner's own refusal (too many states) leaves the clips out too
    except FormatError as exc:
        return None, [left_out(exc, found.source)]
    warnings = [f.format(found.source) for f in findings] + shadowed_warnings(controller)
    return plan_clips(controller, found, model, nodes, options), warnings


def left_out(exc: FormatError, source: str) -> str:
    """The warning for a controller the import cannot play: its problem and what to do."""
    errors = [f for f in exc.findings if f.is_error] or exc.findings
    problem = "; ".join(f"{f.stream}{'' if f.index is None else f'[{f.index}]'}: {f.message}" for f in errors[:3])
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return (f"{printable(source)}: the controller cannot be played, so the model was imported without clips: "
            f"{problem}{more}. Fix the controller, or import with Clips: None")


def shadowed_warnings(controller: Controller) -> list[str]:
    """A warning per channel that names a node an earlier channel poses (``shadowed_channels``)."""
    return [f"channels {posing} and {other} both animate node {node}: the first one poses it and the other gets "
            "no slider (the sources do not say which the game uses)"
            for node, posing, other in shadowed_channels(controller)]


def plan_clips(controller: Controller, found: FoundController, model: Model, nodes: list, options) -> ControllerPlan:
    """The clips and channel sliders of ``controller`` (read from ``found``) over the model's timeline."""
    source = found.source
    anim = AnimationData.from_model(model)
    if not np.isfinite(options.frame_rate) or options.frame_rate <= 0:
        raise FormatError.single("options", None, f"frame rate {options.frame_rate} is not a positive number")
    channel_nodes = set(node_channels(controller))
    keyed = [n for n in nodes if n.index not in channel_nodes]
    clips = clips_of(controller, anim)
    frames = sum(int(min(sum(s.duration_ms for s in c.steps) * options.frame_rate / 1000, KEY_LIMIT)) + 2
                 + len(c.steps) for c in clips)
    if frames * len(keyed) > KEY_LIMIT:
        raise FormatError.single("clip", None, f"the clips need {frames} keys on each of {len(keyed)} nodes at "
                                 f"{options.frame_rate:g} frames per second, more than {KEY_LIMIT}: choose a lower "
                                 "frame rate", source)
    plans = []
    for clip, (motion, name) in zip(clips, clip_names(controller, clips, model.name)):
        plans.append(_plan_clip(anim, controller, clip, motion, name, keyed, options))
    sliders = plan_sliders(anim, controller, nodes, options.node_mode)
    return ControllerPlan(source, plans, sliders, found, played_states(controller, clips),
                          belt_channels(controller, nodes))


def played_states(controller: Controller, clips: list[Clip]) -> dict[int, dict[str, list[float]]]:
    """The editable values of every state a clip plays (frames A, frames B, step ms), as read."""
    out = {}
    for state in sorted({s for clip in clips for s in clip.states}):
        record = controller.states[state]
        out[state] = {"frames A": [float(v) for v in record["pair_a"]],
                      "frames B": [float(v) for v in record["pair_b"]],
                      "step ms": [float(record["length_ms"])]}
    return out


def _plan_clip(anim: AnimationData, controller: Controller, clip: Clip, motion: str, name: str, nodes: list,
               options) -> ClipPlan:
    durations = np.array([s.duration_ms for s in clip.steps], np.float64)
    starts = np.concatenate([[0.0], np.cumsum(durations)]) * options.frame_rate / 1000
    end = starts[-1]
    frames = np.union1d(starts, np.arange(0.0, np.floor(end) + 1))
    frames = frames[frames <= end]
    step = np.searchsorted(starts, frames, side="right") - 1  # the step each key falls in (steps: the end)
    length = starts[1:] - starts[:-1]
    within = np.minimum(step, len(durations) - 1)
    phase = np.where(step >= len(durations), 0.0,
                     (frames - starts[within]) / np.where(length[within] > 0, length[within], 1))
    ids = [n.index for n in nodes]
    strides = np.array([s.stride or 0.0 for s in clip.steps])
    done = np.concatenate([[0.0], np.cumsum(strides)])
    count = len(durations)
    position = np.minimum(step, count)
    inside = position < count
    # The whole clip, every node at every key, in one call: pose_at_step's blend per key.
    here = steps_at(controller, clip, np.where(inside, position + phase, count))
    rotation, location = step_poses(anim, here.frame_a, here.frame_b, here.weight, ids)
    travel = done[position] + np.where(inside, phase * strides[np.minimum(position, count - 1)], 0.0)
    root_motion = 0 in ids and anim.parents[0] == NONE
    if root_motion:  # 2.4: the game draws node 0 without its translation
        location[:, ids.index(0)] = 0.0
        if options.root_motion == "MOVING":
            location[:, ids.index(0)] = travel[:, None] * motion_direction(controller, clip.anchor)
    keys = []
    terms_loc, terms_rot = node_terms(nodes, rotation.transpose(1, 0, 2), location.transpose(1, 0, 2),
                                      options.node_mode)
    kept = spaced(frames)  # not a step start Blender would merge into an integer frame's key
    for row, node in enumerate(nodes):
        keys.append(NodeKeys(node.index, terms_loc[row][kept], C.continuous(terms_rot[row][kept], axis=0)))
    pair_b, pure = [], []
    for k, here in enumerate(clip.steps):
        record = controller.states[here.state]
        pair_b.append(tuple(float(v) for v in record["pair_b"]))
        pure.append(pure_from(record, here.q, clip.steps[k - 1].q))
    root = terms_loc[ids.index(0)][np.searchsorted(frames, starts)] if root_motion else None
    return ClipPlan(clip.index, name, motion, frames[kept], starts, keys, pair_b, pure,
                    [s.state for s in clip.steps], root)


def pure_from(record: np.ndarray, q: float, q_prev: float) -> float | None:
    """The phase s from which a step shows its timeline frame B alone (``B0 + s (B1 - B0)``, to the step's
    end), None when it never does (2.4: the pose is frame B alone when w = 1, or when frame A is negative and
    w > 0; ``w = (1 - u) q_prev + u q``, ``u = min(4 s, 1)``):

    - pair A unused (both frames negative) and q, q_prev > 0: from 0;
    - q >= 1: from 0 when q_prev >= 1 too, else from 0.25 (where u reaches 1: the first quarter blends);
    - otherwise (q < 1) never: the step blends its two frames all through.

    Pair B must be finite and not negative (else the runtime takes frame A or nothing)."""
    b = record["pair_b"].astype(np.float64)
    weights = np.float32([q, q_prev])
    if not (np.isfinite(b).all() and b.min() >= 0 and np.isfinite(weights).all()):
        return None
    if not (record["pair_a"] >= 0).any() and (weights > 0).all():
        return 0.0
    if weights[0] >= 1:
        return 0.0 if weights[1] >= 1 else 0.25
    return None


def motion_direction(controller: Controller, state: int) -> np.ndarray:
    """Decision: the body moves along its anchor's velocity box centre (over the switched-on axes), +y when
    that is 0: the game turns the stride into the world by the body's heading (2.4)."""
    s = controller.states[state]
    centre = (s["velocity_min"].astype(np.float64) + s["velocity_max"]) / 2
    on = np.array([bool(s["boxes"] & (1 << k)) for k in range(3)])
    direction = np.where(on, centre, 0.0)
    size = np.linalg.norm(direction)
    return direction / size if size > 0 else np.array([0.0, 1.0, 0.0])


def step_poses(anim: AnimationData, frame_a, frame_b, weight, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(keys, nodes, 4) Blender quaternions, normalised, and (keys, nodes, 3) positions of the nodes at each key's
    frames and weight: each node's ``blend_pose`` (``pose_at_step``'s ``blend`` before the matrix, all in one
    ``blend_poses`` call); identity where the runtime has none."""
    rot, pos, shown = blend_poses(anim, ids, frame_a, frame_b, weight)
    rotation, location = _unit(rot), pos.astype(np.float64)
    rotation[~shown] = (1.0, 0.0, 0.0, 0.0)
    location[~shown] = 0.0
    return rotation.transpose(1, 0, 2), location.transpose(1, 0, 2)


def _unit(file_rot: np.ndarray) -> np.ndarray:
    """Blender quaternions (..., 4) of file ones, normalised as Blender shows them (i16 keys are off unit
    length); identity where one has no length."""
    q = C.blender_quaternions(file_rot)
    size = np.sqrt(np.einsum("...i,...i->...", q, q))[..., None]
    ok = (size > 0) & np.isfinite(size)
    return np.where(ok, q / np.where(ok, size, 1.0), np.array([1.0, 0, 0, 0]))


def node_terms(nodes: list, rotation: np.ndarray, location: np.ndarray, node_mode: str):
    """(nodes, k, 3) locations and (nodes, k, 4) rotations of the local pose in the node mode's terms: Empties
    the local pose, pose bones relative to their rest (rest^-1 @ local)."""
    if node_mode == "EMPTIES" or not len(nodes):  # no nodes: every one is a channel's (its slider poses it)
        return location, rotation
    inverse = C.conjugate(np.array([n.rest_rotation for n in nodes]))[:, None]
    rest = np.array([n.rest_location for n in nodes])[:, None]
    return C.rotate(inverse, location - rest), C.multiply(inverse, rotation)


# ------------------------------------------------------------------ channels
def belt_channels(controller: Controller, nodes: list) -> list[BeltChannel]:
    """The channels with flag 0x10 on a node of the model: each a 0..1 slider on the root playing the materials
    its node wears by fraction (openparkan docs/30-turrets.md, docs/28-chassis.md;
    io_msh.imp.material_keys.plan_belt_keys)."""
    out = []
    for index, channel in enumerate(controller.channels):
        node = int(channel["node"])
        if int(channel["flags"]) & MATERIAL_CHANNEL and 0 <= node < len(nodes):
            initial = float(channel["initial"]) if np.isfinite(channel["initial"]) else 0.0
            out.append(BeltChannel(index, node, channel_property(index, nodes[node].name),
                                   float(np.clip(initial, 0.0, 1.0))))
    return out


def plan_sliders(anim: AnimationData, controller: Controller, nodes: list, node_mode: str) -> list[SliderPlan]:
    """A slider per channel with a segment of its own posing its node (2.5, ``node_channels``: of two naming a
    node, the first; belt channels, first = last = -1, drive a material and get none): keys of the node's pose
    at evenly spaced slider values, each ``channel_frame`` sampled as ``pose_at_step`` samples a channel's node
    (A = -1, B = the frame, weight 1)."""
    out = []
    posing = node_channels(controller)
    for index, channel in enumerate(controller.channels):
        node = int(channel["node"])
        if posing.get(node) != index or not 0 <= node < len(nodes) \
                or not np.all(np.isfinite([channel["first"], channel["last"]])):  # no segment to pose along
            continue
        span = abs(float(channel["last"]) - float(channel["first"]))
        count = int(np.clip(np.ceil(span * CHANNEL_SAMPLES_PER_FRAME) + 1, *CHANNEL_SAMPLES))
        values = np.linspace(0.0, 1.0, count)
        at = [float(channel_frame(channel, v)) for v in values]
        rotation, location = (v[:, 0] for v in step_poses(anim, np.full(count, -1.0), at, np.ones(count), [node]))
        terms_loc, terms_rot = node_terms([nodes[node]], rotation[None], location[None], node_mode)
        name = channel_property(index, nodes[node].name)
        initial = float(channel["initial"]) if np.isfinite(channel["initial"]) else 0.0
        out.append(SliderPlan(index, node, name, float(np.clip(initial, 0, 1)), values, terms_loc[0],
                               C.continuous(terms_rot[0], axis=0)))
    return out
