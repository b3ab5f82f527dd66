"""io_msh core: the Parkan MSH / NRes format library, without Blender.

Modules: ``nres`` (container), ``model`` and ``streams`` (MSH streams),
``validate``, ``anim`` (animation IR and writer), ``sampler`` (the runtime's
sampler and blend), ``keys`` (key authoring), ``build`` (new models),
``files`` (opening files), ``cli`` (``python -m core``).
"""

from .errors import ERROR, WARNING, Finding, FormatError
from .files import Container, open_container, read_container, read_model, validate_container
from .model import Model
from .nres import Archive, Entry

__all__ = [
    "ERROR", "WARNING", "Archive", "Container", "Entry", "Finding", "FormatError", "Model",
    "open_container", "read_container", "read_model", "validate_container",
]
