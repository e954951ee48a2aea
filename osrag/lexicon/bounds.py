"""How long a name may be at each stage: labels, keys, headings, table cells, stored terms.

A document names things — a table row, a column header, a key, a heading — and osrag
reads those names into what it stores and what it compares: a fact's label and its keys,
a chunk's breadcrumb and heading path, the keyword fields of the index. Each of them has
a bound here, so one over-long name costs a constant, never the square of its length,
and no engine refuses a document for a term it cannot index (Lucene's term limit is
32,766 bytes; every keyword bound below is at most 1,024 characters, 4 KiB of UTF-8).

The bounds stand well above what real documents hold (``benchmarks/length_census.py``
measures the corpora osrag is tested on; docs/reliability.md has the table): the
longest real label is 155 characters, the longest key 22 words, the longest heading 295
characters, the longest table cell 1,226 characters. What is cut is marked where it is
stored — :data:`ELLIPSIS` ends the cut text — and counted in the ingest report
(``labels_cut``, ``headings_cut``, ``breadcrumbs_shortened``).

The rule of a cut (:func:`shorten`): the text keeps its first characters up to the
bound, less one for the mark, cut back to the last space in its second half when there
is one (a word is not split when it need not be), and :data:`ELLIPSIS` is appended: the
result is never longer than the bound.
"""

from __future__ import annotations

__all__ = [
    "BREADCRUMB_SHARE",
    "CELL_CHARS",
    "ELLIPSIS",
    "HEADING_CHARS",
    "KEYS_PER_LABEL",
    "KEY_CHARS",
    "KEY_WORDS",
    "LABEL_CHARS",
    "LABEL_READ_CHARS",
    "TERM_CHARS",
    "shorten",
]

ELLIPSIS = "…"
"""The mark of a cut. In a fact's label it is always osrag's: a ``…`` the text itself
writes is read as three dots (:func:`osrag.extract.facts.labels.clean_label`)."""

LABEL_CHARS = 512
"""A fact's label, in characters, the mark included: the cleaned name of a row, a key or a
noun phrase, and the label a table joins from its row and column qualifiers. Real labels
reach 155. Stored whole under the raw keyword's ``ignore_above`` (1,024)."""

LABEL_READ_CHARS = 2048
"""What the label cleaner reads of a text (a table cell, a key): a longer text is read to
this bound and its label is cut (marked), so cleaning costs a constant per name."""

KEY_WORDS = 32
"""The words a label key (and an asked key) is read from: a phrase of more words, or of
more than ``KEY_CHARS`` characters, is read as its last words within both bounds — the head
and the words right before it (:func:`osrag.lexicon.keys.last_words`) — on both sides, so
the keys of one label are a bounded few whatever its length. Real keys reach 22 words."""

KEY_CHARS = 256
"""One key, in characters: a phrase is read from its last words that fit; a single longer
word makes no key (the mapping's ``ignore_above`` on ``facts.label_keys`` is the same).
Real keys reach 139."""

KEYS_PER_LABEL = 64
"""Keys stored for one fact: the first ones, in the order they are read (the row's,
then its columns'). Real labels give at most 21."""

HEADING_CHARS = 1024
"""One heading (or the title) in a chunk's breadcrumb and heading path, the mark
included; the body keeps the heading's text whole. Real headings reach 295 characters;
the mapping's ``ignore_above`` on ``heading_path`` and ``breadcrumb.keyword`` is the
same."""

BREADCRUMB_SHARE = 0.5
"""The share of the embedder's window (after its special tokens and the passage prefix)
that the breadcrumb line of an embedded text may take; a longer breadcrumb is shortened
in ``text`` (marked), and the body always keeps the rest. The longest real breadcrumb
takes 81 tokens of the default embedder's 254."""

CELL_CHARS = 4096
"""A table cell and a column header, as the table reader reads them: a longer cell is
read to this bound and marked (it never holds a value then). Real cells reach 1,226
characters."""

TERM_CHARS = 256
"""A fact's ``period`` and ``scope_name`` as stored (keyword fields with the same
``ignore_above``). Real periods reach 29 characters."""


def shorten(text: str, limit: int, *, cut: bool = False) -> str:
    """``text`` within ``limit`` characters: itself when it fits (and ``cut`` is False),
    else cut by the module's rule and marked with :data:`ELLIPSIS`. ``cut``: the text was
    already cut upstream (read to a bound): it is marked even when it fits."""
    if len(text) <= limit and not cut:
        return text
    if text.endswith(ELLIPSIS) and len(text) <= limit:
        return text
    if len(text) < limit:  # cut upstream: room for the mark
        return text.rstrip() + ELLIPSIS
    kept = text[: max(0, limit - 1)]
    space = kept.rfind(" ")
    if space >= len(kept) // 2:
        kept = kept[:space]
    return kept.rstrip() + ELLIPSIS
