"""What every operator module registers alike: its classes, its File > Import / Export menu entries, and the
file handlers that take a file dropped onto Blender."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence

import bpy
from bpy_extras.io_utils import poll_file_object_drop

from ...core.disk import Terminated

PACKAGE = __name__.rpartition(".ui.")[0]  # the extension's own classes (not bpy_extras' helpers)


class DropFileHandler:
    """Mixin of the add-on's ``bpy.types.FileHandler`` classes: a file dropped onto the 3D Viewport or the
    Outliner is taken, as Blender's own importers take theirs."""

    @classmethod
    def poll_drop(cls, context) -> bool:
        return poll_file_object_drop(context)


def _signalled_again(method: Callable) -> Callable:
    """``method`` (an operator's execute or invoke), a SIGTERM it deferred while it wrote (core.disk raises
    ``Terminated`` once the files are whole) sent again, so that the process does with it what it would have
    done: by default it ends there. Out of an operator, the SystemExit would reach Blender, whose exit then
    hangs in the 4.5 teardown."""
    if getattr(method, "signalled_again", False):
        return method

    def deliver() -> set[str]:
        os.kill(os.getpid(), signal.SIGTERM)
        return {"CANCELLED"}  # the process has a handler of its own, which took the signal

    if method.__code__.co_argcount == 2:  # Blender checks the count of arguments of each method
        def wrapped(self, context):
            try:
                return method(self, context)
            except Terminated:
                return deliver()
    else:
        def wrapped(self, context, event):
            try:
                return method(self, context, event)
            except Terminated:
                return deliver()
    wrapped.__name__, wrapped.__doc__, wrapped.signalled_again = method.__name__, method.__doc__, True
    return wrapped


def register(classes: Sequence[type], imports: Sequence[Callable] = (), exports: Sequence[Callable] = ()) -> None:
    """Register ``classes`` in order, then add the ``imports`` and ``exports`` menu entries. Operators' execute
    and invoke (their own or their mixin's, io_msh.ui.file_operators) pass on a SIGTERM their writes deferred
    (``_signalled_again``)."""
    for cls in classes:
        if issubclass(cls, bpy.types.Operator):
            for name in ("execute", "invoke"):
                if any(name in k.__dict__ for k in cls.__mro__ if k.__module__.startswith(PACKAGE)):
                    setattr(cls, name, _signalled_again(getattr(cls, name)))
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
