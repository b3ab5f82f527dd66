"""What a scene shows of a model's effects: each controller record that attaches an effect (or explodes a node),
with the effect's (or explosion's) parameters when its archive is found next to the model, in its parent
folders or in the game folders given. Plain data for the Blender importer; nothing here is written back."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..animation.controller.codec import read_controller
from ..disk import names_in, read_input
from ..errors import FormatError
from .attach import EXPLODE_NODE, Attachment, attachments_of
from .exp import read_exp
from .fxid import read_fxid
from .library import Archives, Loader


@dataclass
class PlacedEffect:
    attachment: Attachment
    params: dict | None      # the FXID's summary (an explosion's, for action 27); None when not found or unreadable
    problem: str = ""        # why there are no parameters

    file: str = ""           # the archive file the named member was found in

    @property
    def reference(self) -> str:
        return f"{self.attachment.archive}/{self.attachment.member}"


class NearbyFiles:
    """A loader: a file name (any case) -> its bytes from the first of the folder of ``path``, its parents and
    ``folders``; ``found`` keeps where each name was found (by its lower-case form)."""

    def __init__(self, path: str | Path, folders: list[str | Path] = ()) -> None:
        start = Path(path).resolve().parent
        self.search = [start, *start.parents, *(Path(f) for f in folders if str(f))]
        self.found: dict[str, Path] = {}

    def __call__(self, name: str) -> bytes | None:
        for folder in self.search:
            try:
                found = names_in(folder).get(name.lower())
            except OSError:
                continue
            if found is not None and (folder / found).is_file():
                try:
                    data = read_input(folder / found)
                except OSError:
                    return None
                self.found[name.lower()] = folder / found
                return data
        return None

    def file_of(self, name: str) -> str:
        path = self.found.get(name.lower())
        return "" if path is None else str(path)


def nearby_loader(path: str | Path, folders: list[str | Path] = ()) -> NearbyFiles:
    return NearbyFiles(path, folders)


def placed_effects(controller: bytes | memoryview, source: str, load: Loader) -> list[PlacedEffect]:
    """Every effect the controller's groups attach; FormatError only when the controller does not read."""
    groups = read_controller(controller, source)[0].groups
    archives = Archives(load)
    out = []
    for attachment in attachments_of(groups):
        entry = archives.entry(attachment.archive, attachment.member) if attachment.member else None
        if entry is None:
            out.append(PlacedEffect(attachment, None, f"{attachment.archive}/{attachment.member} was not found"))
            continue
        try:
            if attachment.action == EXPLODE_NODE:
                params = read_exp(entry.data, attachment.member)[0].summary()
            else:
                params = read_fxid(entry.data, attachment.member)[0].summary()
        except FormatError as exc:
            out.append(PlacedEffect(attachment, None, exc.describe()))
            continue
        out.append(PlacedEffect(attachment, params, file=_file_of(load, attachment.archive)))
    return out


def _file_of(load: Loader, archive: str) -> str:
    return load.file_of(archive) if isinstance(load, NearbyFiles) else ""


def explosion_params(archives: Archives, archive: str, member: str) -> tuple[dict | None, str]:
    """A damage row's (or record's) explosion, summarised: (its fields and slots, "") or (None, why not)."""
    entry = archives.entry(archive, member) if member else None
    if entry is None:
        return None, f"{archive}/{member} was not found"
    try:
        return read_exp(entry.data, member)[0].summary(), ""
    except FormatError as exc:
        return None, exc.describe()
