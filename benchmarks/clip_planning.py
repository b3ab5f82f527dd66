"""Clip planning time against the number of states, with every state an anchor.

A controller of N fixed-step states whose transition table is dense with random costs (30% no-edge):
``clips_of`` (the planner behind ``core clips`` and the import's Clips) and ``validate_controller`` (which
plans every anchor too). Prints the seconds for each size.
    .venv/bin/python benchmarks/clip_planning.py [--states 100 400 512]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.animation.controller.clips import clips_of
from core.animation.controller.codec import ANCHOR, CONTACT, FIXED_STEP, NO_EDGE, Controller, validate_controller
from core.authoring.controllers import default_params, state


def every_state_an_anchor(count: int, seed: int = 0) -> Controller:
    rng = np.random.default_rng(seed)
    states = np.array([state(ANCHOR | FIXED_STEP, (0.0, 1.0), (0.0, 1.0), 100.0) for _ in range(count)])
    costs = (rng.integers(1, 20, (count, count)) * np.float32(0.1)).astype("<f4")
    costs[rng.random(costs.shape) < 0.3] = NO_EDGE
    return Controller(default_params(), states, np.zeros((count, 0), CONTACT), costs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--states", type=int, nargs="*", default=[100, 400, 512])
    for count in parser.parse_args().states:
        controller = every_state_an_anchor(count)
        start = time.perf_counter()
        clips = clips_of(controller)
        planned = time.perf_counter() - start
        start = time.perf_counter()
        validate_controller(controller)
        validated = time.perf_counter() - start
        print(f"{count:4d} states, every one an anchor: clips_of {planned:6.3f} s ({len(clips)} clips), "
              f"validate {validated:6.3f} s")


if __name__ == "__main__":
    main()
