"""The command line's start: ``python -m core info sample.rlb`` against ``python -c "import numpy"`` (the floor:
every command needs numpy), alternating in one process, the median of --repeat runs each.

Goal: info <= 1.5x import numpy. Run: .venv/bin/python benchmarks/cli_start.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.authoring.build import build_model  # noqa: E402
from core.authoring.synth import sample_archive, sample_model  # noqa: E402


def wall(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="runs of each command (the median is shown)")
    repeat = parser.parse_args().repeat
    folder = Path(tempfile.mkdtemp(prefix="io_msh_cli_start_"))
    try:
        (folder / "sample.rlb").write_bytes(sample_archive(build_model(sample_model()).to_bytes()).to_bytes())
        commands = {"info": [sys.executable, "-m", "core", "info", "sample.rlb"],
                    "numpy": [sys.executable, "-c", "import numpy"],
                    "python": [sys.executable, "-c", "pass"]}
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(max(1, repeat)):
            for name, command in commands.items():
                times[name].append(wall(command, folder))
        median = {name: statistics.median(values) for name, values in times.items()}
        print(f"python -m core info sample.rlb: {median['info'] * 1000:.0f} ms; import numpy "
              f"{median['numpy'] * 1000:.0f} ms; bare python {median['python'] * 1000:.0f} ms; "
              f"ratio {median['info'] / median['numpy']:.2f}x import numpy (goal <= 1.5x); median of {repeat}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
