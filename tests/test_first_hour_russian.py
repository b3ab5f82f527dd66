"""The Russian a modder reads: the panel's labels, file names kept in tooltips, one quote style per text, and
README.ru and the Russian manual naming each thing of the interface with the word the interface uses."""

import re
from pathlib import Path

from test_translations import ours

ROOT = Path(__file__).resolve().parent.parent
README_RU = ROOT / "README.ru.md"
RUSSIAN_DOCS = [README_RU, *sorted((ROOT / "docs" / "manual" / "ru").glob("*.md"))]
FILE_NAME = re.compile(r"[\w.<>-]*\w\.(?:blend|lib|msh|rlb|dat|ctl|wea|tma|map|png|glb|fbx)\b")
CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def russian_docs() -> str:
    return "\n\n".join(path.read_text(encoding="utf-8") for path in RUSSIAN_DOCS)


def readme_text() -> str:
    """README.ru and the Russian manual as one line per paragraph (a name may be wrapped), code spans left out."""
    text = russian_docs()
    text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)
    return re.sub(r"`[^`\n]*`", "`…`", re.sub(r"[ \t]*\n[ \t]*(?=\S)(?![-|#*\d])", " ", text))


def test_the_panel_labels_a_modder_reads(blender):
    ui = blender.ext.io_msh.ui.translations.UI
    assert ui["Live"] == "На лету"
    assert ui["Game Pose"] == "Игровая поза"
    assert ui["Show Game Pose"] == "Показать игровую позу" and ui["Hide Game Pose"] == "Скрыть игровую позу"
    assert ui["FP"] == "От 1-го лица"


def test_a_tooltip_keeps_the_file_names_it_gives(blender):
    """The asset library's default, Parkan asset library/Parkan.blend, is named in Russian too."""
    module = blender.ext.io_msh.ui.translations
    lost = [(english, name) for table in (module.UI, module.REPORTS) for english, russian in table.items()
            for name in FILE_NAME.findall(english) if name not in russian]
    assert not lost, lost
    library = module.UI["The library .blend to write (empty: Parkan asset library/Parkan.blend in the game folder)"]
    assert "Parkan asset library/Parkan.blend" in library


def test_a_russian_text_quotes_in_one_style(blender):
    """A text that quotes with «» uses no ASCII quotes beside them."""
    module = blender.ext.io_msh.ui.translations
    mixed = [russian for table in (module.UI, module.REPORTS) for russian in table.values()
             if "«" in russian and re.search("[\"']", russian)]
    assert not mixed, mixed
    lines = [line for line in readme_text().splitlines() if "«" in line and re.search(r"(?<!\w)\"|\"(?!\w)", line)]
    assert not lines, lines


def test_readme_ru_names_each_option_as_the_interface_does(blender):
    """Each '*Русское* (English)' of README.ru is the interface's translation of that English name, and each
    '«Русское» (`IDENTIFIER`)' is the translation of that enum item's name."""
    bpy = blender.bpy
    ui = blender.ext.io_msh.ui.translations.UI
    text = readme_text()
    named = re.findall(r"\*([^*\n]+?)\* \(([A-Z][^()`;:,\n]*?)[;:,)]", text)
    assert len(named) > 20
    wrong = [(russian, english, ui.get(english)) for russian, english in named
             if ui.get(english, "").lower() != russian.lower()]
    assert not wrong, wrong
    items = {}
    for cls in ours(blender):
        if issubclass(cls, bpy.types.Operator):
            module, name = cls.bl_idname.split(".")
            for prop in getattr(getattr(bpy.ops, module), name).get_rna_type().properties:
                if prop.type == "ENUM":
                    for item in prop.enum_items:
                        items.setdefault(item.identifier, set()).add(item.name)
    enums = re.findall(r"«([^»]+)» \(`([A-Z_]+)`", russian_docs())
    assert len(enums) > 8
    wrong = [(russian, identifier) for russian, identifier in enums
             if identifier in items and russian.lower() not in {ui.get(n, n).lower() for n in items[identifier]}]
    assert not wrong, wrong


def test_readme_ru_names_the_menu_entries_as_the_interface_does(blender):
    ui = {v.lower() for v in blender.ext.io_msh.ui.translations.UI.values()}
    entries = re.findall(r"Файл > (?:Импорт|Экспорт) > ([^*\n]+?)\*", readme_text())
    assert len(entries) > 5
    wrong = [e for e in entries if not any(v.startswith(e.strip().lower()) for v in ui)]
    assert not wrong, wrong


def test_readme_ru_keeps_to_the_glossary(blender):
    """The variants the glossary sets aside (Russian ones: «шкала времени», «лента», «фонарь», «Преобразование»)
    appear nowhere in README.ru either."""
    glossary = blender.ext.io_msh.ui.translations.GLOSSARY
    text = russian_docs()
    found = [(pattern, m.group(0)) for _en, _ru, avoided in glossary for pattern in avoided
             if CYRILLIC.search(pattern) for m in re.finditer(pattern, text)]
    assert not found, found
