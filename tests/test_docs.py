"""The project stands alone: the README, its Russian version and docs/ cite nothing a user
does not have, say how to install without building, and state the skinning rule the code follows."""

import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "README.ru.md", *sorted((ROOT / "docs").rglob("*.md"))]
SPECS = ("msh-core.md", "msh-animation.md", "nres.md", "materials-texm.md")
SPEC_LINK = "https://github.com/valentineus/fparkan/blob/HEAD/docs/specs/{}"


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_no_private_references(path):
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"\bdigest\b", text, re.IGNORECASE), "the digest is not public"
    assert not re.search(r"\bfacts? \d", text), "a 'fact N' names the private digest"
    assert "shared/spec" not in text and "units-clips-digest" not in text
    for spec in SPECS:  # a format document is named only where the file links it
        if re.search(rf"(?<![/\w-]){re.escape(spec)}", text):
            assert SPEC_LINK.format(spec) in text, spec


def test_format_notes_link_every_format_document():
    text = (ROOT / "docs" / "formats" / "index.md").read_text(encoding="utf-8")
    for spec in SPECS:
        assert SPEC_LINK.format(spec) in text


def test_readme_says_how_to_install_without_building():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "~/.config/blender/4.2/extensions/user_default/io_msh" in text
    assert "Library/Application\\ Support/Blender/4.2/extensions/user_default/io_msh" in text
    assert "%APPDATA%\\Blender Foundation\\Blender\\4.2\\extensions\\user_default\\io_msh" in text
    assert "blender --command extension build" in text
    assert "[README.ru.md](README.ru.md)" in text


def test_russian_readme_has_the_user_sections():
    assert "## Установка в Blender" in (ROOT / "README.ru.md").read_text(encoding="utf-8")
    assert "## Что остаётся на английском" in (ROOT / "README.ru.md").read_text(encoding="utf-8")
    manual = ROOT / "docs" / "manual" / "ru"
    for page, heading in (("import", "# Импорт модели"), ("editing-animation", "# Правка анимации"),
                          ("batch", "# Пакетная обработка"), ("cli", "# Командная строка (`core`)"),
                          ("bad-file", "# Что происходит с плохим файлом")):
        assert (manual / f"{page}.md").read_text(encoding="utf-8").startswith(heading + "\n"), page


RULE = ("each vertex goes to the bone of its largest\n   weight, and each triangle to the bone two of its corners "
        "share, else to\n   its first corner's")


def test_readme_skinning_rule_is_the_codes(blender):
    assert RULE in (ROOT / "docs" / "manual" / "editing-animation.md").read_text(encoding="utf-8")
    animation = (ROOT / "docs" / "formats" / "animation.md").read_text(encoding="utf-8")
    assert "two\n  of its corners share, else to its first corner's" in animation
    skin = blender.ext.io_msh.exp.skin
    # Corners' bones (from each vertex's largest weight) -> the triangle's bone.
    corners = np.array([[7, 8, 8], [7, 8, 9], [7, 7, 8], [7, 8, 7], [9, 9, 9]])
    split = {"vertices": np.arange(15), "triangles": np.arange(15).reshape(5, 3),
             "positions": np.zeros((15, 3)), "normals": np.zeros((15, 3)), "uvs": np.zeros((15, 2))}
    parts = skin.rigid_parts(split, corners.reshape(-1))
    chosen = {node: np.flatnonzero(mask).tolist() for node, _part, mask in parts}
    assert chosen == {7: [1, 2, 3], 8: [0], 9: [4]}
