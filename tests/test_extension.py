"""The repository is a valid Blender extension, checked with Blender's own tool from the bpy wheel."""

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def blender_ext_tool() -> Path:
    spec = importlib.util.find_spec("bpy")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("the bpy wheel is not installed in this environment (run scripts/setup.sh)")
    base = Path(next(iter(spec.submodule_search_locations)))
    tools = sorted(base.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
    assert tools, f"no blender_ext.py under {base}"
    return tools[-1]


def test_manifest_validates_with_blender_ext():
    result = subprocess.run([sys.executable, str(blender_ext_tool()), "validate", str(ROOT)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success" in result.stdout


def test_extension_package_registers_and_unregisters_in_blender(tmp_path):
    script = textwrap.dedent(f"""
        import importlib.util, os, sys
        os.environ["BLENDER_USER_RESOURCES"] = {str(tmp_path)!r}
        import bpy
        spec = importlib.util.spec_from_file_location(
            "io_msh_extension", {str(ROOT / "__init__.py")!r}, submodule_search_locations=[{str(ROOT)!r}])
        ext = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = ext
        spec.loader.exec_module(ext)
        ext.register()
        ext.unregister()
        print("registered and unregistered with Blender", bpy.app.version_string)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "registered and unregistered" in result.stdout


def test_manifest_licence_is_the_license_file_and_names_no_placeholder():
    import tomllib

    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    assert manifest["license"] == ["SPDX:GPL-3.0-or-later"]
    text = (ROOT / "LICENSE").read_text()
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 3, 29 June 2007" in text
    assert "example" not in manifest.get("website", "")
