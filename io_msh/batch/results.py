"""An item's result in the parent: its staged files written onto their outputs as one set (core.write_path), and
its lines (findings and warnings) as printed."""

from __future__ import annotations

import contextlib
import shutil
import signal
from pathlib import Path

from .items import Item, Result, unique


def finish(args, item: Item, result: Result, taken: set[str], interrupt: Interrupt,
           read: dict[str, object] | None = None) -> Result:
    """Write the item's staged files onto their outputs (all or none), then remove its stage folder. ``read``: an
    output as the run read it (core.write_path.Target.read: it is replaced only while it is still that file)."""
    from ...core.disk import ChangedError

    try:
        if result.ok and result.warnings and getattr(args, "warnings_as_errors", False):
            count = len(result.warnings)
            result.ok = False
            result.message = (f"{count} warning{'s' * (count != 1)}, treated as errors (--warnings-as-errors): "
                              f"nothing written")
        elif result.ok:
            with interrupt.held():  # Ctrl-C waits until the item's files are all in place (or all restored)
                # outputs: what the worker wrote in place (export --into-source), then the staged files moved
                result.outputs = tuple(result.outputs) + tuple(_commit(_targets(item, result, taken), read or {}))
            if result.outputs or not result.message:
                result.message = "-> " + ", ".join(result.outputs)
    except ChangedError as exc:
        result.ok = False
        result.message = (f"{exc.filename or item.output}: another program wrote it during the run: it was left as "
                          "that program wrote it; run again")
    except OSError as exc:
        result.ok = False
        result.message = f"{exc.filename or item.output}: cannot write: {exc.strerror or exc}"
    finally:
        if item.stage:
            shutil.rmtree(item.stage, ignore_errors=True)
    return result


def _targets(item: Item, result: Result, taken: set[str]) -> list[tuple[Path, Path]]:
    """(staged file, output) pairs. The planned output is the item's own; further outputs (an export of a .blend
    holding several models) get names no other output has (``a.blend``'s model ``x`` is ``a_x.msh``, or
    ``a_x_2.msh`` when ``a_x.blend`` gives ``a_x.msh``). Files staged under one stem (``0.msh``, ``0.wea``)
    keep one stem."""
    stems: dict[str, Path] = {}
    pairs = []
    for staged, wanted in result.staged:
        staged, wanted = Path(staged), Path(wanted)
        if staged.stem not in stems:
            stems[staged.stem] = wanted if str(wanted) == item.output else unique(wanted, taken)
        pairs.append((staged, stems[staged.stem].with_suffix(wanted.suffix)))
    return pairs


def _commit(pairs: list[tuple[Path, Path]], read: dict[str, object]) -> list[str]:
    """Put staged files onto their outputs as one set, through the one write path (core.write_path): all of them
    or none, an output already holding the new bytes left alone. The outputs are the run's (the user named -o;
    replacing them is what a run does, unless --skip-existing); an existing file of another kind is refused.
    OSError names the failed output."""
    from ...core.disk import read_input
    from ...core.write_path import UNREAD, Target, write

    targets = []
    for staged, target in pairs:
        target.parent.mkdir(parents=True, exist_ok=True)
        targets.append(Target(str(target), read_input(staged), read=read.get(str(target), UNREAD), owned=True))
    write(targets)
    return [str(target) for _, target in pairs]


def result_lines(message: str, item: Item | None) -> list[str]:
    """A message as printable lines, one finding each, without the item's path (its progress line names it)."""
    from ...core.errors import printable

    prefixes = [printable(f"{text}: ") for text in ((item.label, item.source) if item else ()) if text]
    lines = []
    for line in message.splitlines() or [""]:
        line = printable(line)
        for prefix in prefixes:
            if line.startswith(prefix):
                line = line[len(prefix):]
                break
        lines.append(line)
    return lines


class Interrupt:
    """SIGINT (Ctrl-C) and SIGTERM raise KeyboardInterrupt in the main thread, except while an item's files
    are moved into place: then they wait until that is done."""

    def __init__(self) -> None:
        self.holding = False
        self.signum: int | None = None

    def __call__(self, signum, frame) -> None:
        self.signum = signum
        if not self.holding:
            raise KeyboardInterrupt

    def install(self) -> dict:
        """Take SIGINT and SIGTERM; one that arrived while the modules loaded (held by the script's handler,
        io_msh/batch/__main__.py) is raised by the first ``check``."""
        previous = {}
        with contextlib.suppress(ValueError):  # not the main thread: signals stay as they are
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous[signum] = signal.signal(signum, self)
                held = getattr(previous[signum], "signum", None)
                if self.signum is None and isinstance(held, int):
                    self.signum = held
        return previous

    def restore(self, previous: dict) -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    @contextlib.contextmanager
    def held(self):
        """Signals wait (``check`` raises them once the item is reported)."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False

    def check(self) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is the KeyboardInterrupt a signal raised, or an error it caused: raised while a module
    defined a class (a dataclass's field, ``__set_name__``), Python 3.11 wraps it in a RuntimeError."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__
    return False
