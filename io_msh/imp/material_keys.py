"""Import planning of animated materials (MAT0 tracks, docs/formats/material-animation.md): the keys of the
colours, the alpha, the texture and the atlas cell over one cycle of a material's track 0 (the track an object mesh
draws, 3.3).

Every value is what ``core.appearance.material_tracks`` gives at that time: a field its mask bit glides gets linear
keys at every Blender frame and interval end (colours in Blender's linear colour), every other field constant keys
where it changes (the texture, the cell, and the colours and alpha the mask does not name). A cycling track whose
cycle is not a whole number of frames keys its gliding fields constant at every whole ms too (``_Clock.times``):
the later loops' integer frames fall between the first loop's.
Time: the material's clock starts at Blender frame 0, frame = ms x frame_rate / 1000. One cycle is the period
(loop, random: mode 3 plays as a loop whose drawn start offset is 0), twice the period (ping-pong, forward then
back), or the period then held (once). A belt's material (a flag-0x10 controller channel on the node wearing it,
openparkan docs/28-chassis.md) is played by the channel's 0..1 value instead (``plan_belt_keys``). A material
whose tracks are all static (one key, or period 0) and more than one has them as alternatives (openparkan
docs/07-objects.md; in the game track i names entry i: a terrain's second stage, insignia cells): keys at
x = the track index, each what its track shows, for the ``msh_track`` property to pick (``_Choice``).

No bpy: pure numpy on top of core.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.appearance.mat0 import material_of
from ...core.appearance.material_tracks import (
    F32,
    GLIDING,
    ONCE,
    PING_PONG,
    STEPPING,
    TrackTimes,
    constant,
    field_values,
    phase_values,
    shown_textures,
    timeline,
)
from ...core.appearance.resolve import Libraries, Look, TextureRef
from ...core.errors import FormatError
from ..com.colours import srgb_to_linear
from ..com.key_frames import MERGE_DISTANCE, spaced

PERIOD_LIMIT = 1 << 17  # ms of a cycle sampled (a u16 key time gives at most 2 x 65535)
MS_ROUNDING = 1e-6  # ms: a frame's time F x 1000 / rate in float64 can fall 1e-13 below the whole ms it is


@dataclass
class FieldKeys:
    """Keys of one shown field: linear when the track glides it, else constant."""

    frames: np.ndarray   # (k,) Blender frames
    values: np.ndarray   # (k, width): linear rgb of a colour, the alpha
    glides: bool


@dataclass
class MaterialKeys:
    word: int
    mode: int
    cyclic: bool                 # repeat the keys (Cycles modifier); else hold the last value
    colour_frames: np.ndarray    # (k,) Blender frames
    colour: np.ndarray           # (k, 3) linear rgb of the diffuse colour
    colour_glides: bool          # mask 0x02: linear keys; else constant
    cell_frames: np.ndarray | None  # (c,) frames where the cell box changes (None: it never does)
    cell_boxes: np.ndarray | None   # (c, 4) Direct3D (u0, v0, du, dv) shown from each, in that time's texture
    # "ambient", "specular", "emissive" (linear rgb) and "alpha" (the device's diffuse alpha: ambient alpha x
    # 0.01, at most 1), each only when it changes over the cycle.
    fields: dict[str, FieldKeys] = field(default_factory=dict)
    # The textures the track shows, phase 0's first (None: an entry without one, or one not in the library:
    # drawn untextured); with the frames where the texture changes and the texture shown from each.
    textures: list[TextureRef | None] = field(default_factory=list)
    texture_frames: np.ndarray | None = None
    texture_index: np.ndarray | None = None
    period_ms: int = 0
    # A belt's material: played by this controller channel's slider (plan_belt_keys), the frames above being
    # ms of the track (the slider value x period_ms); None: by the clock.
    belt: BeltChannel | None = None
    # Alternative tracks: how many the material's ``msh_track`` property picks from, the frames above being
    # track indices; 0: not a choice.
    tracks: int = 0


@dataclass
class BeltChannel:
    """A controller channel with flag 0x10 (openparkan docs/30-turrets.md): its node's materials play their
    track by the channel's 0..1 value (docs/07-objects.md, manager slot 5), not by the clock."""

    index: int
    node: int
    property: str    # the slider's custom property on the model root
    initial: float


def plan_material_keys(looks: dict[int, Look], libraries: Libraries, frame_rate: float
                       ) -> tuple[dict[int, MaterialKeys], list[str]]:
    """Keys for every look whose material has a track that changes something; warnings for tracks that cannot
    be shown (an entry past the material's, for instance)."""
    out, warnings = {}, []
    if libraries.archive("materials") is None:
        return out, warnings
    textures = _Textures(libraries)
    for word, look in looks.items():
        entry = libraries.find("materials", look.material_entry) if look.material_entry else None
        if entry is None:
            continue
        what = "its animation is"
        try:
            material = material_of(entry, look.material_entry)
            clock = _Choice(material.animations) if _Choice.offered(material) else _Clock(frame_rate)
            what = "its alternative tracks are" if isinstance(clock, _Choice) else what
            keys = _material_keys(word, look, material, textures, clock, warnings)
        except FormatError as exc:
            warnings.append(f"material {look.material_entry!r}: {what} not shown: {exc.findings[0].message}")
            continue
        if keys is not None:
            out[word] = keys
    return out, warnings


def plan_belt_keys(belts: list[BeltChannel], meshes: list, looks: dict[int, Look], libraries: Libraries
                   ) -> tuple[dict[int, MaterialKeys], list[str]]:
    """Keys over the slider value of each belt channel for the animated materials its node's meshes wear (the
    first channel wins a material two belts wear); warnings for what Blender cannot show as the game does."""
    out: dict[int, MaterialKeys] = {}
    warnings: list[str] = []
    if libraries.archive("materials") is None:
        return out, warnings
    textures = _Textures(libraries)
    for belt in belts:
        before = len(out)
        for word in sorted({w for mesh in meshes if mesh.node == belt.node for w in mesh.materials}):
            look = looks.get(word)
            entry = libraries.find("materials", look.material_entry) if look is not None and look.material_entry \
                else None
            if entry is None:
                continue
            try:
                keys = _material_keys(word, look, material_of(entry, look.material_entry), textures, _Fraction(),
                                      warnings)
            except FormatError as exc:
                warnings.append(f"material {look.material_entry!r}: its animation is not shown: "
                                f"{exc.findings[0].message}")
                continue
            if keys is None:
                continue
            if word in out:
                warnings.append(f"material {look.material_entry!r} is worn by the belts of channels "
                                f"{out[word].belt.index} and {belt.index}: in Blender channel "
                                f"{out[word].belt.index}'s slider plays it on both")
                continue
            others = sorted({m.node for m in meshes if word in m.materials and m.node != belt.node})
            if others:
                warnings.append(f"material {look.material_entry!r} is worn by belt node {belt.node} and by node(s) "
                                f"{', '.join(map(str, others))}: in Blender channel {belt.index}'s slider plays it "
                                "on all of them (the game plays it by the clock there)")
            keys.belt = belt
            out[word] = keys
        if len(out) == before:
            warnings.append(f"controller channel {belt.index} (flag 0x10, a belt) is on node {belt.node}, which wears "
                            "no animated material of its own: it has no slider")
    return out, warnings


@dataclass
class _Samples:
    """A track at the positions where what it shows can change: instead of every whole ms of
    the cycle (``timeline`` over 0..last), the first and the last ms of each run of ms with one key, turn and hold
    (``_change_ms``). Within a run a stepping field holds its value and a gliding one moves one way (a float32 lerp
    is monotone in its factor, the factor in the ms): a field changes at a whole ms only where it changes at a
    sample, and is constant when it is at the samples. A field glided every ms (no ``glide_ms``) is read at every
    ms (``every``)."""

    block: object
    ms: np.ndarray       # (s,) int64, increasing: the positions sampled (ms of the track, or track indices)
    # The track at ``ms``; then, for a clock's linear keys, at the whole ms of each (``_Clock.glide_ms``): one pass.
    times: TrackTimes
    last: int            # the positions are 0..last
    _every: TrackTimes | None = None

    def every(self) -> TrackTimes:
        """The track at every position 0..last."""
        if self._every is None:
            dense = len(self.ms) == self.last + 1 == len(self.times.entry)
            self._every = self.times if dense else timeline(self.block, np.arange(self.last + 1))
        return self._every

    @classmethod
    def of(cls, block, last: int) -> _Samples:
        ms = _change_ms(block, last)
        return cls(block, ms, timeline(block, ms), last)


def _change_ms(block, last: int) -> np.ndarray:
    """The ms of 0..last where the track's key, turn or hold can change, and the ms before each: the interval
    bounds as the modes map them (t, and 2 x period - t played back, 3.2), the period's multiples and ``last``.
    ``_bracket`` changes its key only at a bound, so every ms where the key, turn or hold differs from the ms before
    is one, and so is the ms before it (the last of a run)."""
    ends = block.keys["k1"].astype(np.int64)
    period = int(ends[-1])
    bounds = np.concatenate([[0], ends])
    local = np.concatenate([bounds - 1, bounds])
    t = np.concatenate([local, 2 * period - local, [period - 1, period, 2 * period - 1, 2 * period, last]])
    return np.unique(t[(t >= 0) & (t <= last)])


class _Textures:
    """``Libraries.texture`` once per name for the materials planned together, which mostly share their textures
    (each look-up finds the entry and parses its header)."""

    def __init__(self, libraries: Libraries) -> None:
        self.libraries = libraries
        self._known: dict[tuple[str, str], tuple] = {}

    def texture(self, kind: str, name: str) -> tuple:
        if (kind, name) not in self._known:
            self._known[kind, name] = self.libraries.texture(kind, name)
        return self._known[kind, name]


class _Clock:
    """A track played by the clock (manager slot 3): keys at Blender frames, one cycle of the mode."""

    cyclic_modes = True

    def __init__(self, frame_rate: float) -> None:
        self.frame_rate = frame_rate

    def times(self, block) -> _Samples:
        """The track over one cycle (its samples, ``_Samples``); ``glide_ms``: where a gliding field is keyed
        linear (None: it is keyed constant at each whole ms where it changes)."""
        period, mode = int(block.keys["k1"][-1]), block.header & 7
        cycle = 2 * period if mode == PING_PONG else period
        last = min(cycle, PERIOD_LIMIT)
        cycle_frames = cycle * self.frame_rate / 1000
        if mode != ONCE and abs(cycle_frames - round(cycle_frames)) > 1e-6 \
                and self.frame_rate / 1000 > MERGE_DISTANCE:
            # The cycle is not a whole number of frames: from the second loop on the integer frames fall between
            # the first loop's frames, where linear keys would blend linear colours while the game blends the
            # bytes of whole ms. Keys at every whole ms show the game's value at any time, every loop.
            self.glide_ms = None
            return _Samples.of(block, last)
        frame_ms = np.arange(0, np.floor(cycle_frames + 1e-9) + 1) * 1000 / self.frame_rate
        ends = block.keys["k1"].astype(np.float64)
        ends = np.concatenate([[0], ends, 2 * period - ends if mode == PING_PONG else [], [cycle]])
        ends = ends[(ends >= 0) & (ends <= cycle)]
        glide = np.concatenate([frame_ms, ends])
        whole = np.arange(len(glide)) < len(frame_ms)
        order = np.argsort(glide, kind="stable")
        glide, whole = glide[order], whole[order]
        # every Blender frame, and every interval's end that Blender would not merge into a frame's key
        frames = self.at(glide)
        keep = spaced(frames, whole)
        if glide[keep][-1] < cycle - MS_ROUNDING:  # the cycle's end (where a once track stops and holds, a loop's
            keep[-1] = True  # period) was too close after a frame's key: keyed just after it
            frames[-1] = max(frames[-1], frames[keep][-2] + 2 * MERGE_DISTANCE)
        self.glide_ms, self.glide_frames = glide[keep], frames[keep]
        # the track at the samples, then at the whole ms of each gliding key (the game's clock is whole ms)
        ms = _change_ms(block, last)
        return _Samples(block, ms, timeline(block, np.concatenate([ms, np.floor(self.glide_ms + MS_ROUNDING)])),
                        last)

    def at(self, ms: np.ndarray) -> np.ndarray:
        return ms * self.frame_rate / 1000


class _Fraction:
    """A track played by a belt channel's value f (manager slot 5): t = floor(period x f) whole ms
    (``timeline_at_fraction``), so the keys are at each whole ms where a field changes, constant between. They
    are in ms, not slider values: the slider's driver gives period x f, as Blender's key search takes keys
    closer than 0.01 apart for one."""

    cyclic_modes = False
    glide_ms = None

    def times(self, block) -> _Samples:
        return _Samples.of(block, int(block.keys["k1"][-1]))  # t = 0..period, as f = 0..1 gives

    def at(self, ms: np.ndarray) -> np.ndarray:
        return np.asarray(ms, np.float64)


class _Choice:
    """A material's static tracks as alternatives (openparkan docs/07-objects.md): "time" i is track i, showing what
    ``timeline`` gives for it (its key's entry; nothing glides), keyed constant at x = i."""

    cyclic_modes = False
    glide_ms = None

    def __init__(self, blocks: list) -> None:
        self.blocks = blocks

    @staticmethod
    def offered(material) -> bool:
        """More than one track, and every one static (an animated track 0 plays by the clock instead)."""
        return len(material.animations) > 1 and all(_static(block) for block in material.animations)

    def times(self, block) -> _Samples:
        each = [timeline(b, np.zeros(1)) for b in self.blocks]
        zero = np.zeros(len(each), np.int64)
        times = TrackTimes(np.arange(len(each)), zero, np.concatenate([t.entry for t in each]),
                           np.concatenate([t.next_entry for t in each]), np.zeros(len(each), F32), 0)
        return _Samples(block, np.arange(len(each)), times, len(each) - 1, times)  # every track sampled

    def at(self, index: np.ndarray) -> np.ndarray:
        return np.asarray(index, np.float64)


def _static(block) -> bool:
    """One key or no period: the track shows one entry (3.2)."""
    return len(block.keys) < 2 or int(block.keys["k1"][-1]) == 0


def _material_keys(word: int, look: Look, material, textures: _Textures | Libraries,
                   clock: _Clock | _Fraction | _Choice,
                   warnings: list[str]) -> MaterialKeys | None:
    if not material.animations:
        return None
    block = material.animations[0]
    choice = isinstance(clock, _Choice)
    if _static(block) and not choice:
        return None
    mode, mask = block.header & 7, block.header >> 3
    samples = clock.times(block)
    times, count = samples.times, len(samples.ms)

    def sampled(name: str, values: np.ndarray, glides: bool, shown=None) -> tuple[np.ndarray, np.ndarray]:
        """(frames, values there, made ``shown``): every frame when gliding by the clock, else where the values
        (at the samples) change; a field glided every ms is read at every ms."""
        shown = shown or (lambda v: v)
        if glides and clock.glide_ms is not None:
            return clock.glide_frames, shown(every_byte[count:, GLIDING[name][1]])
        if mask & GLIDING.get(name, (0,))[0]:
            values = shown(field_values(material, samples.every(), name))
            at = _changes(values)
            return clock.at(at), values[at]
        values = shown(values)
        at = _changes(values)
        return clock.at(samples.ms[at]), values[at]

    try:
        every_byte = phase_values(material, times)
    except FormatError:
        field_values(material, times, "diffuse")  # the entry the diffuse names is the one reported, as before
        raise
    shown_bytes = every_byte[:count]
    steady = (shown_bytes == shown_bytes[:1]).all(axis=0)  # per phase byte: ``constant`` of each field at once
    diffuse = shown_bytes[:, GLIDING["diffuse"][1]]
    glides = bool(mask & 0x02) and clock.glide_ms is not None
    colour_frames, colour_bytes = sampled("diffuse", diffuse, glides)
    colour = _linear(colour_bytes)
    fields = {}
    for name in ("ambient", "specular", "emissive", "ambient_alpha"):
        if steady[GLIDING[name][1]].all():
            continue
        values = shown_bytes[:, GLIDING[name][1]]
        shown = _device_alpha if name == "ambient_alpha" else None
        field_glides = bool(mask & GLIDING[name][0]) and clock.glide_ms is not None
        frames, values = sampled(name, values, field_glides, shown)
        fields["alpha" if name == "ambient_alpha" else name] = FieldKeys(
            frames, values if name == "ambient_alpha" else _linear(values), field_glides)
    shown_refs, texture_at, headers = _textures(material, times, look, textures, warnings)
    texture_at = texture_at[:count]  # the same textures, in the order the samples show them
    texture_frames = texture_index = None
    if len(shown_refs) > 1 and not constant(texture_at):
        at = _changes(texture_at[:, None])
        texture_frames, texture_index = clock.at(samples.ms[at]), texture_at[at]
    cells = shown_bytes[:, STEPPING["cell"]][:, 0].astype(np.uint8).view(np.int8)
    boxes = _cell_boxes(headers, texture_at, cells)
    cell_frames = cell_boxes = None
    if boxes is not None and not constant(boxes):
        at = _changes(boxes)
        cell_frames, cell_boxes = clock.at(samples.ms[at]), boxes[at]
    if steady[GLIDING["diffuse"][1]].all() and cell_frames is None and not fields and texture_frames is None:
        return None
    cyclic = clock.cyclic_modes and mode != ONCE
    period = 0 if choice else int(block.keys["k1"][-1])
    return MaterialKeys(word, mode, cyclic, colour_frames, colour, glides, cell_frames, cell_boxes, fields,
                        shown_refs, texture_frames, texture_index, period,
                        tracks=len(material.animations) if choice else 0)


def _device_alpha(ambient_alpha: np.ndarray) -> np.ndarray:
    """What the device gets as diffuse alpha (mat0.Material.diffuse): ambient alpha x 0.01, at most 1."""
    return np.minimum(ambient_alpha * F32(0.01), F32(1))


def _linear(rgb_bytes: np.ndarray) -> np.ndarray:
    """Blender's linear colour of (k, 3) sRGB bytes (float32, as ``field_values`` gives them), ``linear_rgba``'s
    value for every row at once."""
    return srgb_to_linear(np.asarray(np.asarray(rgb_bytes, np.float32) / np.float32(255), np.float64)).reshape(-1, 3)


def _textures(material, times, look: Look, textures: _Textures | Libraries, warnings: list[str]):
    """The distinct textures the track shows (phase 0's first), the index of the one shown at each time, and
    their headers (for the cells). Without phase 0's texture in the graph no switch is shown."""
    names, at = shown_textures(material, times)
    order = list(dict.fromkeys([material.texture_name(0), *names]))
    index = np.array([order.index(name) for name in names], np.int64)
    shown = index[at] if len(names) else np.zeros(0, np.int64)
    if look.texture is None:
        if len(order) > 1:
            warnings.append(f"material {look.material_entry!r}: phase 0 shows no texture; the texture switches "
                            f"of its animation ({', '.join(repr(n) for n in order[1:] if n)}) are not shown")
        return [None], np.zeros_like(shown), [None]
    refs, headers = [look.texture], [textures.texture("textures", order[0])[1]]
    for name in order[1:]:
        ref, header, note = textures.texture("textures", name)
        if note:
            warnings.append(f"material {look.material_entry!r}: {note}; its animation shows that entry untextured")
        refs.append(ref)
        headers.append(header)
    return refs, shown, headers


def _cell_boxes(headers: list, texture_at: np.ndarray, cells: np.ndarray) -> np.ndarray | None:
    """The cell box shown at each time, in the texture shown then (the whole texture for an untextured time);
    None when no texture is drawn. Looked up once per run of one texture and cell."""
    if headers[0] is None:
        return None
    if not len(cells):
        return np.empty((0, 4), np.float64)
    pairs = texture_at * 256 + (cells.astype(np.int64) & 0xFF)  # (texture, cell byte): one number each
    starts = np.flatnonzero(np.concatenate([[True], pairs[1:] != pairs[:-1]]))
    known: dict[int, tuple] = {}
    for pair, t, c in zip(pairs[starts].tolist(), texture_at[starts].tolist(), cells[starts].tolist()):
        if pair not in known:
            known[pair] = (0.0, 0.0, 1.0, 1.0) if headers[t] is None else headers[t].cell(c)
    boxes = np.array([known[pair] for pair in pairs[starts].tolist()], np.float64).reshape(-1, 4)
    return np.repeat(boxes, np.diff(np.append(starts, len(pairs))), axis=0)


def _changes(values: np.ndarray) -> np.ndarray:
    """The indices (ms) where a (ms, width) run of values changes, 0 and the last one included."""
    changed = np.flatnonzero(np.any(values[1:] != values[:-1], axis=1)) + 1
    last = [] if len(values) <= 1 or (len(changed) and changed[-1] == len(values) - 1) else [len(values) - 1]
    return np.concatenate([[0], changed, last]).astype(np.int64)  # already in order, each once
