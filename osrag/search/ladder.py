"""The amount ladder of one search: bound → narrowed → worded → per-unit → role-free → none,
a step down each time the filters leave zero candidates.

A query whose constraints are bound to a named quantity ("deductible under $1,000") is
run with them as stated; if no chunk passes (no fact with that label meets them), with
the named quantity's first word read as the kind of document it is in (narrowed, when
the name has one: "umbrella premium"); on the facts of the labels holding more than half
of the name's naming words that no other way matched (worded, when the index holds such a
label: "termite inspections" → "Termite / wood-destroying insect inspection"; the keys
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

The Searcher and the AsyncSearcher climb it the same way::

    ladder = Ladder(plan)
    ran = run(ladder.step)
    while (step := ladder.after(ran.candidates)) is not None:
        ran = run(step)
"""

from __future__ import annotations

import logging

from osrag.models import AmountStep, StepCount
from osrag.search.query import AnalyzedQuery

log = logging.getLogger("osrag.search.searcher")


class Ladder:
    """Where one search is on its amount ladder (see the module docstring)."""

    def __init__(self, plan: AnalyzedQuery) -> None:
        self.query = plan.spec.text
        self.steps = plan.amount_steps
        self.asked = plan.asked
        self.at = 0
        self.tried: list[StepCount] = []

    @property
    def step(self) -> AmountStep | None:
        """The step to run now (None: the query has no amount filter)."""
        return self.steps[self.at] if self.steps else None

    def after(self, candidates: int) -> AmountStep | None:
        """Record that the current step left ``candidates``; the next step to run when it
        left none and there is one, else None (the current step answers)."""
        step = self.step
        if step is None:
            return None
        asked = list(self.asked.get(step, []))
        self.tried.append(StepCount(step=step, candidates=candidates, asked=asked))
        if candidates != 0 or self.at + 1 >= len(self.steps):
            return None
        self.at += 1
        log.info(
            "query=%r amount step %s left no candidate (asked: %s): trying %s (asking: %s)",
            self.query,
            step,
            "; ".join(asked),
            self.step,
            "; ".join(self.asked.get(self.step, [])) if self.step is not None else "",
        )
        return self.step

    @property
    def fallback(self) -> bool:
        """Whether the last step (no amount filter) answered."""
        return self.step == "none"

    @property
    def amount_candidates(self) -> int | None:
        """The candidates of the first step (the constraints as stated), None without."""
        return self.tried[0].candidates if self.tried else None
