"""The FAITHFUL import's keys, pinned: for a few generated models (dense and sparse keys, whole and
fractional times, a non-canonical map) in both node modes, the frames keyed on each node and the values keyed (as
the F-curves store them, float32) are exactly those of the planner before its arithmetic was made faster. The
sampler reproduces the game (msh-animation.md sections 3-4, in float32) and the key reduction keeps every frame
within FAITHFUL's tolerance of it: a change of arithmetic must keep both to the bit."""

import hashlib
import importlib

import numpy as np
import pytest
from fixtures import generated, load_extension, non_canonical

from core.msh.model import Model

load_extension()
plan = importlib.import_module("io_msh_ext.io_msh.imp.plan")
animation_plan = importlib.import_module("io_msh_ext.io_msh.imp.animation")

MODELS = {
    "dense": dict(seed=7, node_count=14, frame_count=300, animated=1.0, every_frame=True),
    "sparse": dict(seed=3, node_count=12, frame_count=200, animated=0.6),
    "fractional": dict(seed=11, node_count=9, frame_count=120, animated=0.8, fractional=True),
    "non-canonical": dict(seed=5, node_count=10, frame_count=90, animated=0.7),
}

# (keyed frames, keyed values): sha256 of every channel's node and frames, and of its float32 location and
# rotation, as the planner gave them before the faster arithmetic.
PINNED = {
    ('dense', 'ARMATURE'): ('f2fdbaa6d4029759c898', '22e83cf32e5d1cfe9564'),
    ('dense', 'EMPTIES'): ('f2fdbaa6d4029759c898', '38ad1bf1370337aa868a'),
    ('sparse', 'ARMATURE'): ('dd45f07288ae9ef0c651', 'be030c6443efce89c75b'),
    ('sparse', 'EMPTIES'): ('03853d3c8b6303e0f3cc', '6f59aa10c23d8d2d2ab2'),
    ('fractional', 'ARMATURE'): ('ef9c1eea57a83058a3ce', '7e05634508da6dc7fdea'),
    ('fractional', 'EMPTIES'): ('ef9c1eea57a83058a3ce', 'b4c3054c8b5cda0a75e4'),
    ('non-canonical', 'ARMATURE'): ('b583747f1567b2f6fd0e', 'a4d0241c31abe42f3bbb'),
    ('non-canonical', 'EMPTIES'): ('b583747f1567b2f6fd0e', '5e4cfa8d7bb2fdf2827c'),
}


def model_of(name: str) -> Model:
    kw = dict(MODELS[name])
    data = generated(kw.pop("seed"), **kw)
    return Model.parse(non_canonical(data) if name == "non-canonical" else data)


def digests(channels) -> tuple[str, str]:
    keyed, values = hashlib.sha256(), hashlib.sha256()
    for channel in channels:
        keyed.update(np.int64(channel.node).tobytes())
        keyed.update(np.asarray(channel.frames, np.float64).tobytes())
        values.update(np.asarray(channel.location, np.float32).tobytes())
        values.update(np.asarray(channel.rotation, np.float32).tobytes())
    return keyed.hexdigest()[:20], values.hexdigest()[:20]


def planned(name: str, node_mode: str):
    model = model_of(name)
    nodes = plan.plan_nodes(model, plan.ImportOptions(node_mode=node_mode))
    return animation_plan.plan_channels(model, nodes, "FAITHFUL", node_mode)


@pytest.mark.parametrize("node_mode", ["ARMATURE", "EMPTIES"])
@pytest.mark.parametrize("name", list(MODELS))
def test_the_faithful_keys_are_the_pinned_ones(name, node_mode):
    keyed, values = digests(planned(name, node_mode))
    want_keyed, want_values = PINNED[name, node_mode]
    assert keyed == want_keyed, "the frames keyed changed"
    assert values == want_values, "the values keyed changed"


@pytest.mark.parametrize("middle, fits", [(1.0, True), (1.0 + 1e-6, False)])
def test_a_block_whose_pair_lies_twice_the_tolerance_off_still_fits(middle, fits):
    """A block of 8 steps whose frames all lie within the tolerance of its line, while one pair of steps inside it
    has its middle twice the tolerance off the pair's own line (the most the key search may rule out a block
    for): the block keeps only its ends. A hair farther and it does not fit."""
    offsets = np.array([0, 0, -1, middle, -1, 0, 0, 0, 0])
    values = (0.25 * np.arange(9) + offsets)[None, :, None] * np.ones((1, 1, 2))
    keep = animation_plan.linear_keys(values, np.ones((1, 1, 2)))[0]
    assert (keep.sum() == 2) == fits
    assert keep[0] and keep[-1]
