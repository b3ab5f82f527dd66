"""Build the installable extension zip with Blender's own extension tool (from the bpy wheel).

    .venv/bin/python scripts/build_extension.py [-o dist]

Validates the manifest, builds ``dist/io_msh-<version>.zip`` and checks that
the zip holds only what the extension needs (no tests, venvs or scripts).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = ("tests/", "scripts/", "benchmarks/", "samples/", ".venv", ".ci/", ".git/", "__pycache__", "out/")
REQUIRED = ("blender_manifest.toml", "LICENSE", "__init__.py", "io_msh/__init__.py", "core/__init__.py")


def blender_ext_tool() -> Path:
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("build_extension: the bpy wheel is not installed here (run scripts/setup.sh)")
    tools = sorted(Path(next(iter(spec.submodule_search_locations))).glob(
        "*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    if not tools:
        raise SystemExit("build_extension: blender_ext.py not found in the bpy wheel")
    return tools[-1]


def build(output_dir: Path) -> Path:
    tool = blender_ext_tool()
    subprocess.run([sys.executable, str(tool), "validate", str(ROOT)], check=True)
    output_dir.mkdir(parents=True, exist_ok=True)
    before = set(output_dir.glob("*.zip"))
    subprocess.run([sys.executable, str(tool), "build", "--source-dir", str(ROOT), "--output-dir", str(output_dir)],
                   check=True)
    built = sorted(set(output_dir.glob("*.zip")) - before) or sorted(output_dir.glob("io_msh-*.zip"))
    package = built[-1]
    names = zipfile.ZipFile(package).namelist()
    bad = [n for n in names if n.startswith(".") or any(part in n for part in FORBIDDEN)]
    missing = [n for n in REQUIRED if n not in names]
    if bad or missing:
        raise SystemExit(f"build_extension: {package} holds {bad[:5]} / lacks {missing}")
    return package


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output-dir", default=str(ROOT / "dist"))
    args = parser.parse_args()
    package = build(Path(args.output_dir))
    names = zipfile.ZipFile(package).namelist()
    print(f"built {package} ({package.stat().st_size} bytes, {len(names)} files)")


if __name__ == "__main__":
    main()
