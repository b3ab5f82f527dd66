"""The io_msh Blender extension: Parkan: Iron Strategy MSH models and NRes archives."""

from . import io_msh


def register() -> None:
    io_msh.register()


def unregister() -> None:
    io_msh.unregister()
