"""``python -m core``'s start: the parser loads no command module, and a command loads only the modules the
files it reads need (the start of ``info`` on an archive is measured by benchmarks/cli_start.py)."""

import json
import subprocess
import sys
from pathlib import Path

from core import files
from core.animation.controller.codec import CTLD_TYPE_ID
from core.cli import kinds
from core.effects.exp import EXP_TYPE_ID
from core.effects.fxid import FXID_TYPE_ID
from core.interior.bas import BAS_TYPE_ID
from core.interior.hallway import TYPE_ID as HALLWAY_TYPE_ID
from core.map.folder import TEXT_SUFFIXES
from core.model_controller import CONTROLLER_SUFFIX
from core.rsli import archive as rsli_archive

ROOT = Path(__file__).resolve().parent.parent
COMMAND_MODULES = {"core.cli.archive", "core.cli.poses", "core.cli.clips", "core.cli.unit", "core.cli.map"}


def loaded_after(code: str, prefix: str = "core") -> set[str]:
    """The modules (of core, by default) a fresh interpreter holds after running ``code``."""
    script = (f"import sys\n{code}\nnames = sorted(m for m in sys.modules if m.startswith({prefix!r}))\n"
              "import json\nprint(json.dumps(names))")
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


def test_info_of_an_archive_loads_no_map_effect_interior_or_rsli_module(tmp_path, sample_rlb):
    """Opening an archive tells a map by its type ids (core.map.kind) and checks effects, ground plans and hall
    ways only when it holds them; RsLi is told by the first bytes."""
    path = tmp_path / "sample.rlb"
    path.write_bytes(sample_rlb)
    loaded = loaded_after("import contextlib, io\nfrom core.cli.main import main\n"
                          f"with contextlib.redirect_stdout(io.StringIO()): assert main(['info', {str(path)!r}]) == 0",
                          prefix="")
    heavy = {m for m in loaded if m.startswith(("core.map.", "core.effects", "core.interior", "core.rsli",
                                                "core.cli.interior", "core.cli.effects", "core.cli.rsli",
                                                "core.msh.validate"))}
    assert heavy <= {"core.map.kind"}, sorted(heavy)
    # what only writing needs (core.disk's temporaries, journals and locks) or --json
    assert not loaded & {"socket", "tempfile", "uuid", "json"}, sorted(loaded & {"socket", "tempfile", "uuid", "json"})


def test_the_output_module_imports_no_command():
    assert not loaded_after("import core.cli.output") & (COMMAND_MODULES | {"core.cli.main", "core.cli.commands"})


def test_the_kinds_by_name_are_the_codecs():
    assert kinds.CONTROLLER_SUFFIX == CONTROLLER_SUFFIX and kinds.TEXT_MAP_SUFFIXES == TEXT_SUFFIXES
    assert kinds.is_unit_file("a/OBJECTS.RLB") and kinds.is_unit_file("x.Dat") and not kinds.is_unit_file("x.rlb")
    assert files.CTLD_TYPE_ID == CTLD_TYPE_ID  # core.files checks controllers without importing their package
    # and effects, explosions and ground plans without importing theirs; the CLI tells RsLi, fonts and interiors
    assert (files.FXID_TYPE_ID, files.EXP_TYPE_ID, files.BAS_TYPE_ID) == (FXID_TYPE_ID, EXP_TYPE_ID, BAS_TYPE_ID)
    assert (kinds.RSLI_MAGIC, kinds.BAS_TYPE_ID, kinds.HALLWAY_STREAM) == (rsli_archive.MAGIC, BAS_TYPE_ID,
                                                                         HALLWAY_TYPE_ID)
    assert kinds.is_font_file("x/ARIALTEX.TFT") and kinds.is_font_file("PAL.pal") and not kinds.is_font_file("x.rlb")


def test_rsli_is_told_by_its_first_bytes_as_core_rsli_tells_it(tmp_path):
    for name, data in {"a.rlb": rsli_archive.MAGIC + bytes(28), "b.rlb": b"NRes" + bytes(12), "c.lib": b"NL",
                       "d.lib": b""}.items():
        (tmp_path / name).write_bytes(data)
        assert kinds.is_rsli_file(tmp_path / name) == rsli_archive.is_rsli_file(tmp_path / name), name
    assert not kinds.is_rsli_file(tmp_path) and not kinds.is_rsli_file(tmp_path / "missing.rlb")
