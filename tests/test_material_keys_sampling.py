"""The material planner (io_msh.imp.material_keys), without Blender, reads a track where what it
shows can change (the interval bounds as the modes map them, with their neighbours), not at every ms of the cycle.
On drawn materials (every mode and mask, keys out of order, repeated and zero times, entries past the material's,
several textures, clock and belt) it plans exactly what it plans when every ms is sampled, as it did before:
the same frames, values, textures, cells and warnings, or the same error."""

import importlib
import os

import numpy as np
import pytest
from fixtures import load_extension
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.authoring.synth import sample_libraries

load_extension()
keys_module = importlib.import_module("io_msh_ext.io_msh.imp.material_keys")
mat0 = importlib.import_module("io_msh_ext.core.appearance.mat0")
resolve = importlib.import_module("io_msh_ext.core.appearance.resolve")
errors = importlib.import_module("io_msh_ext.core.errors")

SWEEP = os.environ.get("IO_MSH_SWEEP_EXAMPLES")  # a longer soak, seeds drawn afresh
TEXTURES = ["BODY.0", "METAL.0", "GLASS.0", "NOPE.0", ""]  # NOPE.0 is not in Textures.lib
RATES = [24.0, 25.0, 30.0, 24000 / 1001, 8.0, 7.3, 1000.0]


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    folder = tmp_path_factory.mktemp("game")
    for name, archive in sample_libraries().items():
        (folder / name).write_bytes(archive.to_bytes())
    return resolve.Libraries(resolve.find_libraries(folder / "unit.msh"))


@st.composite
def materials(draw):
    count = draw(st.integers(1, 4))
    pool = draw(st.lists(st.integers(0, 255), min_size=18, max_size=18))  # bytes entries share now and then
    phases = []
    for _ in range(count):
        record = mat0.phase((1.0, 1.0, 1.0, 1.0), draw(st.sampled_from(TEXTURES)))
        own = draw(st.lists(st.integers(0, 255), min_size=18, max_size=18))
        shared = draw(st.lists(st.booleans(), min_size=18, max_size=18))
        record["p"][:] = np.where(shared, pool, own)
        record["p"][17] = draw(st.sampled_from([0, 1, 2, 3, 0xFF]))  # the atlas cell (0xFF: none)
        phases.append(record)
    n = draw(st.integers(1, 6))
    times = draw(st.one_of(
        st.lists(st.integers(1, 400), min_size=n, max_size=n).map(lambda s: np.cumsum(s).tolist()),
        st.lists(st.integers(0, 2), min_size=n, max_size=n).map(lambda s: np.cumsum(s).tolist()),
        st.lists(st.integers(0, 600), min_size=n, max_size=n)))  # out of order
    top = count + (1 if draw(st.integers(0, 19)) == 0 else 0) - 1  # now and then an entry past the material's
    keys = [(draw(st.integers(0, top)), int(t), 0) for t in times]
    mode = draw(st.integers(0, 7))
    mask = draw(st.sampled_from([0, 0x02, 0x0B, 0x10, 0x1F, draw(st.integers(0, 31))]))
    return mat0.Material(0, phases=np.array(phases, mat0.PHASE),
                         animations=[mat0.AnimBlock(mode | mask << 3, np.array(keys, mat0.ANIM_KEY))])


def planned(material, libraries, clock):
    """The planner's MaterialKeys (or None, or its error) and warnings for ``material`` worn by one look."""
    name = material.texture_name(0)
    look = resolve.Look(1, 0, "X", "X", texture=libraries.texture("textures", name)[0] if name else None)
    warnings = []
    try:
        return keys_module._material_keys(1, look, material, libraries, clock, warnings), warnings
    except errors.FormatError as exc:
        return ("error", exc.findings[0].message), warnings


def assert_same(a, b, where="keys"):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert (a.dtype, a.shape, a.tobytes()) == (b.dtype, b.shape, b.tobytes()), (where, a, b)
    elif hasattr(a, "__dataclass_fields__"):
        assert type(a) is type(b), where
        for name in a.__dataclass_fields__:
            assert_same(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, (dict, list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (where, a, b)
        pairs = [(k, a[k], b[k]) for k in a] if isinstance(a, dict) else list(zip(range(len(a)), a, b))
        for key, x, y in pairs:
            assert_same(x, y, f"{where}[{key}]")
    else:
        assert a == b, (where, a, b)


@settings(derandomize=SWEEP is None, max_examples=int(SWEEP or 120), deadline=None)
@given(material=materials(), rate=st.sampled_from(RATES), belt=st.booleans())
@example(material=mat0.Material(0, phases=np.array([mat0.phase((1, 0, 0, 1), "BODY.0", 0),
                                                    mat0.phase((0, 1, 0, 1), "METAL.0", 2)], mat0.PHASE),
                                animations=[mat0.AnimBlock(1 | 0x1F << 3, np.array([(0, 497, 0), (1, 1000, 0)],
                                                                                   mat0.ANIM_KEY))]),
         rate=24.0, belt=False)  # ping-pong, two textures, every colour gliding
def test_sampled_where_it_can_change_plans_what_every_ms_plans(material, rate, belt, libraries):
    clock = (lambda: keys_module._Fraction()) if belt else (lambda: keys_module._Clock(rate))
    sparse = planned(material, libraries, clock())
    change_ms = keys_module._change_ms
    try:
        keys_module._change_ms = lambda block, last: np.arange(last + 1)  # every ms: the planner before
        dense = planned(material, libraries, clock())
    finally:
        keys_module._change_ms = change_ms
    assert_same(sparse, dense)
