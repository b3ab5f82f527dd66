"""The ``.ctl`` controller payload (dragonee/openparkan docs/13-control.md, docs/24-motion.md,
docs/30-turrets.md): read, write, validate.

Every section is read into records that keep all their bytes, known fields by name and the rest as raw
words, so an unchanged controller writes back byte for byte. The five counts are checked against the bytes
left before anything is read, so they never make an allocation larger than the file.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from ...errors import Finding, FormatError, error, has_errors, warning
from .graph import NO_EDGE as NO_EDGE  # the cost table's no-edge value, where the planner stops
from .graph import PLAN_LIMIT, live_costs, plan_cycles, reachable_from_anchors

CTLD_TYPE_ID = int.from_bytes(b"CTLD", "little")
COUNT_NAMES = "ABCDE"

# +20: the 108-byte parameter block (2.1). Named where openparkan names a field; the rest kept as words.
PARAMS = np.dtype([
    ("acceleration", "<f4", (3,)), ("unread", "<f4", (3,)), ("top_speed", "<f4", (3,)),
    ("turn_rate", "<f4", (3,)), ("righting_rate", "<f4", (3,)), ("max_lean", "<f4", (3,)),
    ("death_delay_ms", "<i4"), ("word_96", "<u4", (2,)), ("mode", "<i4"), ("word_108", "<u4"),
    ("slope_cone", "<f4"), ("word_116", "<u4", (2,)), ("payload_kg", "<f4"),
])
HEADER_BYTES = 20 + PARAMS.itemsize  # 128

# Section 1: a state, 156 bytes (2.2), then B contacts of 16 bytes each.
STATE = np.dtype([
    ("boxes", "<u4"), ("mode", "<u4"), ("lean", "u1", (3,)), ("byte_11", "u1"),
    ("pair_a", "<f4", (2,)), ("pair_b", "<f4", (2,)), ("blend", "<f4"), ("length_ms", "<f4"),
    ("velocity_min", "<f4", (3,)), ("velocity_max", "<f4", (3,)),
    ("spin_min", "<f4", (3,)), ("spin_max", "<f4", (3,)),
    ("engine", "<f4"), ("runtime", "<u4", (14,)),
    ("entry_group", "<i4"), ("uses", "<i4"), ("request", "<i4"),
])
CONTACT = np.dtype([("point", "<i4"), ("flags", "<u4"), ("landing_group", "<i4"), ("word_12", "<u4")])

# Section 2: a channel. openparkan's 36 bytes, over ParkanPlayground's 48 (openparkan's checks:
# its layout parses all 531 retail files with coherent values); a 48-byte reading is not supported here.
CHANNEL = np.dtype([
    ("node", "<i4"), ("first", "<f4"), ("last", "<f4"), ("initial", "<f4"), ("second_point", "<i4"),
    ("point", "<i4"), ("rate", "<f4"), ("span", "<f4"), ("flags", "<u4"),
])

# Section 4: a component's fixed 176 bytes; then ``count`` channel indices, an i32 label length L and,
# when L != 0, L + 1 label bytes.
COMPONENT = np.dtype([
    ("kind", "<i4"), ("node", "<i4"), ("flags", "<u4"), ("stroke_group", "<i4"), ("start_group", "<i4"),
    ("stop_group", "<i4"), ("initial_state", "<i4"), ("mass", "<f4"), ("power", "<f4"),
    ("weights", "<f4", (2,)), ("values", "<f4", (16,)), ("archive", "S32"), ("member", "S32"),
    ("count", "<i4"),
])
COMPONENT_KINDS = range(1, 31)
GROUP_BLOCK = 21  # the 84-byte block: section-5 group indices
NO_GROUP = -1
NO_RUN = "no group runs (kept as read)"  # what an index past the groups names

# Section 5: a group is an i32 n and n action records of nine i32 and two 32-byte names.
ACTION = np.dtype([("values", "<i4", (9,)), ("archive", "S32"), ("member", "S32")])

# State mode bits (+0x04, 2.2).
ANCHOR = 0x1
BY_VELOCITY = 0x10000
FIXED_STEP = 0x100000
JITTER = 0x1000000
# Channel flag (section 2, +0x20): the channel drives its node's material track by fraction (a belt;
# openparkan docs/28-chassis.md).
MATERIAL_CHANNEL = 0x10


@dataclass
class Component:
    fixed: np.ndarray            # one COMPONENT record, a 0-d array
    channels: np.ndarray         # int32 (count,): section-2 channel indices
    label: bytes = b""           # the L + 1 label bytes (NUL included), empty when L == 0

    @property
    def kind(self) -> int:
        return int(self.fixed["kind"])

    def to_bytes(self) -> bytes:
        fixed = self.fixed.copy()
        fixed["count"] = len(self.channels)
        out = fixed.tobytes() + np.asarray(self.channels, "<i4").tobytes()
        return out + struct.pack("<i", len(self.label) - 1 if self.label else 0) + self.label


@dataclass
class Controller:
    """A controller as read. Counts are not stored: they are the lengths of the sections."""

    params: np.ndarray = field(default_factory=lambda: np.zeros((), PARAMS))
    states: np.ndarray = field(default_factory=lambda: np.zeros(0, STATE))
    contacts: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), CONTACT))  # (A, B)
    costs: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), "<f4"))      # (A, A), row = destination
    channels: np.ndarray = field(default_factory=lambda: np.zeros(0, CHANNEL))
    components: list[Component] = field(default_factory=list)
    group_block: np.ndarray = field(default_factory=lambda: np.full(GROUP_BLOCK, NO_GROUP, "<i4"))
    groups: list[np.ndarray] = field(default_factory=list)  # ACTION arrays
    trailing: bytes = b""  # bytes after section 5 (the game does not read them), kept for the round trip

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        return (len(self.states), self.contacts.shape[1], len(self.channels), len(self.components),
                len(self.groups))

    @property
    def anchors(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.states["mode"] & ANCHOR)]

    def cost(self, to: int, source: int) -> float:
        """The file's cost of moving from ``source`` to ``to`` (table[to * A + source], 2.3)."""
        return float(self.costs[to, source])

    def to_bytes(self) -> bytes:
        a, b = self.counts[:2]
        if self.contacts.shape != (a, b) or self.costs.shape != (a, a):
            raise FormatError.single("ctl", None, f"{a} states need contacts ({a}, B) and costs ({a}, {a}); "
                                                  f"got {self.contacts.shape} and {self.costs.shape}")
        out = bytearray(struct.pack("<5i", *self.counts))
        out += np.asarray(self.params, PARAMS).tobytes()
        for state, contacts in zip(self.states, self.contacts):
            out += state.tobytes() + contacts.tobytes()
        out += np.asarray(self.costs, "<f4").tobytes()
        out += np.asarray(self.channels, CHANNEL).tobytes()
        for component in self.components:
            out += component.to_bytes()
        out += np.asarray(self.group_block, "<i4").tobytes()
        for group in self.groups:
            out += struct.pack("<i", len(group)) + np.asarray(group, ACTION).tobytes()
        return bytes(out + self.trailing)


# --------------------------------------------------------------------- reading
class _Reader:
    def __init__(self, data: bytes, source: str) -> None:
        self.data, self.source, self.at = data, source, 0

    @property
    def left(self) -> int:
        return len(self.data) - self.at

    def take(self, size: int, what: str, stream: str, index: int | None = None) -> bytes:
        """``size`` bytes, or FormatError naming what does not fit (checked before anything is allocated)."""
        if size < 0 or size > self.left:
            raise FormatError.single(stream, index, f"{what} ({size} bytes at byte {self.at}) runs past the end "
                                                    f"of the {len(self.data)}-byte controller", self.source)
        chunk = self.data[self.at:self.at + size]
        self.at += size
        return chunk

    def i32(self, what: str, stream: str, index: int | None = None) -> int:
        return struct.unpack("<i", self.take(4, what, stream, index))[0]


def parse_controller(data: bytes | memoryview, source: str = "") -> Controller:
    """Read a controller; FormatError when its layout does not fit the bytes or it has any error finding (a
    class or a channel entry no retail controller has). ``read_controller`` keeps such a controller whole."""
    controller, findings = read_controller(data, source)
    if has_errors(findings):
        raise FormatError(findings, source)
    return controller


def read_controller(data: bytes | memoryview, source: str = "") -> tuple[Controller, list[Finding]]:
    """Tolerant read: the controller and every finding; FormatError only when the sections do not fit."""
    data = bytes(data)
    r = _Reader(data, source)
    counts = struct.unpack("<5i", r.take(20, "the five counts", "ctl"))
    for name, count in zip(COUNT_NAMES, counts):
        if count < 0:
            raise FormatError.single("ctl", None, f"count {name} is {count}", source)
    a, b, c, d, e = counts
    params = _record(r.take(PARAMS.itemsize, "the parameter block", "ctl"), PARAMS)
    record = STATE.itemsize + CONTACT.itemsize * b
    section1 = r.take(a * record, f"section 1: {a} states of {record} bytes", "state")
    # Byte columns, not a record dtype holding B contacts: numpy refuses a dtype over 2 GB, and count B may say
    # that much while no state (A = 0) holds a byte of it.
    rows = np.frombuffer(section1, np.uint8).reshape(a, record)
    states = rows[:, :STATE.itemsize].copy().view(STATE).reshape(a)
    contacts = rows[:, STATE.itemsize:].copy().view(CONTACT).reshape(a, b)
    costs = np.frombuffer(r.take(4 * a * a, f"section 1: the {a}x{a} transition costs", "cost"), "<f4")
    channels = np.frombuffer(r.take(c * CHANNEL.itemsize, f"section 2: {c} channels of 36 bytes", "channel"),
                             CHANNEL)
    components = []
    for i in range(d):
        fixed = _record(r.take(COMPONENT.itemsize, "component's fixed 176 bytes", "component", i), COMPONENT)
        count = int(fixed["count"])
        indices = np.frombuffer(r.take(4 * count, f"{count} channel indices", "component", i), "<i4").copy()
        length = r.i32("label length", "component", i)
        if length < 0:
            raise FormatError.single("component", i, f"label length {length}", source)
        label = r.take(length + 1, f"{length}-byte label", "component", i) if length else b""
        components.append(Component(fixed, indices, label))
    block = np.frombuffer(r.take(4 * GROUP_BLOCK, "the 84-byte group block", "groups"), "<i4").copy()
    groups = []
    for i in range(e):
        n = r.i32("action count", "group", i)
        if n < 0:
            raise FormatError.single("group", i, f"{n} actions", source)
        groups.append(np.frombuffer(r.take(n * ACTION.itemsize, f"{n} actions of 100 bytes", "group", i),
                                    ACTION).copy())
    controller = Controller(params, states, contacts,
                            costs.reshape(a, a).copy(), channels.copy(), components, block, groups,
                            data[r.at:])
    return controller, validate_controller(controller)


def _record(raw: bytes, dtype: np.dtype) -> np.ndarray:
    """One record as a writable 0-d array (its bytes kept as they are)."""
    return np.frombuffer(raw, dtype).copy().reshape(())


# ------------------------------------------------------------------ validation
def validate_controller(controller: Controller, node_count: int | None = None,
                        frame_count: int | None = None) -> list[Finding]:
    """Errors only where every retail controller obeys the rule (spec/retail-envelope.md 9: component classes
    1..30 on all 1 066 components, component channel entries inside the channel list on all 885); warnings for
    the rest, whose ranges no source published: group indices (state +0x90, contact +8, component start, stop
    and stroke groups, the 84-byte block) against the group count, a channel's node against the model, and
    non-finite frames or costs, empty boxes, zero step lengths that nothing can time, states no anchor reaches,
    anchors with no way back. Every record is kept as read whatever its finding: an index that cannot be
    resolved names nothing (no group runs, the channel poses no node, the channel entry drives nothing).
    With a model's ``node_count`` and ``frame_count``, channel nodes and frames are checked too."""
    out: list[Finding] = []
    c = controller
    a = len(c.states)
    groups = len(c.groups)

    def group_ok(value: int) -> bool:
        return value == NO_GROUP or 0 <= value < groups

    unresolved_entries: list[tuple[int, str]] = []
    unresolved_landings: list[tuple[int, str]] = []

    for i, state in enumerate(c.states):
        frames = np.concatenate([state["pair_a"], state["pair_b"]])
        if not np.all(np.isfinite(frames)):
            out.append(warning("state", i, f"frames {frames.tolist()} are not all finite: the sampler shows the "
                                           "fallback key for them"))
        elif frame_count is not None and np.any(frames >= frame_count):
            out.append(warning("state", i, f"frames {frames.tolist()} reach past the model's {frame_count} frames"))
        length = state["length_ms"]
        if not np.isfinite(length) or length < 0:
            out.append(warning("state", i, f"step length {float(length)} ms; the step is held to 10..5000 ms"))
        elif length == 0 and state["mode"] & FIXED_STEP:
            out.append(warning("state", i, "fixed step of 0 ms: the step is held to the shortest, 10 ms"))
        for name in ("velocity", "spin"):
            low, high = state[f"{name}_min"], state[f"{name}_max"]
            bit = 1 if name == "velocity" else 0x10
            on = [k for k in range(3) if state["boxes"] & (bit << k)]
            if any(not (low[k] <= high[k]) for k in on):
                out.append(warning("state", i, f"{name} box {low.tolist()}..{high.tolist()} is empty on a "
                                               "switched-on axis: the state never applies"))
        if not group_ok(int(state["entry_group"])):
            unresolved_entries.append((i, f"entry group {int(state['entry_group'])} of {groups}"))
        for j, contact in enumerate(c.contacts[i]):
            if not group_ok(int(contact["landing_group"])):
                unresolved_landings.append((i, f"contact {j}: landing group {int(contact['landing_group'])} "
                                               f"of {groups}"))
    for found, what in ((unresolved_entries, "state"), (unresolved_landings, "contact")):
        if found:  # one finding per kind: a controller of many states would otherwise print one per state
            index, text = found[0]
            others = len(found) - 1
            more = f" (and {others} more {what}{'s' if others > 1 else ''} like it)" if others else ""
            out.append(warning("state", index, f"{text}: {NO_RUN}{more}"))
    bad_costs = ~np.isfinite(c.costs) | (c.costs < 0)
    if bad_costs.any():
        to, source = np.argwhere(bad_costs)[0]
        out.append(warning("cost", int(to) * a + int(source),
                           f"{int(bad_costs.sum())} costs are negative or not finite (first: to {int(to)} from "
                           f"{int(source)}); they are taken as no edge"))
    for i, channel in enumerate(c.channels):
        first, last = channel["first"], channel["last"]
        if not (np.isfinite(first) and np.isfinite(last)):
            out.append(warning("channel", i, f"frames {float(first)}..{float(last)} are not finite"))
        if node_count is not None and channel["node"] >= node_count and (first, last) != (-1, -1):
            out.append(warning("channel", i, f"node {int(channel['node'])} of a {node_count}-node model: the "
                                             "channel poses no node"))
        if channel["node"] < 0 and (first, last) != (-1, -1):
            out.append(warning("channel", i, f"node {int(channel['node'])}: the channel poses no node"))
    for i, component in enumerate(c.components):
        if component.kind not in COMPONENT_KINDS:
            out.append(error("component", i, f"class {component.kind}; the factory makes classes 1..30"))
        bad = [int(v) for v in component.channels if not 0 <= v < len(c.channels)]
        if bad:
            out.append(error("component", i, f"channel index {bad[0]} of {len(c.channels)} channels (kept; it "
                                             "drives nothing)"))
        for name in ("stroke_group", "start_group", "stop_group"):
            if not group_ok(int(component.fixed[name])):
                out.append(warning("component", i, f"{name.replace('_', ' ')} {int(component.fixed[name])} "
                                                   f"of {groups}: {NO_RUN}"))
        if component.label and component.label[-1:] != b"\0":
            out.append(warning("component", i, "label is not NUL-terminated"))
    for entry, value in enumerate(c.group_block.tolist()):
        if not group_ok(value):
            out.append(warning("groups", entry, f"group index {value} of {groups}: {NO_RUN}"))
    if a == 0 and c.contacts.shape[1]:
        out.append(warning("ctl", None, f"count B says {c.contacts.shape[1]} contacts per state, but there are no "
                                        "states: the count holds nothing"))
    if c.trailing:
        out.append(warning("ctl", None, f"{len(c.trailing)} bytes follow section 5 (the game does not read them)"))
    if a > PLAN_LIMIT:
        out.append(warning("state", None, f"{a} states: the planner is run over at most {PLAN_LIMIT}, so the "
                                          "transition graph is not checked"))
    elif a:
        anchors = c.anchors
        if not anchors:
            out.append(warning("state", None, "no state is an anchor: nothing plans, no clip plays"))
        live = live_costs(c.states, c.costs)
        for anchor, cycle in zip(anchors, plan_cycles(live, anchors)):
            if cycle is None:
                out.append(warning("state", anchor, "anchor has no way back to itself: it forms no clip"))
        reached = reachable_from_anchors(live, anchors)
        lost = [i for i in range(a) if not reached[i]]
        if lost and anchors:
            out.append(warning("state", lost[0], f"{len(lost)} states no anchor can reach (first: {lost[0]})"))
    return out


def validate_ctld(data: bytes | memoryview) -> list[Finding]:
    """Every finding of a controller payload (an archive's CTLD entry); a layout that does not fit gives its
    one error."""
    try:
        return read_controller(data)[1]
    except FormatError as exc:
        return exc.findings
