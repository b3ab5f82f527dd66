"""``python -m core``'s start: the parser loads no command module, and a command loads only the modules the
files it reads need (the start of ``info`` on an archive is measured by benchmarks/cli_start.py)."""

import json
import subprocess
import sys
from pathlib import Path

from core import files
from core.animation.controller.codec import CTLD_TYPE_ID
from core.cli import kinds
from core.map.folder import TEXT_SUFFIXES
from core.model_controller import CONTROLLER_SUFFIX

ROOT = Path(__file__).resolve().parent.parent
COMMAND_MODULES = {"core.cli.archive", "core.cli.poses", "core.cli.clips", "core.cli.unit", "core.cli.map"}


def loaded_after(code: str) -> set[str]:
    """The core modules a fresh interpreter holds after running ``code``."""
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('core'))))"
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_the_parser_loads_no_command_module():
    loaded = loaded_after("from core.cli.main import build_parser; build_parser().parse_args(['info', 'x'])")
    assert not loaded & COMMAND_MODULES


def test_info_of_an_archive_loads_neither_the_unit_map_clip_nor_write_modules(tmp_path, sample_rlb):
    path = tmp_path / "sample.rlb"
    path.write_bytes(sample_rlb)
    loaded = loaded_after("import contextlib, io\nfrom core.cli.main import main\n"
                          f"with contextlib.redirect_stdout(io.StringIO()): assert main(['info', {str(path)!r}]) == 0")
    assert "core.cli.archive" in loaded
    assert not loaded & {"core.cli.poses", "core.cli.clips", "core.cli.unit", "core.cli.map", "core.write_path",
                         "core.unit.resolve", "core.animation.controller", "core.animation.sampler"}


def test_the_output_module_imports_no_command():
    assert not loaded_after("import core.cli.output") & (COMMAND_MODULES | {"core.cli.main", "core.cli.commands"})


def test_the_kinds_by_name_are_the_codecs():
    assert kinds.CONTROLLER_SUFFIX == CONTROLLER_SUFFIX and kinds.TEXT_MAP_SUFFIXES == TEXT_SUFFIXES
    assert kinds.is_unit_file("a/OBJECTS.RLB") and kinds.is_unit_file("x.Dat") and not kinds.is_unit_file("x.rlb")
    assert files.CTLD_TYPE_ID == CTLD_TYPE_ID  # core.files checks controllers without importing their package
