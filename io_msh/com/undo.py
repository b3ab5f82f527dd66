"""What an operation changes in the user's data for its own time, put back afterwards (``Undo``)."""

from __future__ import annotations

from collections.abc import Callable


class Undo:
    """Steps that put back what an operation changed, run in reverse order (``run``). Every step runs even when
    one fails, the first failure raised once all have run: one data-block gone meanwhile must not leave the others
    changed."""

    def __init__(self) -> None:
        self.steps: list[Callable[[], object]] = []

    def __call__(self, step: Callable[[], object]) -> None:
        self.steps.append(step)

    def run(self) -> None:
        steps, self.steps = self.steps, []
        failure = None
        for step in reversed(steps):
            try:
                step()
            except Exception as exc:  # raised once the other steps ran
                failure = failure or exc
        if failure is not None:
            raise failure
