"""``batch textures`` renders each font's atlas as a PNG (drawn through the PAL.PAL beside it), and each picture
of an RsLi archive (the sprites), as it does a library's textures; a font without the palette it needs is a
failed item naming the file and the entry."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

from core.authoring.fonts import sample_font
from core.container.nres import Archive
from core.fonts.pictures import picture_rgba, pictures_in

ROOT = Path(__file__).resolve().parent.parent
BATCH = ROOT / "io_msh" / "batch" / "__main__.py"
SAMPLES = ROOT / "samples" / "rsli"


def batch(*args, timeout=300):
    result = subprocess.run([sys.executable, str(BATCH), *map(str, args)], capture_output=True, text=True,
                            timeout=timeout, cwd=ROOT, env=dict(os.environ))
    assert "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def test_batch_textures_renders_font_atlases_and_sprites(tmp_path):
    game = tmp_path / "game"
    shutil.copytree(SAMPLES, game)
    alone = Archive()
    alone.add("GF_640.TFT", sample_font(2), int.from_bytes(b"Tfnt", "little"))  # no PAL.PAL beside it
    (game / "font.lib").write_bytes(alone.to_bytes())
    out = tmp_path / "out"
    result = batch("textures", game, "-o", out, "--jobs", 2)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{game / 'font.lib'}:GF_640.TFT: Tfnt: error: the atlas (format 2)" in result.stdout + result.stderr
    for archive, name in (("gamefont", "ARIALTEX.TFT"), ("sprites", "COCKPIT.TEX"), ("sprites", "LOGO.TEX"),
                          ("sprites", "INTERF1.TEX")):
        data = (SAMPLES / f"{archive}.{'rlb' if archive == 'gamefont' else 'lib'}").read_bytes()
        index = next(p.index for p in pictures_in(data) if p.name == name)
        shown = np.asarray(Image.open(out / archive / f"{name}.png").convert("RGBA"))
        assert np.array_equal(shown, picture_rgba(data, index)), name
    assert sorted(p.name for p in (out / "gamefont").iterdir()) == ["ARIALTEX.TFT.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game", "out"]


def test_batch_skips_rsli_archives_found_in_a_folder_and_names_one_given(tmp_path):
    """A game folder holds gamefont.rlb, which is no NRes: a model command skips it with a note (it failed on it),
    and names it when it is given on the command line."""
    game = tmp_path / "game"
    shutil.copytree(SAMPLES, game)
    shutil.copy(ROOT / "samples" / "sample.msh", game / "sample.msh")
    result = batch("import", game, "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"skipped {game / 'gamefont.rlb'}: an RsLi archive holds no model" in result.stdout  # .lib: not scanned
    assert (tmp_path / "out" / "sample.blend").is_file()
    named = batch("import", game / "gamefont.rlb", "-o", tmp_path / "named")
    assert named.returncode == 1 and f"{game / 'gamefont.rlb'}: an RsLi archive holds no model" in named.stdout
