"""A longer soak of the map and mission readers than the suite's sweep (tests/test_map_hostile.py): mutated bytes
of the sample map and mission must give a FormatError or read, never another exception, each within 2 s.

    .venv/bin/python scripts/fuzz_maps.py [--examples N] [--seed S]

Prints the number of inputs read, refused and the slowest; exit 1 with the input saved under /tmp on a
failure."""

from __future__ import annotations

import argparse
import random
import struct
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from map_fixtures import decode_everything  # noqa: E402

from core.authoring.maps import sample_map_files  # noqa: E402
from core.errors import FormatError  # noqa: E402

WORDS = [0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, 0xFFFFFFFF]


def mutated(rng: random.Random, data: bytes) -> bytes:
    blob = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(max(1, len(blob) - 4))
        if rng.random() < 0.5:
            blob[at] = rng.randrange(256)
        else:
            blob[at:at + 4] = struct.pack("<I", rng.choice([*WORDS, rng.randrange(1 << 32)]))
    if rng.random() < 0.2:
        blob = blob[:rng.randrange(len(blob) + 1)]
    return bytes(blob)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=5000, help="inputs to try")
    parser.add_argument("--seed", type=int, default=1, help="random seed")
    args = parser.parse_args()
    files = sample_map_files()
    rng = random.Random(args.seed)
    read = refused = 0
    slowest = 0.0
    for n in range(args.examples):
        name = rng.choice(sorted(files))
        data = mutated(rng, files[name])
        start = time.perf_counter()
        try:
            decode_everything(name, data)
            read += 1
        except FormatError:
            refused += 1
        except Exception:
            saved = Path("/tmp") / f"fuzz_maps_{n}_{Path(name).name}"
            saved.write_bytes(data)
            traceback.print_exc()
            print(f"input {n} ({name}) broke the contract; saved as {saved}")
            return 1
        elapsed = time.perf_counter() - start
        slowest = max(slowest, elapsed)
        if elapsed > 2.0:
            print(f"input {n} ({name}) took {elapsed:.2f} s")
            return 1
    print(f"{args.examples} inputs: {read} read, {refused} refused (FormatError), slowest {slowest * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
