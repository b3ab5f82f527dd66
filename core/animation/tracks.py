"""Animation IR (msh-animation.md section 6) and the animation writer (sections 5, 8, 9).

Reading decomposes the Res8 key pool into one track per node (section 5.1).
Writing an IR whose tracks are all unedited leaves the model's bytes as they
are; otherwise Res8, Res19 and the nodes' map_start/fallback_key are rebuilt
in canonical layout (section 8): keys in node order, one map block of
frame_count words per animated node. An unedited track keeps its map words
as read (moved with the keys they point at); an edited or new track gets the
canonical words of section 5.4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import FormatError, error
from ..msh import streams as S
from ..msh.model import Model

NONE = S.NO_INDEX
# Limits a writer keeps to; each lies above the retail extreme it bounds (spec/retail-envelope.md 4.2, 15).
MAX_KEYS = 0xFFFF  # fallback_key is a u16 and must stay below it to be a key index + map value; retail: 34 049 keys
#                    over all 435 models together, so any one model holds fewer
MAX_FRAMES = 1 << 20  # a writer's bound, so that a stray key time cannot make a huge map; retail: the longest
#                       timeline is not published (R_H_02 124 frames; a_a_l3.ctl's ~217 states play ~435 [DER])


@dataclass
class Track:
    """One node's keys. ``rot`` is the raw i16 rotation in file component order."""

    times: np.ndarray            # float32 (k,)
    pos: np.ndarray              # float32 (k, 3)
    rot: np.ndarray              # int16 (k, 4)
    has_map: bool
    # Map words as read (absolute key indices), None for a new or edited track.
    read_words: np.ndarray | None = None
    read_start: int = 0          # index of the track's first key in the Res8 read
    edited: bool = True

    @classmethod
    def static(cls, pos=(0.0, 0.0, 0.0), rot=(32767, 0, 0, 0)) -> Track:
        """A one-key track at time 0 with no map (section 5.4, static node)."""
        return cls(np.zeros(1, np.float32), np.asarray([pos], np.float32), np.asarray([rot], np.int16), False)

    @classmethod
    def from_keys(cls, times, pos, rot) -> Track:
        """A new track; it has a map when it has more than one key."""
        times = np.asarray(times, np.float32).reshape(-1)
        return cls(times, np.asarray(pos, np.float32).reshape(-1, 3),
                   np.asarray(rot, np.int16).reshape(-1, 4), len(times) > 1)

    @property
    def rotations(self) -> np.ndarray:
        return S.decode_rotations(self.rot)

    def __len__(self) -> int:
        return len(self.times)


@dataclass
class Animation:
    frame_count: int
    tracks: list[Track] = field(default_factory=list)

    @property
    def edited(self) -> bool:
        return any(t.edited for t in self.tracks)

    def fit_frame_count(self) -> int:
        """Set frame_count to the canonical max last-key time + 1 (section 5.2)."""
        ends = [float(t.times[-1]) for t in self.tracks if len(t) and t.has_map]
        end = max(ends, default=0.0)
        self.frame_count = int(np.floor(end)) + 1 if np.isfinite(end) and end < MAX_FRAMES else MAX_FRAMES + 1
        return self.frame_count

    def canonicalize(self) -> None:
        """Mark every track so that its map is rebuilt by the canonical rules."""
        for track in self.tracks:
            track.edited = True


def read_animation(model: Model) -> Animation:
    """Decompose the key pool into tracks (sections 5.1 and 7).

    Raises FormatError when the data cannot be decomposed (run the validator
    for the full list): a fallback key out of range, or a map block out of
    range (neither occurs on retail: spec/retail-envelope.md 4.3). A fallback
    key that does not follow the previous node's (no source measured one) ends
    a track of that one key (``track_starts``).
    """
    if model.is_legacy:
        raise FormatError.single("Res1", None, "legacy 24-byte node table has no animation to read", model.name)
    keys, words, frame_count = model.keys, model.map_words, model.frame_count
    tracks = []
    for i, (node, start) in enumerate(zip(model.nodes, track_starts(model))):
        fallback, map_start = int(node["fallback_key"]), int(node["map_start"])
        if not fallback < len(keys):
            raise FormatError.single("Res1", i, f"fallback key {fallback} does not end a track starting at "
                                                f"key {start} ({len(keys)} keys)", model.name)
        has_map = map_start != NONE
        read_words = None
        if has_map:
            if map_start + frame_count > len(words):
                raise FormatError.single("Res1", i, f"map block [{map_start}, {map_start + frame_count}) exceeds "
                                                    f"the {len(words)} map words", model.name)
            read_words = words[map_start:map_start + frame_count].copy()
        k = keys[start:fallback + 1]
        tracks.append(Track(k["time"].copy(), k["pos"].copy(), k["rot"].copy(), has_map, read_words, start, False))
    return Animation(frame_count, tracks)


def track_starts(model: Model) -> list[int]:
    """First key of each node's track: one past the previous nodes' last fallback key (section 5.1). A fallback
    key at or before that (no source measured one; the validator warns) starts its own one-key track, so a track
    never reaches outside the key pool."""
    fallbacks = model.nodes["fallback_key"].astype(np.int64)
    after = np.maximum.accumulate(np.concatenate([[-1], fallbacks[:-1]])) + 1 if len(fallbacks) else fallbacks
    return np.minimum(after, fallbacks).tolist()


def canonical_words(times: np.ndarray, first_key: int, frame_count: int) -> np.ndarray:
    """Section 5.4: map[f] = index of k with k.time <= f < next.time, else the fallback key."""
    frames = np.arange(frame_count, dtype=np.float64)
    fallback = first_key + len(times) - 1
    left = np.searchsorted(times.astype(np.float64), frames, side="right") - 1
    inside = (left >= 0) & (left < len(times) - 1)
    return np.where(inside, first_key + left, fallback).astype(np.uint16)


def _moved_words(track: Track, owners: list[tuple[int, int]], starts_new: list[int], lengths: list[int],
                 fallback_new: int, frame_count: int) -> np.ndarray | None:
    """An unedited track's words with each key reference moved to where that key now lies. ``owners``: (first
    key as read, node) of every unedited track, in key order: only their keys have a new place.

    None when a word points anywhere else (into a track that was edited or replaced).
    """
    words = track.read_words.astype(np.int64)
    fallback_old = track.read_start + len(track) - 1
    out = np.empty(len(words), np.int64)
    above = words >= fallback_old
    out[above] = np.minimum(words[above] - fallback_old + fallback_new, NONE)
    refs = words[~above]
    if len(refs):
        starts_old = np.asarray([start for start, _node in owners], np.int64)
        nodes = np.asarray([node for _start, node in owners], np.int64)
        at = np.searchsorted(starts_old, refs, side="right") - 1
        if np.any(at < 0):
            return None
        owner = nodes[at]
        offset = refs - starts_old[at]
        if np.any(offset >= np.asarray(lengths, np.int64)[owner]):
            return None
        out[~above] = offset + np.asarray(starts_new, np.int64)[owner]
    if frame_count != len(out):
        tail = canonical_words(track.times, fallback_new - len(track) + 1, frame_count)
        out = np.concatenate([out[:frame_count], tail[len(out):]])
    return out.astype(np.uint16)


def check_writable(anim: Animation, node_count: int) -> None:
    """The section 9 checks on an IR, before anything is written."""
    problems = []
    if len(anim.tracks) != node_count:
        problems.append(error("Res1", None, f"{len(anim.tracks)} tracks for {node_count} nodes"))
    if not 0 < anim.frame_count <= MAX_FRAMES:
        problems.append(error("Res19", None, f"frame count {anim.frame_count} is outside [1, {MAX_FRAMES}]"))
    total = sum(len(t) for t in anim.tracks)
    if total > MAX_KEYS:
        problems.append(error("Res8", None, f"{total} keys; at most {MAX_KEYS} can be indexed"))
    animated = sum(t.has_map for t in anim.tracks)
    if animated and animated * anim.frame_count > 0xFFFF + anim.frame_count - 1:
        problems.append(error("Res19", None, f"{animated} map blocks of {anim.frame_count} frames do not fit "
                                             "16-bit map starts"))
    for i, t in enumerate(anim.tracks):
        if not (len(t.times) == len(t.pos) == len(t.rot)) or not len(t):
            problems.append(error("Res8", None, f"track of node {i} is empty or ragged"))
            continue
        if len(t) > 1 and not bool(np.all(t.times[1:] > t.times[:-1])):
            problems.append(error("Res8", None, f"key times of node {i} do not strictly increase"))
        if t.has_map and len(t) < 2:
            problems.append(error("Res8", None, f"node {i} has a map but fewer than 2 keys"))
        if not np.all(np.isfinite(t.times)) or not np.all(np.isfinite(t.pos)):
            problems.append(error("Res8", None, f"track of node {i} holds a non-finite number"))
    if problems:
        raise FormatError(problems)


@dataclass
class PackedAnimation:
    """An IR laid out as the file stores it (section 8)."""

    map_start: np.ndarray  # uint16 per node, NONE for no map
    fallback: np.ndarray   # uint16 per node
    keys: np.ndarray       # KEY records, all tracks in node order
    words: np.ndarray      # uint16 map words, one block of frame_count per animated node
    frame_count: int       # Res19.attr2: 1 when no node has a map (section 5.3)


def pack(anim: Animation) -> PackedAnimation:
    """Lay the IR out canonically; raises FormatError for an IR that cannot be written."""
    check_writable(anim, len(anim.tracks))
    tracks = anim.tracks
    lengths = [len(t) for t in tracks]
    starts_new = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()
    # The unedited tracks' keys as read, in key order (a replaced track's read_start is no place in the read)
    owners = sorted((t.read_start, i) for i, t in enumerate(tracks) if not t.edited)
    frame_count = anim.frame_count
    map_start = np.full(len(tracks), NONE, np.uint16)
    fallback = np.zeros(len(tracks), np.uint16)
    blocks = []
    for i, track in enumerate(tracks):
        fallback[i] = starts_new[i] + lengths[i] - 1
        if not track.has_map:
            continue
        words = None
        if not track.edited and track.read_words is not None:
            words = _moved_words(track, owners, starts_new, lengths, int(fallback[i]), frame_count)
        if words is None:
            words = canonical_words(track.times, starts_new[i], frame_count)
        map_start[i] = len(blocks) * frame_count
        blocks.append(words)
    keys = np.zeros(sum(lengths), S.KEY)
    if len(keys):
        keys["time"] = np.concatenate([t.times for t in tracks])
        keys["pos"] = np.concatenate([t.pos for t in tracks])
        keys["rot"] = np.concatenate([t.rot for t in tracks])
    words = np.concatenate(blocks).astype(S.MAP_WORD) if blocks else np.zeros(0, S.MAP_WORD)
    return PackedAnimation(map_start, fallback, keys, words, frame_count if blocks else 1)


def write_animation(model: Model, anim: Animation, rebuild: bool = False) -> None:
    """Store the IR in the model (Res8, Res19, Res1 map_start and fallback_key, attrs).

    Nothing changes when every track is unedited, unless ``rebuild`` asks to
    lay everything out again (which reproduces canonical inputs exactly).
    Every check runs before the model is touched.
    """
    if not anim.edited and not rebuild and anim.frame_count == model.frame_count:
        return
    check_writable(anim, model.node_count if not model.is_legacy else -1)
    packed = pack(anim)
    nodes = model.nodes.copy()
    nodes["map_start"], nodes["fallback_key"] = packed.map_start, packed.fallback
    model.set_stream(1, nodes.tobytes(), attr1=len(nodes), attr3=S.NODE.itemsize)
    model.set_stream(8, packed.keys.tobytes(), attr1=len(packed.keys), attr2=0, attr3=4)
    model.set_stream(19, packed.words.tobytes(), attr1=len(packed.words), attr2=packed.frame_count, attr3=2)
    for i, track in enumerate(anim.tracks):
        track.read_start, track.edited = int(packed.fallback[i]) - len(track) + 1, False
        start = int(packed.map_start[i])
        track.read_words = packed.words[start:start + packed.frame_count].copy() if track.has_map else None
    anim.frame_count = packed.frame_count
