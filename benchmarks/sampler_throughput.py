"""Sampler throughput, scalar against vectorised, on a generated 100-node x 1000-frame model.

Prints node samples per second for each path and their ratio (one process,
one run: compare the ratio, not the absolute figures, on a shared machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.animation.sampler import AnimationData, sample, sample_node
from core.authoring.build import build_model
from core.authoring.synth import random_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--frames", type=int, default=1000)
    parser.add_argument("--scalar", type=int, default=5000, help="samples taken one by one")
    args = parser.parse_args()
    nodes, frames = args.nodes, args.frames
    model = build_model(random_model(1, node_count=nodes, frame_count=frames, animated=0.6))
    data = AnimationData.from_model(model)
    times = np.arange(frames, dtype=np.float32) + np.float32(0.25)

    start = time.perf_counter()
    sample(data, times)
    vector_seconds = time.perf_counter() - start
    vector_rate = nodes * frames / vector_seconds

    scalar_count = args.scalar
    rng = np.random.default_rng(0)
    picks = list(zip(rng.integers(0, nodes, scalar_count).tolist(), times[rng.integers(0, frames, scalar_count)]))
    start = time.perf_counter()
    for node, t in picks:
        sample_node(data, node, t)
    scalar_rate = scalar_count / (time.perf_counter() - start)

    print(f"model: {nodes} nodes x {frames} frames, {len(model.keys)} keys")
    print(f"vectorised: {vector_rate:14,.0f} node samples/s ({nodes * frames} samples in {vector_seconds:.3f} s)")
    print(f"scalar:     {scalar_rate:14,.0f} node samples/s ({scalar_count} samples)")
    print(f"ratio vectorised/scalar: {vector_rate / scalar_rate:.0f}x")


if __name__ == "__main__":
    main()
