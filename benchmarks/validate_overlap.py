"""Time of ``python -m core validate`` on archives whose directory records partly overlap one payload:
8,000 records over one 2 MB payload, record i starting 8 x i bytes in and running to its end (or, for
the blank-tail case, all starting at the payload and record i ending 8 x i bytes short), so that no two records
are the same bytes (not aliases) and each is checked on its own.

Each case runs in a process of its own. Run: .venv/bin/python benchmarks/validate_overlap.py [--count N]
[--root OTHER_CHECKOUT] (``--root`` runs the same inputs through another checkout's code, e.g. an older
commit unpacked with ``git archive``; the inputs are always built by this one).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

PAYLOAD_BYTES = 2 << 20


def payloads() -> dict[str, tuple[int, bytes, bool]]:
    """label: (entry type, payload, whether the records share the start rather than the end)"""
    from core.appearance.mat0 import MAT0_TYPE_ID
    from core.appearance.texm import TEXM_TYPE_ID
    from core.appearance.wear import WEAR_TYPE_ID
    from core.container.nres import MODEL_TYPE_ID

    noise = np.random.default_rng(19).integers(0, 256, PAYLOAD_BYTES, dtype=np.uint8).tobytes()
    rows = b"".join(b"%d MATERIAL_%d\r\n" % (i, i) for i in range(100_000))
    lists = (b"1\r\n0 M\r\n\r\n" * (PAYLOAD_BYTES // 10))[:PAYLOAD_BYTES]
    blank_tail = (b"1\r\n0 M\r\n" + b"\r\n" * PAYLOAD_BYTES)[:PAYLOAD_BYTES]
    return {
        "WEAR, random bytes": (WEAR_TYPE_ID, noise, False),
        "WEAR, material rows": (WEAR_TYPE_ID, rows[:PAYLOAD_BYTES], False),
        "WEAR, short lists": (WEAR_TYPE_ID, lists, False),
        "WEAR, blank tail": (WEAR_TYPE_ID, blank_tail, True),
        "Texm, random bytes": (TEXM_TYPE_ID, noise, False),
        "MAT0, random bytes": (MAT0_TYPE_ID, noise, False),
        "MESH, random bytes": (MODEL_TYPE_ID, noise, False),
    }


def build(folder: Path, count: int) -> dict[str, Path]:
    from fixtures import nres

    paths = {}
    for i, (label, (type_id, payload, same_start)) in enumerate(payloads().items()):
        entries = [(type_id, f"e{n}", payload if n == 0 else b"", 0, 0, 0) for n in range(count)]
        path = folder / f"overlap_{i}.rlb"
        path.write_bytes(nres(entries, offsets=[16 + (0 if same_start else 8 * n) for n in range(count)],
                              sizes=[len(payload) - 8 * n for n in range(count)]))
        paths[label] = path
    return paths


def child(path: str) -> None:
    import contextlib
    import io

    from core.cli import main as cli

    sink = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = cli.main(["validate", path])
    print(json.dumps({"seconds": time.perf_counter() - start, "exit": code}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=8000, help="directory records (default 8,000)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code validates")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per case before it is given up")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.path[:0] = [str(Path.cwd())]
        child(args.child)
        return
    with tempfile.TemporaryDirectory(prefix="io_msh_overlap_") as folder:
        paths = build(Path(folder), args.count)
        print(f"code: {args.root}; {args.count:,} records over one {PAYLOAD_BYTES:,}-byte payload")
        for label, path in paths.items():
            try:
                result = subprocess.run([sys.executable, __file__, "--child", str(path)], cwd=args.root,
                                        capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                print(f"  validate, {label:<22} over {args.timeout:.0f} s")
                continue
            lines = result.stdout.strip().splitlines()
            if result.returncode or not lines:
                print(f"  validate, {label:<22} failed: {result.stderr.strip()[-200:]}")
                continue
            figures = json.loads(lines[-1])
            print(f"  validate, {label:<22} {figures['seconds']:8.2f} s  (exit {figures['exit']})")


if __name__ == "__main__":
    main()
