"""The amount ladder of one search: bound → narrowed → worded → per-unit → role-free → none,
a step down each time the filters leave zero candidates.

A query whose constraints are bound to a named quantity ("deductible under $1,000") is
run with them as stated; if no chunk passes (no fact with that label meets them), with
the named quantity's first word read as the kind of document it is in (narrowed, when
the name has one: "umbrella premium"; or a quantity a profile knows that ends the name,
where a document says another of its words: "painting contractor deposit"); on the
facts of the labels holding more than half of the name's naming words that no other way
matched (worded, when the index holds such a label: "termite inspections" → "Termite /
wood-destroying insect inspection"; the keys
alone are exact, so a label naming the quantity in a longer phrase, or its words in
another order, is found only here); for a quantity asked at a period unit ("movers
charging over $150 an hour"), on any fact that states that unit, whatever its label
(per-unit: the unit kept, the label freed); then with every constraint on any amount
(role-free); if still none, without any amount filter (``fallback``). A step a query has
no form for is left out (:attr:`~osrag.search.query.AnalyzedQuery.amount_steps`); a
query with role-free constraints only starts at role-free.
Every step relaxes the amount filters of every leg together; tenant, ACL and date guards
are never relaxed (they are not amount filters). Each step tried is recorded with the
candidates it left (``SearchResult.amount_steps``) and logged at INFO on
``osrag.search.searcher``.

A step whose filter keeps a figure of the asked kind in a document about anything
(:data:`UNSAID_STEPS`) is stepped down from too when its hits say no word of the question's
subject (:mod:`osrag.search.subject`): they are another family's figure ("solar
installation contracts worth more than $30,000" narrowed to a contract price of a cleaning
firm). If no step below finds a hit saying it either, the first such step answers after
all: its filter was the nearer to the question.

The Searcher and the AsyncSearcher climb it the same way::

    ladder = Ladder(plan)
    ran = run(ladder.step)
    while (step := ladder.after(ran)) is not None:
        ran = run(step)
    ran = ladder.settled(ran)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

from osrag.lexicon.label_roles import PRICE_HEADS
from osrag.lexicon.words import normalised, singular
from osrag.models import AmountStep, StepCount
from osrag.schema.constraints import AmountConstraint
from osrag.search.query import AnalyzedQuery

log = logging.getLogger("osrag.search.searcher")

UNSAID_STEPS: tuple[AmountStep, ...] = ("narrowed", "per-unit")
"""The steps stepped down from when none of their hits says a word of the question's
subject (module docstring). Not the bound step, whose filter holds the quantity as named
(unless the name is a bare word of price: :func:`_bare_price`), nor role-free, below which
no amount filter is left."""


def _bare_price(constraints: Sequence[AmountConstraint]) -> bool:
    """Whether every constraint is bound to a bare word of price (``charge``, ``fee``,
    ``rate``…: :data:`~osrag.lexicon.label_roles.PRICE_HEADS`), as a lone verb of pricing
    names it ("notaries **charging** $15 or less per signature"): a filter keeping a charge
    in a document about anything, stepped down from as the narrowed step is when its hits
    say no word of the subject (a box office's handling charge)."""
    return bool(constraints) and all(
        c.label is not None
        and c.total_of is None
        and len(words := normalised(c.label).split()) == 1
        and singular(words[0]) in PRICE_HEADS
        for c in constraints
    )


UNSAID_LEAST = 2
"""The fewest words of a subject none of whose words a step's hits say for the ladder to step
down: one word a holder's passage need not repeat ("service", "contractor", "endorsement"
written once in its title or not at all), and another document mentions in passing, says
too little either way."""


class Answer(Protocol):
    """What a step's round trip left, as the ladder reads it."""

    @property
    def candidates(self) -> int: ...

    @property
    def unsaid(self) -> bool: ...

    @property
    def subject(self) -> tuple[str, ...]: ...


A = TypeVar("A", bound=Answer)


def _unsaid(answer: Answer) -> bool:
    """Whether ``answer``'s hits say no word of a subject of :data:`UNSAID_LEAST` words or
    more."""
    return answer.unsaid and len(answer.subject) >= UNSAID_LEAST


class Ladder(Generic[A]):
    """Where one search is on its amount ladder (see the module docstring)."""

    def __init__(self, plan: AnalyzedQuery) -> None:
        self.query = plan.spec.text
        self.steps = plan.amount_steps
        self.asked = plan.asked
        self.at = 0
        self.tried: list[StepCount] = []
        self._held: tuple[int, A] | None = None
        self._unsaid_steps = UNSAID_STEPS + (("bound",) if _bare_price(plan.constraints) else ())

    @property
    def step(self) -> AmountStep | None:
        """The step to run now (None: the query has no amount filter)."""
        return self.steps[self.at] if self.steps else None

    def after(self, answer: A) -> AmountStep | None:
        """Record what the current step left; the next step to run when it left no
        candidate, or its hits say no word of the subject at a step of :data:`UNSAID_STEPS`
        and a step with an amount filter is below it; else None (the current step
        answers)."""
        step = self.step
        if step is None:
            return None
        candidates = answer.candidates
        asked = list(self.asked.get(step, []))
        unsaid = bool(candidates) and _unsaid(answer)
        self.tried.append(StepCount(step=step, candidates=candidates, asked=asked, unsaid=unsaid))
        if self.at + 1 >= len(self.steps):
            return None
        if candidates:
            if not (unsaid and step in self._unsaid_steps and self.steps[self.at + 1] != "none"):
                return None
            if self._held is None:
                self._held = (self.at, answer)
            why = "found no hit saying the subject"
        else:
            why = "left no candidate"
        self.at += 1
        log.info(
            "query=%r amount step %s %s (asked: %s): trying %s (asking: %s)",
            self.query,
            step,
            why,
            "; ".join(asked),
            self.step,
            "; ".join(self.asked.get(self.step, [])) if self.step is not None else "",
        )
        return self.step

    def settled(self, answer: A) -> A:
        """The answer of the step that answers: ``answer`` (the last step run's), unless a
        step was left because its hits said no word of the subject and no step below found
        one that does — then that step's, and the ladder is back at it."""
        if self._held is None or (answer.candidates and not _unsaid(answer)):
            return answer
        at, held = self._held
        log.info(
            "query=%r no step below %s found a hit saying the subject: it answers",
            self.query,
            self.steps[at],
        )
        self.at = at
        return held

    @property
    def fallback(self) -> bool:
        """Whether the last step (no amount filter) answered."""
        return self.step == "none"

    @property
    def amount_candidates(self) -> int | None:
        """The candidates of the first step (the constraints as stated), None without."""
        return self.tried[0].candidates if self.tried else None
