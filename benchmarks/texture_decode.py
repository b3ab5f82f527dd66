"""Texm decode speed per format, against a plain numpy copy of the same bytes.

Prints MPixel/s of ``Texture.decode`` (level 0, 1024x1024 by default) and of copying the
level's bytes with numpy, and their ratio (one process, best of five: compare
ratios, not absolute figures, on a shared machine). Also the encoder with its
full mip chain.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.appearance.texm import FORMATS, encode_texm, parse_texm


def best(function, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1024, help="the picture's side in pixels")
    size = parser.parse_args().size
    rng = np.random.default_rng(0)
    picture = rng.integers(0, 256, (size, size, 4), dtype=np.uint8)
    megapixels = size * size / 1e6
    print(f"{size}x{size}, best of 5")
    print(f"{'format':>7} {'decode MPix/s':>14} {'copy MPix/s':>12} {'decode/copy':>12} {'encode+mips MPix/s':>19}")
    for fmt in FORMATS:
        encode_seconds = best(lambda fmt=fmt: encode_texm(picture, fmt), repeat=1 if fmt == 0 else 3)
        texture = parse_texm(encode_texm(picture, fmt).to_bytes())
        raw = np.frombuffer(texture.level_bytes(0), np.uint8)
        decode = best(lambda texture=texture: texture.decode(0))
        copy = best(lambda raw=raw: raw.copy())
        print(f"{fmt:>7} {megapixels / decode:14.1f} {megapixels / copy:12.1f} {copy / decode:12.3f} "
              f"{megapixels / encode_seconds:19.1f}")


if __name__ == "__main__":
    main()
