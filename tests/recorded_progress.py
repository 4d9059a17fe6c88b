"""A ``kgprofiles.progress.Progress`` for tests that records what a command reports: each stage
with its total (grown as steps are found), the steps done, and every advance."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Stage:
    name: str
    total: int  # as given (None: one step), plus every ``grow``
    done: int = 0
    grown: int = 0
    advances: list[int] = field(default_factory=list)


class RecordedProgress:
    """Every stage started, in order; ``progress["name"]``: the last stage of that name."""

    def __init__(self) -> None:
        self.stages: list[Stage] = []

    def stage(self, name: str, total: int | None = None) -> None:
        self.stages.append(Stage(name, 1 if total is None else total))

    def advance(self, steps: int = 1) -> None:
        self.stages[-1].done += steps
        self.stages[-1].advances.append(steps)

    def grow(self, steps: int) -> None:
        self.stages[-1].total += steps
        self.stages[-1].grown += steps

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.stages]

    def __getitem__(self, name: str) -> Stage:
        found = [s for s in self.stages if s.name == name]
        if not found:
            raise KeyError(f"no stage {name!r}: {self.names}")
        return found[-1]
