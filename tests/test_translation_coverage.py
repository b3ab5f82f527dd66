"""Every word in Russian: every report the operators can give and every label drawn by
name has a Russian entry, found by reading the code (tests/report_templates.py), not by a run, so a message no
run happens to show is checked too; and the Russian keeps to the glossary (one name for one thing).
"""

import re

import pytest
import report_templates as T
from test_translations import russian  # noqa: F401 (a fixture)

CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def test_every_report_template_in_the_code_has_a_russian_entry(blender):
    reports = blender.ext.io_msh.ui.translations.REPORTS
    found = T.templates()
    missing = T.missing(found, reports)
    listed = "\n".join(f"  {t.file}:{t.line}: {t.shown}" for t in missing)
    assert not missing, (f"{len(missing)} of {len(found)} report templates have no entry in "
                         f"io_msh/ui/translations.py REPORTS (add the English template, with {{fields}} for the "
                         f"values, and its Russian):\n{listed}")


def test_the_scan_finds_each_kind_of_report():
    """The scan itself: each place a report is made from is read (so a quiet scan is no empty one)."""
    shown = {t.shown for t in T.templates()}
    assert len(shown) > 250
    for text in ("Wrote {…}: {…} part(s) changed, {…} moved to another socket",   # report(self, ...)
                 "export check: {…} refusal(s), {…} warning(s)",                   # report(self, ...) in the panel
                 "no unit to export: import one with File > Import > Parkan Unit",  # FormatError.single
                 "material {…} is not in {…}; the game uses {…}",                  # returned beside a value
                 "Material.lib, Textures.lib and LightMap.lib were not found next to the file, in its parent "
                 "folders or in the game folder: materials are placeholders",      # look_warnings.append
                 "no state is an anchor: nothing plans, no clip plays",            # warning(...)
                 "label length {…}"):                                              # FormatError.single in core
        assert text in shown, text


def test_a_template_without_an_entry_is_named_with_its_place():
    found = [T.Template(f"a new message about {T.WILD} nodes", "io_msh/x.py", 7),
             T.Template(f"{T.WILD}: cannot read: {T.WILD}", "io_msh/y.py", 9)]
    missing = T.missing(found, {"{path}: cannot read: {reason}": "{path}: не удаётся прочитать: {reason}"})
    assert [(t.file, t.line, t.shown) for t in missing] == [("io_msh/x.py", 7, "a new message about {…} nodes")]


def test_slot_names_and_lists_of_them_come_out_in_russian(blender, monkeypatch):
    """The slot refusal names slots (core.msh.streams.slot_label) and lists them: each name in Russian."""
    module = blender.ext.io_msh.ui.translations
    table = module.translations()["ru_RU"]
    monkeypatch.setattr(module, "_translate", lambda english: table.get(("*", english), english))
    message = ("m.msh: slots[-]: error: the model has no geometry for intact first-person (Damage Stage 0, LOD "
               "First-Person); it has intact LOD 0, damage 1 LOD 1: choose one of these")
    text = module.report_text(message)
    assert text == ("m.msh: slots[-]: ошибка: у модели нет геометрии для слота «без повреждений от первого лица» "
                    "(стадия повреждения 0, LOD «от первого лица»); есть: без повреждений LOD 0, повреждение 1 LOD 1: "
                    "выберите одно из них"), text
    assert not re.search("intact|damage|first|First", text)


def test_every_label_drawn_by_name_has_a_russian_entry(blender):
    """Menu entries, panel headers, buttons and the texts put together at draw time (bl_rna's strings are
    test_translations.py's)."""
    ui = blender.ext.io_msh.ui.translations.UI
    labels = T.drawn_labels()
    shown = {t.text for t in labels}
    assert {"Parkan Unit (.dat)", "Materials", "Transform", "Files", "All", "Show Game Pose"} <= shown
    missing = [f"  {t.file}:{t.line}: {t.text}" for t in labels if t.text not in ui]
    assert not missing, "no entry in io_msh/ui/translations.py UI for:\n" + "\n".join(missing)


def test_the_russian_keeps_to_the_glossary(blender):
    """No Russian text uses a variant the glossary set aside (e.g. «Вид из кабины» where the panel says «от
    первого лица», «ключуется», «батч», "юнита Parkan")."""
    module = blender.ext.io_msh.ui.translations
    texts = {**module.UI, **module.REPORTS}
    found = [(english, text, pattern) for _term, _ru, avoided in module.GLOSSARY for pattern in avoided
             for english, text in texts.items() if re.search(pattern, text)]
    assert not found, "\n".join(f"  {r!r} (for {e!r}) matches {p!r}" for e, r, p in found)


def test_the_unit_reports_come_out_in_russian(blender, russian, tmp_path, capfd):  # noqa: F811
    """A run of Import Unit and Export Unit in Russian: the count, the part warnings, the write, the refusal."""
    from unit_fixtures import write_game

    from core.authoring import units

    bpy = blender.bpy
    with pytest.raises(RuntimeError, match="scene: ошибка: нет юнита для экспорта: импортируйте его через Файл > "
                                           "Импорт > Юнит «Паркана»"):
        bpy.ops.export_scene.parkan_unit(filepath=str(tmp_path / "none.dat"))
    write_game(tmp_path)
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_unit(filepath=str(tmp_path / units.UNIT_DAT)) == {"FINISHED"}
    assert bpy.ops.export_scene.parkan_unit(filepath=str(tmp_path / "out.dat")) == {"FINISHED"}
    out = capfd.readouterr()
    text = out.out + out.err
    assert "Импортировано частей synth_unit.dat: " in text
    assert "Material.lib, Textures.lib и LightMap.lib не найдены" in text
    assert "out.dat: изменено частей: 0, перенесено на другое гнездо: 0" in text
    assert "Imported" not in text and "Wrote" not in text and "were not found" not in text
