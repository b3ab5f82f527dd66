"""Russian reports a modder meets in the first hour: a map imported without its game's files, slot names inside
a Russian line, counts with the Russian plural forms."""

import re
from pathlib import Path

from map_fixtures import write_sample
from test_translations import russian  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parent.parent
LATIN_WORDS = re.compile(r"\b(?!(?:LOD|MSH|Land|data|tma|objects|rlb|msh|dat|lib|Ctrl)\b)[A-Za-z]{3,}\b")


def english_words(line: str) -> list[str]:
    """The Latin words of a report line, but file names, paths, names in quotes and places (a stream and its
    index before ': ')."""
    line = re.sub(r"(?:/|[A-Za-z]:\\)\S*|«[^»]*»|'[^']*'|\S+\.(?:msh|tma|rlb|dat|lib|map|wea)\b"
                  r"|\b[a-z_]+(?:\[[^\]]*\])?: ", " ", line)
    return LATIN_WORDS.findall(line)


def test_the_sample_missions_import_reports_come_out_in_russian(blender, russian, tmp_path, capfd):  # noqa: F811
    """The mission without its game (no objects.rlb, no unit files): every line Russian."""
    bpy = blender.bpy
    game = write_sample(tmp_path / "game")  # the map and mission alone (samples/maps holds their game too)
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_map(filepath=str(game / "MISSIONS" / "SAMPLE" / "data.tma")) == {"FINISHED"}
    out = capfd.readouterr()
    lines = [line for line in (out.out + out.err).splitlines() if line.startswith(("Info", "Warning", "Error"))]
    assert lines
    english = [(line, english_words(line.split(": ", 1)[1])) for line in lines]
    assert not [e for e in english if e[1]], english


def test_the_slots_a_model_has_are_named_in_russian(blender, russian):  # noqa: F811
    """A slot the tower lacks: the refusal lists the slots it has with the panel's words, not 'Damage Stage 2,
    LOD 3' inside a Russian line."""
    import pytest

    bpy = blender.bpy
    with pytest.raises(RuntimeError) as caught:
        bpy.ops.import_scene.parkan_msh(filepath=str(ROOT / "samples" / "tower.rlb"), stage=2, lod="3")
    text = str(caught.value)
    assert "у модели нет геометрии для слота «повреждение 2 LOD 3» (стадия повреждения 2, LOD 3); есть: " in text
    assert "стадия повреждения 0 (LOD 0, 1, «от первого лица»)" in text
    assert not english_words(text.split(": ", 1)[1]), text


def test_counts_take_the_russian_plural_forms(blender, russian):  # noqa: F811
    """'в архиве 2 модели', not '2 моделей': one, few and many forms by the number (11 to 14 take many)."""
    module = blender.ext.io_msh.ui.translations
    expected = {"1": "1 модель", "2": "2 модели", "4": "4 модели", "5": "5 моделей", "11": "11 моделей",
                "12": "12 моделей", "21": "21 модель", "22": "22 модели", "111": "111 моделей", "1,001": "1,001 модель"}
    for count, words in expected.items():
        text = module.report_text(f"x.rlb: archive holds {count} models (a, b); choose one with --entry")
        assert text == f"x.rlb: в архиве {words} (a, b); выберите одну через --entry", text
    assert module.report_text(".ndp: 3 rows for a model of 1 nodes") == ".ndp: 3 строки на модель из 1 узла"
    assert module.report_text(".ndp: 25 rows for a model of 22 nodes") == ".ndp: 25 строк на модель из 22 узлов"
    assert module.report_text("x: 2 bytes, more than the 10 a game file can be").startswith("x: 2 байта, больше")


# nouns in the form a number chooses: after a bare count field they would be wrong for some numbers
COUNTED = re.compile(r"\{(?!name\})\w+\} (?:моделей|байт|узлов|записей|строк|вершин|имён|дорожек|флагов|треугольников|"
                     r"прямоугольников|индексов|контактов|квадратов|ячеек|граней|высотах|записях|уровней|"
                     r"узло-кадрах|перенаправлений|состояниям|каналах|кадров|ключей|кадрах)\b")


def test_no_russian_template_puts_a_bare_count_before_its_noun(blender):
    reports = blender.ext.io_msh.ui.translations.REPORTS
    bare = [text for text in reports.values() if COUNTED.search(text)]
    assert not bare, bare
