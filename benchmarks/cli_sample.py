"""CLI ``sample`` against the library call it formats: 64k samples (one node x 65,536 times), text and JSON.

Prints each time and its ratio to ``core.animation.sampler.sample`` on the same times (one process, best of 3).
Run: .venv/bin/python benchmarks/cli_sample.py [--count 65536]
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from core.animation.sampler import AnimationData, sample
from core.authoring.build import build_model
from core.authoring.synth import sample_model
from core.cli import main as cli


def best(action) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=65536, help="samples (one node x COUNT times)")
    count = parser.parse_args().count
    model = build_model(sample_model())
    folder = Path(tempfile.mkdtemp(prefix="io_msh_cli_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "sample.msh"
    path.write_bytes(model.to_bytes())
    step = 41 / count
    times = np.arange(count, dtype=np.float32) * np.float32(step)
    data = AnimationData.from_model(model)
    library = best(lambda: sample(data, times, [1]))
    frames = f"--frames=0:41:{step!r}"

    def run(*extra):
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            cli.main(["sample", str(path), frames, "--nodes", "1", *extra])

    text, as_json = best(run), best(lambda: run("--json"))
    print(f"{count:,} samples: library {library:.4f} s; CLI text {text:.3f} s ({text / library:.0f}x), "
          f"JSON {as_json:.3f} s ({as_json / library:.0f}x)")


if __name__ == "__main__":
    main()
