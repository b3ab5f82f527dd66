"""Regenerate the bundled sample deterministically: samples/sample.msh, sample.rlb and the game libraries."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.authoring.build import build_model  # noqa: E402
from core.authoring.synth import sample_archive, sample_libraries, sample_model  # noqa: E402


def main() -> None:
    model = build_model(sample_model()).to_bytes()
    out = ROOT / "samples"
    out.mkdir(exist_ok=True)
    (out / "sample.msh").write_bytes(model)
    (out / "sample.rlb").write_bytes(sample_archive(model).to_bytes())
    for name, archive in sample_libraries().items():
        (out / name).write_bytes(archive.to_bytes())
    print(f"wrote {out / 'sample.msh'} ({len(model)} bytes), {out / 'sample.rlb'} and the libraries "
          f"{', '.join(sample_libraries())}")


if __name__ == "__main__":
    main()
