"""What a benchmark case costs in its own process: the wall time of its work and the rise of the peak resident
memory (VmHWM, reset to the current size just before the work), for the scripts that run each case in a child."""

from __future__ import annotations

import time
from pathlib import Path


def memory_mb(field: str) -> float:
    """A /proc/self/status figure (VmRSS, VmHWM) in MB; NaN where the system has none."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measured(work) -> dict:
    """``work()`` run once: {"seconds", "peak_rise_mb", "outcome" (what it returned)}."""
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current resident size
    before = memory_mb("VmRSS")
    start = time.perf_counter()
    outcome = work()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_rise_mb": memory_mb("VmHWM") - before, "outcome": outcome}
