"""Russian interface and reports: every user-visible string of the extension's registered
classes has a translation, and the operators' reports come out in Russian when Blender's language is Russian.

The ``bpy`` wheels (4.2, 4.5, 5.0) are built without international support
(``bpy.app.build_options.international`` is False): their only interface language is ``DEFAULT`` and
``pgettext_rpt`` returns its argument. On such a build the ``russian`` fixture puts in place of
``pgettext_rpt`` the lookup a Russian Blender makes in the dictionary the extension registered (context
``*``, language ``ru_RU``); on a build with translations it sets the language itself.
"""

import re

import pytest
from fixtures import generated, non_canonical

CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def ours(blender):
    """The extension's registered classes: operators, panels, lists, menus, preferences, property groups."""
    bpy = blender.bpy
    prefix = blender.ext.__name__ + "."
    bases = [bpy.types.Operator, bpy.types.Panel, bpy.types.UIList, bpy.types.Menu, bpy.types.AddonPreferences,
             bpy.types.PropertyGroup, bpy.types.FileHandler]
    found = []
    for base in bases:
        stack = list(base.__subclasses__())
        while stack:
            cls = stack.pop()
            stack += cls.__subclasses__()
            if cls.__module__.startswith(prefix) and getattr(cls, "is_registered", True):
                found.append(cls)
    return found


def visible_strings(blender) -> set[tuple[str, str]]:
    """(translation context, text) of every label, tooltip and enum item a user can see, read from bl_rna."""
    bpy = blender.bpy
    out = set()
    for cls in ours(blender):
        rna = cls.bl_rna
        if issubclass(cls, bpy.types.Operator):  # the operator's RNA holds its properties
            module, name = cls.bl_idname.split(".")
            rna = getattr(getattr(bpy.ops, module), name).get_rna_type()
        if issubclass(cls, (bpy.types.Operator, bpy.types.Panel, bpy.types.Menu, bpy.types.FileHandler)):
            out.add((rna.translation_context, getattr(cls, "bl_label", "") or rna.name))
            if rna.description:
                out.add(("*", rna.description))
        if not issubclass(cls, (bpy.types.Operator, bpy.types.AddonPreferences, bpy.types.PropertyGroup)):
            continue  # the other types' RNA properties are Blender's own (bl_space_type, filter_name, ...)
        for prop in rna.properties:
            if prop.identifier in ("rna_type", "bl_idname") or prop.is_hidden:
                continue
            out.add((prop.translation_context, prop.name))
            if prop.description:
                out.add(("*", prop.description))
            if prop.type == "ENUM":
                for item in prop.enum_items:
                    out.add((prop.translation_context, item.name))
                    if item.description:
                        out.add(("*", item.description))
    return {(context, text) for context, text in out if text}


def test_every_visible_string_has_a_russian_translation(blender):
    translations = blender.ext.io_msh.ui.translations.translations()["ru_RU"]
    strings = visible_strings(blender)
    assert len(strings) > 80  # the import and export dialogs, the preferences, the menus
    missing = sorted(s for s in strings if s not in translations)
    assert not missing, f"no Russian for {missing}"
    # Each is Russian, unless it is a name or code that stays as it is (LOD 2, 8888, Parkan MSH).
    english = [s for s in strings if not CYRILLIC.search(translations[s]) and re.search("[a-z]{3}", s[1])
               and s[1] not in ("Parkan MSH",)]
    assert not english, english



def test_tooltips_are_one_line(blender):
    """Blender shows a tooltip's text as it is: a docstring's line break and indentation would show too."""
    broken = sorted(text for _context, text in visible_strings(blender) if "\n" in text or "  " in text)
    assert not broken, broken
    translations = blender.ext.io_msh.ui.translations.UI
    assert not [ru for ru in translations.values() if "\n" in ru or "    " in ru]


@pytest.fixture
def russian(blender, monkeypatch):
    bpy = blender.bpy
    view = bpy.context.preferences.view
    if "ru_RU" in (bpy.app.translations.locales or ()):
        old = view.language, view.use_translate_reports
        view.language, view.use_translate_reports = "ru_RU", True
        yield
        view.language, view.use_translate_reports = old
        return
    table = blender.ext.io_msh.ui.translations.translations()["ru_RU"]
    monkeypatch.setattr(blender.ext.io_msh.ui.translations, "_translate",
                        lambda english: table.get(("*", english), english))
    yield


def test_import_reports_come_out_in_russian(blender, russian, tmp_path, capfd):
    bpy = blender.bpy
    path = tmp_path / "nc.msh"
    path.write_bytes(non_canonical(generated(21, node_count=9, frame_count=25, animated=0.8, fractional=True)))
    capfd.readouterr()
    assert bpy.ops.import_scene.parkan_msh(filepath=str(path), animation="KEYS") == {"FINISHED"}
    out = capfd.readouterr()
    text = out.out + out.err
    assert "nc.msh: карта кадров не каноническая; режим «Ключи» показывает ключи" in text
    assert "Material.lib, Textures.lib и LightMap.lib не найдены" in text
    assert "nc.msh: Res8[0]: предупреждение: у дорожки узла 0 дробные времена ключей" in text
    assert "Импортировано моделей: 1, предупреждений: 16; первое: " in text
    assert "the frame map is not canonical" not in text and "Imported 1 model" not in text


def test_import_errors_come_out_in_russian(blender, russian, tmp_path):
    bpy = blender.bpy
    bad = tmp_path / "bad.msh"
    bad.write_bytes(b"garbage" * 10)
    with pytest.raises(RuntimeError, match=r"bad\.msh: NRes: ошибка: неверная сигнатура b'garb', ожидалась "
                                           r"b'NRes'"):
        bpy.ops.import_scene.parkan_msh(filepath=str(bad))
    with pytest.raises(RuntimeError, match=r"missing\.msh: не удаётся прочитать: "):
        bpy.ops.import_scene.parkan_msh(filepath=str(tmp_path / "missing.msh"))


def test_export_refusal_comes_out_in_russian(blender, russian, tmp_path):
    bpy = blender.bpy
    bpy.ops.object.empty_add()
    with pytest.raises(RuntimeError, match=r"scene: ошибка: у .Empty. нет узлов: добавьте кости или дочерние"):
        bpy.ops.export_scene.parkan_msh(filepath=str(tmp_path / "out.msh"))
    assert not (tmp_path / "out.msh").exists()


def test_english_stays_english(blender, tmp_path):
    bpy = blender.bpy
    bad = tmp_path / "bad.msh"
    bad.write_bytes(b"garbage" * 10)
    with pytest.raises(RuntimeError, match=r"bad\.msh: NRes: error: bad magic b'garb', expected b'NRes'"):
        bpy.ops.import_scene.parkan_msh(filepath=str(bad))


def test_every_report_template_translates_with_its_fields(blender, russian):
    """Each template, filled in, comes back as its own Russian with the same values (no template shadows
    another), also behind a file name."""
    module = blender.ext.io_msh.ui.translations
    for english, russian_text in module.REPORTS.items():
        fields = re.findall(r"\{(\w+)\}", english)
        values = {name: f"V{i}" for i, name in enumerate(fields)}
        assert module.report_text(english.format(**values)) == module.filled(russian_text, values), english
        assert set(re.findall(r"\{(\w+)[:}]", russian_text)) == set(fields), english  # {count:одна|две|пять}
        if english not in ("error", "warning"):
            assert CYRILLIC.search(russian_text), english


def test_export_write_errors_come_out_in_russian(blender, russian, tmp_path, sample_msh):
    """An OSError of the export's transaction: the place kept, the reason translated (a missing folder)."""
    bpy = blender.bpy
    source = tmp_path / "s.msh"
    source.write_bytes(sample_msh)
    assert bpy.ops.import_scene.parkan_msh(filepath=str(source)) == {"FINISHED"}
    target = tmp_path / "no" / "out.msh"
    with pytest.raises(RuntimeError, match=r"out\.msh: не удаётся записать: Нет такого файла или каталога "
                                           r"\(нет папки .*/no\)"):
        bpy.ops.export_scene.parkan_msh(filepath=str(target))
    assert not (tmp_path / "no").exists()


def test_the_panel_values_and_the_archive_list_header_come_out_in_russian(blender, tmp_path, sample_rlb,
                                                                         monkeypatch):
    """The texts put together at draw time (pgettext_iface, then the numbers and names put back): as a Russian
    Blender makes them, from the dictionary the extension registered."""
    table = blender.ext.io_msh.ui.translations.translations()["ru_RU"]
    lookup = lambda english: table.get(("*", english), english)  # noqa: E731
    panel = blender.ext.io_msh.ui.panel
    monkeypatch.setattr(panel, "iface", lookup)
    path = tmp_path / "sample.rlb"
    path.write_bytes(sample_rlb)
    assert blender.bpy.ops.import_scene.parkan_msh(filepath=str(path)) == {"FINISHED"}
    (root,) = [o for o in blender.bpy.data.objects if "msh_model" in o]
    facts = dict(panel.model_facts(root))
    assert facts["Slots"] == "без повреждений LOD 0" and facts["File"].endswith("(запись 0)")
    assert all(m.endswith(")") and "(строка " in m for m in panel.model_materials(root))
    assert panel.slot_text(6) == "повреждение 1 LOD 1" and panel.slot_text(4).endswith("от первого лица")
    assert lookup("Models ({} of {})").format(2, 3) == "Модели (2 из 3)"
    only = lookup("Only {} was imported").format(panel.slot_text(0))
    assert only == "Импортирован только слот «без повреждений LOD 0»"
