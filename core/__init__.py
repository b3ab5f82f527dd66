"""io_msh core: the Parkan MSH / NRes format library, without Blender.

Subpackages, each a concern: ``container`` (NRes), ``msh`` (model streams), ``animation``
(tracks, sampler, key authoring), ``appearance`` (materials and textures), ``authoring`` (new
files), ``cli`` (``python -m core``). ``errors`` and ``files`` (reading inputs, opening and
validating containers, atomic writes) serve them all.
"""

from .container.nres import Archive, Entry
from .errors import ERROR, WARNING, Finding, FormatError
from .files import Container, open_container, read_container, read_model, validate_container
from .msh.model import Model

__all__ = [
    "ERROR", "WARNING", "Archive", "Container", "Entry", "Finding", "FormatError", "Model",
    "open_container", "read_container", "read_model", "validate_container",
]
