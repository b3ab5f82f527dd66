"""What every operator module registers alike: its classes, its File > Import / Export menu entries, and the
file handlers that take a file dropped onto Blender."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import bpy
from bpy_extras.io_utils import poll_file_object_drop


class DropFileHandler:
    """Mixin of the add-on's ``bpy.types.FileHandler`` classes: a file dropped onto the 3D Viewport or the
    Outliner is taken, as Blender's own importers take theirs."""

    @classmethod
    def poll_drop(cls, context) -> bool:
        return poll_file_object_drop(context)


def register(classes: Sequence[type], imports: Sequence[Callable] = (), exports: Sequence[Callable] = ()) -> None:
    """Register ``classes`` in order, then add the ``imports`` and ``exports`` menu entries."""
    for cls in classes:
        bpy.utils.register_class(cls)
    for menu in imports:
        bpy.types.TOPBAR_MT_file_import.append(menu)
    for menu in exports:
        bpy.types.TOPBAR_MT_file_export.append(menu)


def unregister(classes: Sequence[type], imports: Sequence[Callable] = (), exports: Sequence[Callable] = ()) -> None:
    """``register`` undone, in reverse order."""
    for menu in exports:
        bpy.types.TOPBAR_MT_file_export.remove(menu)
    for menu in imports:
        bpy.types.TOPBAR_MT_file_import.remove(menu)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
