"""The budget of one engine run (SHACL validation, OWL RL inference): a deadline, an allowance of
produced triples and an address-space cap for the child processes the run starts.

Engines check their budget as they go (between queries, every few thousand triples of a pass,
as a closure grows); what cannot be interrupted from Python runs in a child process killed at the
deadline (``kgprofiles.killable``). Breaking the budget raises ``BudgetExceeded``: the run fails
(exit 1, like a violation), never "conforms", and a build publishes nothing.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from kgprofiles.config import Limits
from kgprofiles.errors import KgError

T = TypeVar("T")

#: How many items a paced loop runs between two looks at the clock.
CHECK_EVERY = 4096
_WHERE = "in [kgprofiles.limits] of kgprofiles.toml"


class BudgetExceeded(KgError):
    """An engine stopped at its time, triple or memory budget; nothing was published (exit 1)."""

    kind = "budget"
    exit_code = 1


class Budget:
    """A deadline (``timeout_s`` from now), an allowance of produced triples (None: no allowance)
    and the address space of child processes, for the engine run named by ``task``
    ("validation", "inference")."""

    def __init__(
        self,
        task: str,
        timeout_s: float,
        max_triples: int | None = None,
        memory_mb: int | None = None,
        *,
        factor: float | None = None,
        asserted: int | None = None,
    ) -> None:
        self.task = task
        self.timeout_s = timeout_s
        self.deadline = time.monotonic() + timeout_s
        self.max_triples = max_triples
        self.memory_mb = memory_mb
        self.factor = factor  # how max_triples was computed, for the message
        self.asserted = asserted

    @classmethod
    def for_validation(cls, limits: Limits) -> Budget:
        return cls("validation", limits.engine_timeout_s, None, limits.engine_memory_mb)

    @classmethod
    def for_inference(cls, limits: Limits, asserted: int | None) -> Budget:
        """Inference over ``asserted`` triples (the data and the ontology) may produce
        ``inferred_triples_factor`` times as many; None: time only (the local closure of a
        ``load``, over a part of the data whose size is not known in advance)."""
        allowance = int(limits.inferred_triples_factor * asserted) if asserted is not None else None
        return cls(
            "inference",
            limits.engine_timeout_s,
            allowance,
            limits.engine_memory_mb,
            factor=limits.inferred_triples_factor,
            asserted=asserted,
        )

    def counting(self, asserted: int) -> Budget:
        """This budget (the same deadline), with an allowance of ``factor`` times ``asserted``
        triples (the local closure of a ``load``, once its data is known)."""
        factor = self.factor if self.factor is not None else 1.0
        counted = Budget(
            self.task, self.timeout_s, int(factor * asserted), self.memory_mb, factor=factor, asserted=asserted
        )
        counted.deadline = self.deadline
        return counted

    def __repr__(self) -> str:
        return f"Budget({self.task!r}, {self.timeout_s:g} s, {self.max_triples} triples, {self.memory_mb} MB)"

    # -- time -------------------------------------------------------------------------------

    def remaining(self) -> float:
        """Seconds left before the deadline (never negative)."""
        return max(0.0, self.deadline - time.monotonic())

    def check_time(self, doing: str | None = None) -> None:
        """Raise BudgetExceeded when the deadline has passed."""
        if time.monotonic() >= self.deadline:
            raise self.out_of_time(doing)

    def out_of_time(self, doing: str | None = None) -> BudgetExceeded:
        where = f" while {doing}" if doing else ""
        return BudgetExceeded(
            f"{self.task} stopped at its budget: {self.timeout_s:g} s{where}",
            f"raise engine_timeout_s {_WHERE} if the data really needs longer, "
            "or look for the shape or axiom that makes it slow",
        )

    # -- triples ----------------------------------------------------------------------------

    def check_triples(self, produced: int) -> None:
        """Raise BudgetExceeded when ``produced`` triples are over the allowance."""
        if self.max_triples is not None and produced > self.max_triples:
            raise self.too_many_triples(produced)

    def too_many_triples(self, produced: int) -> BudgetExceeded:
        basis = ""
        if self.factor is not None and self.asserted is not None:
            basis = f" ({self.factor:g} × {self.asserted:,} asserted triples)"
        return BudgetExceeded(
            f"{self.task} stopped at its budget: more than {self.max_triples:,} inferred triples{basis}, "
            f"{produced:,} so far",
            "look for owl:sameAs or property chains that multiply the data; raise inferred_triples_factor "
            f"{_WHERE} if the data really implies that much",
        )

    def check(self, produced: int = 0, doing: str | None = None) -> None:
        """Both checks: the deadline, and ``produced`` triples against the allowance."""
        self.check_triples(produced)
        self.check_time(doing)

    # -- memory -----------------------------------------------------------------------------

    def out_of_memory(self, doing: str) -> BudgetExceeded:
        return BudgetExceeded(
            f"{self.task} stopped at its budget: {doing} ran out of its {self.memory_mb:,} MB of memory",
            f"raise engine_memory_mb {_WHERE} if the data really needs more, "
            "or look for the shape or axiom that makes it grow",
        )

    # -- loops ------------------------------------------------------------------------------

    def paced(
        self, items: Iterable[T], produced: Callable[[], int] | None = None, doing: str | None = None
    ) -> Iterator[T]:
        """``items``, checking the deadline (and ``produced()`` against the allowance) every
        ``CHECK_EVERY`` items: for the passes of an engine over millions of triples."""
        iterator = iter(items)
        while True:
            chunk = list(itertools.islice(iterator, CHECK_EVERY))
            if not chunk:
                return
            self.check(produced() if produced is not None else 0, doing)
            yield from chunk


def paced(budget: Budget | None, items: Iterable[T], produced: Callable[[], int] | None = None) -> Iterable[T]:
    """``budget.paced(items, produced)``, or ``items`` themselves when there is no budget."""
    return items if budget is None else budget.paced(items, produced)
