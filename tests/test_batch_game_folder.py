"""The batch tool on a game folder: archives that hold no model (the game's objects.rlb) are
skipped with a line, as ``textures`` skips libraries without textures; named on the command line, such an
archive is still a failed item."""

from fixtures import static_model
from test_batch import batch, progress

from core.authoring import units


def test_convert_of_a_game_folder_skips_the_archives_without_models(tmp_path):
    game = tmp_path / "game"
    game.mkdir()
    (game / units.OBJECTS).write_bytes(units.objects_archive().to_bytes())
    (game / "tank.msh").write_bytes(static_model(2))
    out = tmp_path / "out"
    result = batch("convert", str(game), "-o", str(out), "--format", "blend")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"skipped {game / units.OBJECTS}: the archive holds no model" in result.stdout
    assert progress(result) == ({str(game / "tank.msh")}, set())
    assert "1 of 1 converted, 0 failed" in result.stdout
    assert sorted(p.name for p in out.glob("*.blend")) == ["tank.blend"]
    named = batch("convert", str(game / units.OBJECTS), "-o", str(out), "--format", "blend")
    assert named.returncode == 1 and f"{game / units.OBJECTS}: the archive holds no model" in named.stdout
