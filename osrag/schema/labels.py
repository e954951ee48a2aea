"""Which labels of the index a question's named quantity was matched to, and how; and what
an ingest did to the generation's label vocabulary.

A bound constraint ("setup fee under $500") asks for facts whose label is the quantity it
names. The labels a generation's facts hold form its **label vocabulary**
(:mod:`osrag.ingestion.label_vocabulary`); a search reports, for each named quantity, the
labels of that vocabulary it matched (:class:`LabelMatches`):

* ``key`` — the label holds the key of the asked name itself (``"Setup fee"``, ``"Total
  setup fees"``): an exact term;
* ``synonym`` — the label holds a key of one of the name's alternatives in the vocabulary
  (a listed synonym: "net sales" for "revenue"; the name without a generic word);
* ``form`` — the label holds a key of the same words' stems (``"Bridging loan"`` for
  "bridge loans"), and ``modifier`` — the asked name is a thing and a last word that only
  says it is paid for ("outgoing wire fee", "implementation fee") and the label names the
  thing (``"Outgoing wire transfer"``, ``"Implementation"``): both add the label's keys;
* ``meaning`` — the label names the quantity in other words (``"Installation charge"`` for
  "setup fee"): its embedding is within the threshold's cosine of the asked name's, and
  the keys it holds that only matched labels hold are added to the constraint's filter.

Only labels of documents the caller may see are ever matched or named.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

MatchedBy = Literal["key", "synonym", "form", "modifier", "meaning", "words"]
VocabularyUse = Literal["meaning", "keys", "none"]
"""How a search could match labels: by ``meaning`` (the vocabulary has vectors and an
embedder to compare them with), by ``keys`` alone (a vocabulary without vectors, or whose
embedder is not available to the search, or meaning switched off), or ``none`` (the
generation keeps no vocabulary: keys alone, and nothing can be said about what matched)."""


class LabelMatch(BaseModel):
    """One label of the vocabulary a named quantity matched."""

    label: str = Field(description="the label as the document writes it")
    by: MatchedBy = Field(
        description="key, synonym, form (a key of its words' stems: 'Bridging loan' for "
        "'bridge loan'), modifier (the thing the asked name's fee, charge, cost, price or rate "
        "is paid for: 'Outgoing wire transfer' for 'outgoing wire fee'), meaning, or words "
        "(more than half of the asked name's naming words: 'Termite / wood-destroying insect "
        "inspection' for 'termite inspections'; or the labels holding the asked name's longest "
        "tail: 'Weekend service call' for 'appliance repair weekend service calls'; asked at "
        "the ladder's worded step only; see the module docstring)"
    )
    cosine: float | None = Field(
        default=None, description="meaning: the cosine of its embedding and the asked name's"
    )
    keys: list[str] = Field(
        default_factory=list,
        description="key and synonym: the asked keys it holds; form, modifier and meaning: "
        "the keys it adds to the filter (modifier and meaning: none when every key it holds "
        "is also held by a label that did not match: it then adds nothing)",
    )


class LabelMatches(BaseModel):
    """The labels one bound constraint's named quantity matched (see the module docstring)."""

    name: str = Field(description="the quantity the question names (the constraint's label)")
    asked_keys: list[str] = Field(description="the keys the constraint asks for by words alone")
    vocabulary: VocabularyUse = Field(description="how labels could be matched")
    threshold: float | None = Field(
        default=None, description="the cosine a label's meaning must reach (meaning only)"
    )
    labels: int = Field(
        default=0, description="labels of the vocabulary the caller may see (its size for them)"
    )
    matches: list[LabelMatch] = Field(
        default_factory=list,
        description="the labels matched: every one by meaning, best first; by key and by "
        "synonym the first few (the counts say how many)",
    )
    by_key: int = Field(default=0, description="labels matched by the asked name's own key")
    by_synonym: int = Field(default=0, description="labels matched by an alternative's key")
    by_form: int = Field(
        default=0, description="labels matched by a key of the same stems as an asked key"
    )
    by_modifier: int = Field(
        default=0,
        description="labels matched by the modifier of an asked fee, charge, cost, price or rate",
    )
    by_meaning: int = Field(default=0, description="labels matched by meaning")
    added_keys: list[str] = Field(
        default_factory=list,
        description="the keys form, modifier and meaning added to the constraint's filter",
    )
    by_words: int = Field(
        default=0,
        description="labels holding more than half of the asked name's naming words, matched "
        "no other way: the amount ladder's worded step asks for their keys",
    )
    worded_keys: list[str] = Field(
        default_factory=list, description="the keys the worded step asks for (by_words' labels)"
    )
    note: str | None = Field(
        default=None,
        description="what the search could not do or found: no label matched, no vocabulary, "
        "the vocabulary's embedder not available",
    )

    @property
    def matched(self) -> bool:
        """Whether any label the caller may see is the named quantity (by key, synonym or
        meaning); unknown (True) without a vocabulary."""
        if self.vocabulary == "none":
            return True
        return bool(self.by_key or self.by_synonym or self.added_keys)


class LabelVocabularyReport(BaseModel):
    """What an ingest did to its generation's label vocabulary (``osrag ingest --json``)."""

    labels: int = Field(description="distinct labels the generation's facts hold now")
    added: int = Field(default=0, description="labels new to the generation")
    removed: int = Field(default=0, description="labels no document of it holds any more")
    embedder: str | None = Field(
        default=None,
        description="the embedder of the labels' vectors (the generation's, else the offline "
        "default); None: no vectors — questions match labels by keys alone",
    )
    vectors_embedded: int = Field(default=0, description="label vectors computed by the embedder")
    vectors_cached: int = Field(default=0, description="label vectors found in the vector cache")
    vectors_from_generation: int = Field(
        default=0,
        description="label vectors read back from the generation this one replaces (same embedder)",
    )
    vectors_left_out: int = Field(
        default=0,
        description="new labels given no vector: beyond the most a finish embeds (the most "
        "widely held are embedded); they match by keys alone",
    )
    rebuilt: bool = Field(
        default=False,
        description="rebuilt from every document's labels (an earlier ingest stopped while "
        "updating it)",
    )
    note: str | None = None
