"""The vocabulary: what osrag knows of words, in one place. Pure; imports nothing of osrag.

Every closed list of words the amount readers use is written once here, named for the
role it plays, and every function that reads words both sides need is here once — so
the document side (the facts an ingest stores) and the question side (the constraints a
query binds) read a label, a period and a sign the same way. One concept a module:

* :mod:`~osrag.lexicon.words` — words as written: :func:`~osrag.lexicon.words.word_set`,
  the normaliser, the singulariser (and the other grammatical number);
* :mod:`~osrag.lexicon.function_words` — the closed classes of English the phrase
  readers stop at (determiners, pronouns, prepositions, conjunctions, verbs of being,
  having and reporting);
* :mod:`~osrag.lexicon.label_roles` — the roles a word plays in a label (a modifier, a
  balance, a split, a complement, a generic head …);
* :mod:`~osrag.lexicon.quantities` — the nouns that name a quantity, the nouns that name
  what holds one, and the groups of synonyms;
* :mod:`~osrag.lexicon.phrases` — the one noun-phrase reader: the name at the end of a
  run of words, as both sides read it before a figure;
* :mod:`~osrag.lexicon.keys` — a fact's label keys (the document side) and the keys a
  question asks for (the question side), side by side, from the same functions;
* :mod:`~osrag.lexicon.periods` — the one reader of periods: years, fiscal years,
  quarters, halves, dates, the part of a year;
* :mod:`~osrag.lexicon.links` — the words that link a noun phrase to its amount, as a
  document and a question write them, side by side;
* :mod:`~osrag.lexicon.signs` — the sign policy: which labels name a loss, which
  quantities are compared by their signed value;
* :mod:`~osrag.lexicon.places` — the postal addresses of a country, read for the currency
  of a bill that writes no currency sign.

The package's ``__init__`` imports nothing: a reader imports the module of the concept
it needs.
"""
