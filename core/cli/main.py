"""``python -m core``: inspect, validate, round-trip, sample and rewrite MSH models and archives.

Exit codes: 0 success, 1 bad data (or a failed check), 2 usage or I/O. The commands are listed in
``core.cli.commands``; each imports its codecs when it runs.
"""

from __future__ import annotations

import argparse
import io
import os
import sys

import numpy as np

from ..errors import FormatError, SelectionError, printable
from .commands import COMMANDS
from .output import EXIT_BAD_DATA, EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE, UsageError, emit

VERSION = "0.1.0"  # the extension's version (blender_manifest.toml; a test keeps them equal)


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, unless the help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("default" in text or action.default is None or action.default is False
                or action.default == argparse.SUPPRESS or not action.option_strings):
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m core", description="Inspect, validate, round-trip, sample and rewrite the "
                                                        "MSH models and NRes archives of Parkan: Iron Strategy.")
    parser.add_argument("--version", action="version", version=f"%(prog)s (io_msh) {VERSION}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND", help="one of the commands below; COMMAND --help for its options")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with np.errstate(all="ignore"):  # NaN or huge values in a file are data, not warnings on stderr
            return args.func(args)
    except KeyboardInterrupt:  # Ctrl-C: no traceback; core.disk has removed its temporaries
        emit("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader left (``| head``): stop quietly, as other Unix tools do
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except UsageError as exc:
        emit(f"usage error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SelectionError as exc:
        emit(exc.describe(), file=sys.stderr)
        return EXIT_USAGE
    except FormatError as exc:
        source = (getattr(args, "file", None) or getattr(args, "input", None) or getattr(args, "archive", None)
                  or getattr(args, "library", ""))
        emit(exc.describe(source), file=sys.stderr)
        return EXIT_BAD_DATA
    except OSError as exc:
        where = f"{printable(os.fsdecode(exc.filename))}: " if exc.filename else ""
        emit(f"{where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        emit(f"internal error ({type(exc).__name__}): {exc}; please report it with the file", file=sys.stderr)
        return EXIT_BAD_DATA


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush does not fail on the closed pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):  # stdout is not a file (captured in tests)
        pass
