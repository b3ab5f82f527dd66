"""The synthetic units of core.authoring.units, written into a game folder, and helpers for the unit tests."""

from pathlib import Path

from core.authoring.units import unit_files


def write_game(folder: Path, files: dict[str, bytes] | None = None) -> Path:
    for name, data in (files or unit_files()).items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


def loader(files: dict[str, bytes]):
    """A core.unit.resolve loader over an in-memory folder (names case-insensitive)."""
    by_name = {name.lower(): data for name, data in files.items()}
    return lambda name: by_name.get(name.replace("\\", "/").lower())
