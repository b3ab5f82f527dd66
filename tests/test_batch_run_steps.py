"""A batch run's fixed cost and its steps: the run's own process never loads Blender (only its workers do),
the workers are started once for the whole run (a library's previews and the library; thumbnails and their
contact sheet), and a library imports its assets one by one into its file, every step printed."""

import re
import subprocess
import sys

from test_asset_library import assets
from test_batch import BATCH, ROOT, batch

from core.authoring import game
from core.authoring.build import build_model
from core.authoring.synth import random_model

NO_BLENDER_HERE = """
import runpy, sys
class NoBlender:
    def find_spec(self, name, path=None, target=None):
        if name == "bpy" or name.startswith("bpy."):
            raise ImportError("the run's process loaded Blender")
        return None
sys.meta_path.insert(0, NoBlender())
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def processes(result) -> int:
    return int(re.search(r"(\d+) Blender process", result.stdout).group(1))


def test_the_runs_own_process_never_loads_blender(tmp_path):
    source = tmp_path / "in" / "one.msh"
    source.parent.mkdir()
    source.write_bytes(build_model(random_model(5, node_count=3, frame_count=10)).to_bytes())
    for command in (["convert", str(source.parent), "-o", str(tmp_path / "out"), "--format", "blend"],
                    ["thumbnails", str(source.parent), "-o", str(tmp_path / "pictures"), "--size", "16"]):
        result = subprocess.run([sys.executable, "-c", NO_BLENDER_HERE, str(BATCH), *command], capture_output=True,
                                text=True, timeout=300, cwd=ROOT)
        assert result.returncode == 0, result.stdout + result.stderr
        assert ", 1 Blender process," in result.stdout, result.stdout
    assert (tmp_path / "out" / "one.blend").is_file() and (tmp_path / "pictures" / "contact_sheet.png").is_file()


def test_a_library_imports_its_assets_one_by_one_in_the_workers_started_once(blender, tmp_path):
    folder = game.write_game(tmp_path / "game", models=10, unit_count=1)  # 21 assets: the 10 parts, 10 props, 1
    library = tmp_path / "lib" / "Parkan.blend"
    result = batch("library", str(folder), "-o", str(library), "--jobs", "1", "--size", "16")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # 21 previews -> the library, its assets imported one by one; each step's end printed, then the tail
    assert sum(": preview made (" in line for line in lines if line.startswith("[")) == 21, result.stdout
    at = next(n for n, line in enumerate(lines) if line.startswith("library: putting 21 assets together in "))
    made = [line.split(" ")[1] for line in lines[at + 1:] if line.endswith(" s)") and ": asset made (" in line]
    assert made == [f"{n}/21" for n in range(1, 22)], result.stdout
    assert processes(result) == 1, result.stdout  # the assets, the bundles and the library: one worker
    assert len(assets(blender.bpy, library)) == 21
    # again with one model changed: the old library's index, the asset, the library: still one worker
    archive = game.model_archive(0, game.MODELS_PER_ARCHIVE)
    archive.entries[0].data = game.model_archive(500, 1).entries[0].data
    (folder / "MODELS" / "props_00.rlb").write_bytes(archive.to_bytes())
    result = batch("library", str(folder), "-o", str(library), "--jobs", "2", "--size", "16")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 made, 20 unchanged" in result.stdout and processes(result) == 1, result.stdout
    assert len(assets(blender.bpy, library)) == 21
