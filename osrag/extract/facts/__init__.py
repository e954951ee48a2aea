"""Amount facts: what each money mention measures, whose figure it is and when — its
label, scope, period and signed value.

Every amount the money readers find becomes one :class:`~osrag.schema.facts.AmountFact`
(:func:`osrag.extract.facts.build.amount_facts`), so the flat fields (``amounts``,
``money``, ``amount_evidence``) and the facts describe the same amounts. One concept a
module:

* :mod:`~osrag.extract.facts.labels` — how a label is cleaned; which row labels need the
  group row above them;
* :mod:`~osrag.extract.facts.periods` — a header split around the period it names;
* :mod:`~osrag.extract.facts.table` — a table cell's label, scope and period, read from
  the table model (:mod:`osrag.extract.table_model`);
* :mod:`~osrag.extract.facts.context` — what the heading and the describing sentence
  around a table or an amount say of whose figures they are and of the part of the year;
* :mod:`~osrag.extract.facts.text` — a heading's, a key–value line's and prose's place;
* :mod:`~osrag.extract.facts.prose` — the noun phrase a sentence states an amount of;
* :mod:`~osrag.extract.facts.defined` — a defined term that refers back to an amount;
* :mod:`~osrag.extract.facts.items` — an item line's name, for its rate and its extended
  total;
* :mod:`~osrag.extract.facts.units` — how often an amount recurs (its period unit);
* :mod:`~osrag.extract.facts.sections` — the section heading that labels unlabelled prose;
* :mod:`~osrag.extract.facts.ranges` — two amounts joined into one range, each end given
  the other's magnitude;
* :mod:`~osrag.extract.facts.build` — one fact per mention, its value signed by the
  policy, a prose amount's label split into what, whose and when.

The words they read — the roles of a label's words, the function words a phrase stops
at, the reader of periods, the sign policy, a label's keys — are the vocabulary's
(:mod:`osrag.lexicon`).

The package's ``__init__`` imports nothing: :mod:`osrag.extract.table_model` reads
:mod:`~osrag.extract.facts.labels` and :mod:`~osrag.extract.facts.periods`, and
:mod:`~osrag.extract.facts.build` reads the tables.
"""
