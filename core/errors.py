"""Findings and the one exception type the library raises for bad input."""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


def printable(text: str) -> str:
    """Text safe to print, put into JSON or into a Blender name: control characters and the bytes of a file
    name that did not decode (surrogate escapes) are written as ``\\xNN``."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif not char.isprintable() and char != " ":
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


@dataclass(frozen=True)
class Finding:
    """One validation result.

    ``stream`` names where it lies: ``"NRes"`` for the container, ``"Res<N>"``
    for a model stream of type N, ``"entry"`` for an archive entry.
    ``index`` is the record index inside that stream (or the entry index),
    None when the finding concerns the stream as a whole.
    ``where`` names the nested model (archive entry name) when there is one.
    """

    severity: str
    stream: str
    index: int | None
    message: str
    where: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def located(self, where: str) -> Finding:
        """The same finding, placed inside the nested model ``where``."""
        inner = f"{where}:{self.where}" if self.where else where
        return Finding(self.severity, self.stream, self.index, self.message, inner)

    def format(self, source: str = "") -> str:
        place = ":".join(printable(p) for p in (source, self.where) if p)
        index = "" if self.index is None else f"[{self.index}]"
        head = f"{place}: " if place else ""
        return f"{head}{self.stream}{index}: {self.severity}: {printable(self.message)}"

    def as_dict(self) -> dict:
        return {
            "severity": self.severity,
            "where": self.where or None,
            "stream": self.stream,
            "index": self.index,
            "message": self.message,
        }


def error(stream: str, index: int | None, message: str) -> Finding:
    return Finding(ERROR, stream, index, message)


def warning(stream: str, index: int | None, message: str) -> Finding:
    return Finding(WARNING, stream, index, message)


def has_errors(findings: list[Finding]) -> bool:
    return any(f.is_error for f in findings)


class FormatError(Exception):
    """Bad input. Carries every finding that made it bad.

    This is the only exception the core library raises for any input bytes.
    """

    def __init__(self, findings: list[Finding], source: str = "") -> None:
        self.findings = list(findings)
        self.source = source
        super().__init__(self._summary())

    def _summary(self) -> str:
        return self.describe(self.source)

    def describe(self, source: str = "") -> str:
        """The errors, one per line, each naming the file (this error's own, else ``source``)."""
        source = self.source or source
        errors = [f for f in self.findings if f.is_error] or self.findings
        lines = [f.format(source) for f in errors[:5]]
        if len(errors) > 5:
            lines.append(f"... and {len(errors) - 5} more errors")
        return "\n".join(lines) or f"{printable(source)}: invalid data"

    @classmethod
    def single(cls, stream: str, index: int | None, message: str, source: str = "") -> FormatError:
        return cls([error(stream, index, message)], source)


class SelectionError(FormatError):
    """The file is readable, but what was asked of it is not there (an entry, a node)."""
