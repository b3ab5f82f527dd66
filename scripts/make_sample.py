"""Regenerate the bundled sample deterministically: samples/sample.msh, sample.rlb, the game libraries and the
sample map with its mission (samples/maps)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from core.authoring.build import build_model  # noqa: E402
from core.authoring.maps import sample_map_files  # noqa: E402
from core.authoring.synth import sample_archive, sample_libraries, sample_model  # noqa: E402


def main() -> None:
    model = build_model(sample_model()).to_bytes()
    out = ROOT / "samples"
    out.mkdir(exist_ok=True)
    (out / "sample.msh").write_bytes(model)
    (out / "sample.rlb").write_bytes(sample_archive(model).to_bytes())
    for name, archive in sample_libraries().items():
        (out / name).write_bytes(archive.to_bytes())
    for relative, data in sample_map_files().items():  # a map and a mission naming it (samples/maps)
        target = out / "maps" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    print(f"wrote {out / 'sample.msh'} ({len(model)} bytes), {out / 'sample.rlb'} and the libraries "
          f"{', '.join(sample_libraries())}")


if __name__ == "__main__":
    main()
