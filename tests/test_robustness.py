"""Any input bytes: only FormatError escapes the library (hypothesis mutations of real models)."""

import contextlib
import struct
import tracemalloc

import numpy as np
from fixtures import generated
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.animation.sampler import AnimationData, blend, sample, world_matrices_at
from core.animation.tracks import read_animation, write_animation
from core.authoring.synth import sample_archive
from core.cli import archive as cli
from core.cli.roundtrip import rewritten
from core.errors import FormatError
from core.files import read_container, validate_container

SEED_MODEL = generated(3, node_count=5, frame_count=12, fractional=True)
SEED_ARCHIVE = sample_archive(SEED_MODEL).to_bytes()
EDGES = [0, 1, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF]


@st.composite
def mutated(draw):
    data = bytearray(draw(st.sampled_from([SEED_MODEL, SEED_ARCHIVE])))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "edge", "truncate", "splice"]))
        if kind == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "edge" and len(data) >= 4:
            i = draw(st.integers(0, len(data) - 4)) & ~3
            struct.pack_into("<I", data, i, draw(st.sampled_from(EDGES)))
        elif kind == "truncate":
            del data[draw(st.integers(0, len(data))):]
        elif kind == "splice" and len(data) > 8:
            a = draw(st.integers(0, len(data) - 1))
            b = draw(st.integers(a, min(len(data), a + 64)))
            at = draw(st.integers(0, len(data)))
            data[at:at] = data[a:b]
    return bytes(data)


def exercise(data: bytes) -> None:
    container = read_container(data, "fuzz")
    validate_container(container)
    rewritten(container)
    names = [None] if container.is_model else [e.name_str for e in container.model_entries()]
    for name in names:
        model = container.open_model(name)
        cli._model_summary(model)
        anim = read_animation(model)
        write_animation(model, anim, rebuild=True)
        anim_data = AnimationData.from_model(model)
        sample(anim_data, np.float32([-1, 0, 0.5, 3, 7.5, 1e9, np.nan]))
        world_matrices_at(anim_data, [1.0])
        if anim_data.node_count:
            blend(anim_data, 0, 1.0, 2.0, 0.5)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=mutated())
def test_only_format_errors_escape_and_memory_stays_small(data):
    tracemalloc.start()
    try:
        with contextlib.suppress(FormatError):
            exercise(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * len(data) + 4_000_000, f"{peak} bytes for a {len(data)}-byte input"


def test_random_bytes_and_empty_input():
    rng = np.random.default_rng(0)
    for size in (0, 1, 15, 16, 64, 1000):
        for prefix in (b"", b"NRes"):
            data = prefix + rng.bytes(size)
            with contextlib.suppress(FormatError):
                exercise(data)
