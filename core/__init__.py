"""io_msh core: the Parkan MSH / NRes format library, without Blender.

Subpackages, each a concern: ``container`` (NRes), ``msh`` (model streams), ``animation`` (tracks,
sampler, key authoring, controllers), ``appearance`` (materials and textures), ``unit`` (units and their
parts), ``authoring`` (new files), ``cli`` (``python -m core``). ``errors``, ``disk`` (files on disk)
and ``files`` (opening and checking game files) serve them all; docs/layout.md gives the
import rule.
"""

import sys as _sys

# The command line (``python -m core``): Ctrl-C while its modules load ends as main() ends it (core/__main__.py).
if getattr(_sys, "orig_argv", [])[1:3] == ["-m", "core"]:
    import os as _os
    import signal as _signal

    def _interrupted_while_loading(_signum, _frame) -> None:
        # Nothing is written yet, so the process ends on the spot: an exception raised here would surface inside
        # whatever C extension is loading (numpy turns it into an ImportError and its traceback).
        _os.write(2, b"interrupted\n")
        _os._exit(130)

    _signal.signal(_signal.SIGINT, _interrupted_while_loading)

from .container.nres import Archive, Entry
from .errors import ERROR, WARNING, Finding, FormatError
from .files import Container, open_container, read_container, read_model, validate_container
from .msh.model import Model

__all__ = [
    "ERROR", "WARNING", "Archive", "Container", "Entry", "Finding", "FormatError", "Model",
    "open_container", "read_container", "read_model", "validate_container",
]
