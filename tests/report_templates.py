"""The report templates written in the code: every message the operators can give, found by reading the source
(not by running it), so that a message no run happens to show still needs its Russian entry.

A message is the text given to one of the places a report line is made from:

- ``report(operator, level, MESSAGE)`` (io_msh.ui.translations.report, the operators' reports);
- ``error(stream, index, MESSAGE)``, ``warning(...)``, ``Finding(severity, stream, index, MESSAGE)`` and
  ``FormatError.single(stream, index, MESSAGE, ...)`` (core.errors: the findings an import or export reports);
- ``warnings.append(MESSAGE)``, ``look_warnings += [MESSAGE, ...]``, ``failures.extend(...)``: any list whose name
  ends in ``warnings``, ``failures`` or ``notes`` (the lists the operators report line by line), and the
  private helpers that add to them (``_not_written(MESSAGE)``, a ``_...warn...(MESSAGE)``);
- ``return ..., MESSAGE`` of a sentence (fixed words holding three spaces or more): a message handed back to the
  caller that reports it (``material 'X' is not in Material.lib; ...``).

Each MESSAGE that is a string, an f-string, a ``+`` of them or an ``a if c else b`` of them becomes a template:
its fixed words, with ``WILD`` where a value goes in. A template is covered when one of ``REPORTS``'s keys reads
as it (each value standing for a ``{field}`` or for fixed words), or when what follows a leading ``value: ``
does (``report_text`` keeps a file name or place before ``": "`` and translates the rest).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where the operators' reports come from: the extension (its batch tool prints to a terminal, in English) and
# the core library it calls.
SCANNED = ("core", "io_msh")
SKIPPED = ("io_msh/batch/",)
WILD = "\x00"

LEVEL_ARG = {"report": 2, "error": 2, "warning": 2, "single": 2, "Finding": 3}
LISTS = ("warnings", "failures", "notes")


@dataclass(frozen=True)
class Template:
    text: str  # fixed words, WILD for each value
    file: str
    line: int

    @property
    def shown(self) -> str:
        return self.text.replace(WILD, "{…}")


def _texts(node: ast.AST) -> list[str] | None:
    """The templates an expression can make (None: not a literal message, e.g. a variable passed on)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        out = [""]
        for part in node.values:
            if isinstance(part, ast.Constant):
                out = [o + str(part.value) for o in out]
            else:
                inner = _texts(part.value) if isinstance(part.value, ast.IfExp) else None
                out = [o + i for o in out for i in inner] if inner else [o + WILD for o in out]
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _texts(node.left), _texts(node.right)
        if left is None and right is None:
            return None
        return [a + b for a in (left or [WILD]) for b in (right or [WILD])]
    if isinstance(node, ast.IfExp):
        body, orelse = _texts(node.body), _texts(node.orelse)
        if body is None and orelse is None:
            return None
        return (body or [WILD]) + (orelse or [WILD])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        base = _texts(node.func.value)
        return [re.sub(r"\{[^{}]*\}", WILD, b) for b in base] if base else None
    return None


def _messages(call: ast.Call) -> list[ast.AST]:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name == "single" and not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                 and func.value.id.endswith("Error")):
        return []
    if name in ("error", "warning") and not isinstance(func, ast.Name):
        return []
    if name in LEVEL_ARG and len(call.args) > LEVEL_ARG[name]:
        return [call.args[LEVEL_ARG[name]]]
    if name in ("append", "extend") and isinstance(func, ast.Attribute) and _is_list(func.value) and call.args:
        arg = call.args[0]
        return list(arg.elts) if name == "extend" and isinstance(arg, (ast.List, ast.Tuple)) else (
            [arg.elt] if isinstance(arg, ast.ListComp) else [arg])
    if name.startswith("_") and ("warn" in name or "not_written" in name):
        return list(call.args)
    return []


def _is_list(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.endswith(LISTS)


def _returned(node: ast.Return) -> list[ast.AST]:
    """The sentences a return statement hands back (alone, or beside other values)."""
    value = node.value
    found = list(value.elts) if isinstance(value, (ast.Tuple, ast.List)) else [value] if value else []
    return [v for v in found if any(t.replace(WILD, "").count(" ") >= 3 for t in _texts(v) or ())]


@cache
def templates() -> tuple[Template, ...]:
    """Every report template of the scanned code (read once per test run)."""
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(SKIPPED):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
                messages: list[ast.AST] = []
                if isinstance(node, ast.Call):
                    messages = _messages(node)
                elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and _is_list(node.target):
                    value = node.value
                    messages = (list(value.elts) if isinstance(value, (ast.List, ast.Tuple))
                                else [value.elt] if isinstance(value, ast.ListComp) else [])
                elif isinstance(node, ast.Return):
                    messages = _returned(node)
                for message in messages:
                    for text in _texts(message) or ():
                        # a message with fixed words (not just "{a}: {b}")
                        if text.strip(WILD + " :;,.()"):
                            out.append(Template(text, rel, message.lineno))
    return tuple(out)


def _regex(text: str) -> re.Pattern:
    """A template as a pattern over REPORTS keys: each value stands for one or more of the key's characters."""
    return re.compile("".join(".+?" if c == WILD else re.escape(c) for c in text), re.DOTALL)


def _tails(text: str) -> list[str]:
    """The template, and what follows each leading ``value: `` (a place report_text keeps as it is)."""
    out = [text]
    while re.match(rf"[^{WILD}:]*{WILD}[^:]*?: ", out[-1]):
        out.append(out[-1].split(": ", 1)[1])
    return out


def _key_regex(key: str) -> re.Pattern:
    """A REPORTS key as a pattern over templates: each ``{field}`` stands for one or more characters."""
    return re.compile("".join(".+?" if i % 2 else re.escape(p) for i, p in enumerate(re.split(r"(\{\w+\})", key))),
                      re.DOTALL)


def missing(templates: list[Template], reports) -> list[Template]:
    """The templates no REPORTS key covers (a key covers a template when either reads as the other, a value
    standing for a field or for words)."""
    keys = list(reports)
    key_patterns = [_key_regex(k) for k in keys]
    out = []
    for template in templates:
        tails = _tails(template.text)
        patterns = [_regex(t) for t in tails]
        if any(p.fullmatch(k) for p in patterns for k in keys):
            continue
        if any(k.fullmatch(t.replace(WILD, "X")) for k in key_patterns for t in tails):
            continue
        out.append(template)
    return out


def drawn_labels() -> list[Template]:
    """The labels the interface draws by name (not bl_rna's): ``text="..."`` of a menu entry, a label or a
    button, ``iface("...")``, and a dialog's panel titles (``("Title", ("option", ...))``)."""
    out = []
    for path in sorted((ROOT / "io_msh" / "ui").glob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "translations.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), rel)):
            found: list[ast.AST] = []
            if isinstance(node, ast.Call):
                found = [k.value for k in node.keywords if k.arg == "text"]
                if isinstance(node.func, ast.Name) and node.func.id == "iface" and node.args:
                    found.append(node.args[0])
            elif (isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[1], ast.Tuple)
                  and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts[1].elts)):
                found = [node.elts[0]]
            for value in found:
                for text in _texts(value) or ():
                    if WILD not in text and re.search("[A-Za-z]", text):
                        out.append(Template(text, rel, value.lineno))
    return out
