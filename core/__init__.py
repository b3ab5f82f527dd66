"""io_msh core: the Parkan MSH / NRes format library, without Blender.

Subpackages, each a concern: ``container`` (NRes), ``msh`` (model streams), ``animation`` (tracks,
sampler, key authoring, controllers), ``appearance`` (materials and textures), ``unit`` (units and their
parts), ``authoring`` (new files), ``cli`` (``python -m core``). ``errors``, ``disk`` (files on disk)
and ``files`` (opening and checking game files) serve them all; the README's Layout section gives the
import rule.
"""

from .container.nres import Archive, Entry
from .errors import ERROR, WARNING, Finding, FormatError
from .files import Container, open_container, read_container, read_model, validate_container
from .msh.model import Model

__all__ = [
    "ERROR", "WARNING", "Archive", "Container", "Entry", "Finding", "FormatError", "Model",
    "open_container", "read_container", "read_model", "validate_container",
]
