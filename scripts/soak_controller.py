"""A longer run of the hostile-controller sweep (tests/controller_hostile.py).

    .venv/bin/python scripts/soak_controller.py --examples 20000

Every input either reads and writes back byte for byte (and then checks against a model, plans and poses, or
refuses with a FormatError), or is refused with a FormatError; each within a bounded time. Prints how many of
each, and the time taken.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=5000, help="inputs to try (default 5000)")
    args = parser.parse_args()

    import numpy as np
    from controller_hostile import check_hostile, hostile_controllers
    from hypothesis import HealthCheck, given, settings

    seen: Counter[str] = Counter()

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=hostile_controllers())
    def sweep(data: bytes) -> None:
        seen[check_hostile(data)] += 1

    start = time.perf_counter()
    with np.errstate(all="ignore"):
        sweep()
    print(f"{sum(seen.values())} inputs in {time.perf_counter() - start:.1f} s: " +
          ", ".join(f"{n} {what}" for what, n in sorted(seen.items())))


if __name__ == "__main__":
    main()
