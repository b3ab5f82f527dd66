"""The command line's start: ``python -m core info sample.rlb`` against ``python -c "import numpy"`` (the floor:
every command needs numpy), alternating, the median of --repeat runs each, in CPU time (user + system of the
child: other work on the machine does not count).

Python keeps its compiled modules (``__pycache__``) after the first run, as it does on a user's machine: the
runs here compile into a temporary cache (PYTHONPYCACHEPREFIX) during one warm-up run each, whatever
PYTHONDONTWRITEBYTECODE says in the environment. The cold start (no compiled modules: every module of core
compiled again, as under PYTHONDONTWRITEBYTECODE in a source tree without ``__pycache__``) is printed beside
it, for context.

Goal: info <= 1.5x import numpy (warm). Run: .venv/bin/python benchmarks/cli_start.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.authoring.build import build_model  # noqa: E402
from core.authoring.synth import sample_archive, sample_model  # noqa: E402

GOAL = 1.5


def cpu(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """The CPU seconds (user + system) the command's process took."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command)
    return usage.ru_utime + usage.ru_stime


def measure(repeat: int) -> dict[str, float]:
    """The median CPU seconds of each command: "info" and "numpy" with compiled modules kept, "info cold"
    without, "python" a bare interpreter."""
    folder = Path(tempfile.mkdtemp(prefix="io_msh_cli_start_"))
    try:
        (folder / "sample.rlb").write_bytes(sample_archive(build_model(sample_model()).to_bytes()).to_bytes())
        base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
        base["PYTHONPATH"] = str(ROOT)
        warm = {**base, "PYTHONPYCACHEPREFIX": str(folder / "pycache")}
        cold = {**base, "PYTHONDONTWRITEBYTECODE": "1"}  # numpy's own compiled modules still read
        info = [sys.executable, "-m", "core", "info", "sample.rlb"]
        commands = {"info": (info, warm), "numpy": ([sys.executable, "-c", "import numpy"], warm),
                    "info cold": (info, cold), "python": ([sys.executable, "-c", "pass"], warm)}
        for command, env in commands.values():  # the warm-up: compiles into the cache
            cpu(command, folder, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(max(1, repeat)):
            for name, (command, env) in commands.items():
                times[name].append(cpu(command, folder, env))
        return {name: statistics.median(values) for name, values in times.items()}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="runs of each command (the median is shown)")
    repeat = parser.parse_args().repeat
    median = measure(repeat)
    print(f"python -m core info sample.rlb: {median['info'] * 1000:.0f} ms CPU; import numpy "
          f"{median['numpy'] * 1000:.0f} ms; bare python {median['python'] * 1000:.0f} ms; "
          f"ratio {median['info'] / median['numpy']:.2f}x import numpy (goal <= {GOAL}x); cold (nothing compiled "
          f"kept) {median['info cold'] * 1000:.0f} ms, {median['info cold'] / median['numpy']:.2f}x; "
          f"median of {repeat}")


if __name__ == "__main__":
    main()
