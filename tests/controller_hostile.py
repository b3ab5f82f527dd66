"""Hostile controllers: the walker's ``.ctl`` with counts that lie (a little, hugely, negative,
2^27 contacts over no states), truncated or extended, with NaN, infinite and huge floats and random bytes written
over it, or a header of any counts over random bytes. ``check_hostile`` holds the codec's contract: a result that
writes back byte for byte, or a FormatError; everything built on a result (the check against a model, the clips,
the pose at a step) the same; within a bounded time. Used by tests/test_controller_model.py (a small budget)
and scripts/soak_controller.py (``--examples N``)."""

from __future__ import annotations

import struct
import time

from hypothesis import strategies as st

from core.animation.controller import clips_of, pose_at_step, read_controller, step_at
from core.animation.sampler import AnimationData
from core.authoring import units
from core.authoring.build import build_model
from core.authoring.controllers import walker_controller, walker_model
from core.errors import FormatError
from core.model_controller import read_for_model
from core.msh.model import Model

WALKER = walker_controller().to_bytes()
EMPTY = units.CONTROLLER  # no states, channels, components or groups: 212 bytes
MODEL = Model.parse(build_model(walker_model()).to_bytes(), "walker.msh")
ANIM = AnimationData.from_model(MODEL)
SECONDS = 5.0  # one input, every step of the check: far above what a good controller takes (milliseconds)

COUNTS = st.one_of(st.integers(-3, 40), st.sampled_from([255, 4096, 2 ** 16, 2 ** 27, 2 ** 28, 2 ** 31 - 1,
                                                          -(2 ** 31), 0x7FFF_FFF0]))
FLOATS = st.one_of(st.sampled_from([float("nan"), float("inf"), -float("inf"), 3.4e38, -3.4e38, -0.0, 1e-45,
                                    1e6, -1.0]), st.floats(width=32))
EDIT = st.one_of(
    st.tuples(st.just("count"), st.integers(0, 4), COUNTS),
    st.tuples(st.just("float"), st.integers(0, len(WALKER) // 4 - 1), FLOATS),
    st.tuples(st.just("nan bits"), st.integers(0, len(WALKER) // 4 - 1), st.integers(0x7F80_0001, 0xFFFF_FFFF)),
    st.tuples(st.just("byte"), st.integers(0, len(WALKER) - 1), st.integers(0, 255)),
)


@st.composite
def hostile_controllers(draw) -> bytes:
    mode = draw(st.sampled_from(["lie", "edit", "scratch"]))
    if mode == "scratch":  # any five counts over bytes of any kind
        counts = draw(st.lists(COUNTS, min_size=5, max_size=5))
        return struct.pack("<5i", *counts) + draw(st.binary(max_size=700))
    raw = bytearray(draw(st.sampled_from([EMPTY, WALKER])))
    if mode == "lie":  # each count kept, or a lie, over sections that are right
        true = struct.unpack_from("<5i", raw)
        struct.pack_into("<5i", raw, 0, *(draw(st.just(t) | COUNTS) for t in true))
    for kind, at, value in draw(st.lists(EDIT, max_size=8)):
        at = min(at, (len(raw) if kind == "byte" else len(raw) // 4) - 1)
        if kind == "count":
            struct.pack_into("<i", raw, 4 * at, value)
        elif kind == "float":
            struct.pack_into("<f", raw, 4 * at, value)
        elif kind == "nan bits":
            struct.pack_into("<I", raw, 4 * at, value)
        else:
            raw[at] = value
    cut = draw(st.none() | st.integers(0, len(raw)))
    return bytes(raw[:cut]) + draw(st.binary(max_size=40))


def check_hostile(data: bytes) -> str:
    """The contract on one input; what came of it ('refused', 'read', 'planned')."""
    start = time.perf_counter()
    try:
        controller, _findings = read_controller(data, "hostile.ctl")
    except FormatError:
        assert time.perf_counter() - start < SECONDS
        return "refused"
    assert controller.to_bytes() == data
    outcome = "read"
    try:
        read_for_model(data, "hostile.ctl", MODEL)
        for clip in clips_of(controller, ANIM)[:4]:
            for step in (0.0, 1.25, len(clip.steps) - 0.5):
                pose_at_step(ANIM, controller, step_at(controller, clip, step))
        outcome = "planned"
    except FormatError:
        pass
    assert time.perf_counter() - start < SECONDS, f"{time.perf_counter() - start:.1f} s"
    return outcome
