"""What every command of ``python -m core`` shares: exit codes, the usage error, and printing (text with
control characters escaped, JSON without NaN). Light on purpose: the command modules import it, and it imports
none of them."""

from __future__ import annotations

import argparse
import math
import sys

from ..errors import printable

EXIT_OK, EXIT_BAD_DATA, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141  # as shells report SIGINT and SIGPIPE (128 + signal)


class UsageError(Exception):
    """A command line that cannot be run as given (exit 2, ``usage error: ...``)."""


def emit(text: str = "", file=None) -> None:
    """Print text with control characters and undecodable file-name bytes escaped, line by line."""
    print("\n".join(printable(line) for line in str(text).split("\n")), file=file or sys.stdout)


def json_safe(value):
    """JSON has no NaN or Infinity: such floats are written as the strings "NaN", "Infinity", "-Infinity"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def emit_json(payload) -> None:
    import json  # only --json prints it

    text = json.dumps(json_safe(payload), indent=1, ensure_ascii=False, allow_nan=False)
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"))  # a file name's undecodable bytes as \udcNN


def out(args: argparse.Namespace, payload: dict, lines: list[str]) -> None:
    """A command's result: JSON with --json (gathered into one document for ``info`` of a folder), else text."""
    sink = getattr(args, "json_sink", None)
    if sink is not None:  # info on a folder: one JSON document for all its files, printed at the end
        sink.append(payload)
    elif getattr(args, "json", False):
        emit_json(payload)
    else:
        emit("\n".join(lines))
