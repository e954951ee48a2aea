"""The one constructor of every chunk, :func:`make_chunk`, and its one JSON shape,
:func:`chunk_source`.

Rule: a chunk is a record, not a string. Given the document, the strategy,
the chunk's index, its source span, its breadcrumb and heading path, and its
token span, ``make_chunk`` derives everything else:

- ``body = normalize(doc.text[span.start:span.end])`` (see :mod:`.normalize`);
- ``text = breadcrumb + "\n" + body`` (what is searched), or ``body`` alone when the
  breadcrumb is empty (a document without a title or headings: nothing is prepended);
  the breadcrumb as the text holds it (``shown``) is shortened when the embedder's window
  leaves it only a share (:func:`osrag.chunking.window.shown_breadcrumb`), and
  :func:`text_breadcrumb` reads it back;
- ``pages`` / ``elements``: the PDF pages or DOCX/HTML elements the span
  touches, from the document's location map (:func:`osrag.schema.locations.units_in_span`);
- ``content_digest = sha256(text)`` (hex) and
  ``chunk_id = f"{doc_id}#{chunk_index}#{content_digest[:16]}"``;
- ``tokens``: the chunk's length in its tokenizer's tokens; ``embedder_tokens`` and
  ``tokens_lost`` (what its embedded text costs the embedder, special tokens included,
  and how much of that is past the window) are set by
  :func:`osrag.chunking.window.annotate` when the config names an embedder window;
- identity (``doc_id``, ``source_path``, ``source_version``), provenance
  (``strategy``, ``tokenizer``, ``parser``) and the document's metadata, copied
  so each chunk can be filtered on its own.

Invariant: because ``body`` is derived here from the span, the span invariant
holds by construction for every strategy. The record is a slotted dataclass
(:class:`~osrag.models.Chunk`) built without validation: this function is the
one place that guarantees its fields.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from osrag.chunking.normalize import normalize
from osrag.lexicon.bounds import ELLIPSIS, HEADING_CHARS, shorten
from osrag.models import Chunk, Document, Span, TokenSpan
from osrag.schema.locations import units_in_span

__all__ = [
    "chunk_source",
    "cuts",
    "heading_part",
    "make_chunk",
    "metadata_digest",
    "text_breadcrumb",
]


def make_chunk(
    doc: Document,
    *,
    strategy: str,
    index: int,
    start: int,
    end: int,
    breadcrumb: str,
    heading_path: list[str],
    token_start: int,
    token_end: int,
    tokenizer: str,
    parser: str,
    shown: str | None = None,
) -> Chunk:
    """Build chunk number ``index`` of ``doc`` from the source interval ``[start, end)``;
    ``shown``: the breadcrumb as ``text`` holds it (``breadcrumb`` unless shortened)."""
    if not (doc.content_start <= start <= end <= len(doc.text)) or not (
        0 <= token_start <= token_end
    ):
        raise ValueError(
            f"{doc.source_path}: chunk {index} has span [{start}, {end}) / tokens "
            f"[{token_start}, {token_end}) outside the document"
        )
    body = normalize(doc.text[start:end])
    crumb = breadcrumb if shown is None else shown
    text = crumb + "\n" + body if crumb else body
    digest = hashlib.sha256(text.encode()).hexdigest()
    locations = doc.locations
    units = units_in_span(locations, start, end) if locations is not None else []
    by_page = locations is not None and locations.unit == "page"
    return Chunk(
        f"{doc.doc_id}#{index}#{digest[:16]}",
        doc.doc_id,
        doc.source_path,
        doc.source_version,
        strategy,
        index,
        doc.title,
        text,
        body,
        breadcrumb,
        heading_path,
        Span(start, end),
        TokenSpan(token_start, token_end),
        tokenizer,
        parser,
        digest,
        units if by_page else [],
        [] if by_page else units,
        doc.category,
        doc.tenant,
        doc.acl[:],
        doc.effective_from,
        doc.superseded_on,
        doc.meta.copy(),
        tokens=token_end - token_start,
    )


def heading_part(text: str) -> str:
    """A heading (or the title) as a breadcrumb and a heading path hold it: its own ``…``
    written as three dots — so a ``…`` there is only ever the mark of a cut — and within
    ``HEADING_CHARS`` (:mod:`osrag.lexicon.bounds`)."""
    if ELLIPSIS not in text and len(text) <= HEADING_CHARS:
        return text
    return shorten(text.replace(ELLIPSIS, "..."), HEADING_CHARS)


def text_breadcrumb(chunk: Chunk) -> str:
    """The breadcrumb as ``chunk.text`` holds it (``text`` is it, a newline, the body)."""
    return chunk.text[: max(0, len(chunk.text) - len(chunk.body) - 1)]


def cuts(chunk: Chunk) -> tuple[int, int, int]:
    """What the length bounds cut in ``chunk`` (:mod:`osrag.lexicon.bounds`): its facts
    whose label was cut, whether a heading of its breadcrumb was (1 or 0), whether its
    breadcrumb was shortened in its text (1 or 0). A ``…`` in a label or a heading is
    only ever the mark of a cut."""
    labels = sum(1 for fact in chunk.facts if fact.label and ELLIPSIS in fact.label)
    heading = ELLIPSIS in chunk.breadcrumb
    shortened = bool(chunk.breadcrumb) and text_breadcrumb(chunk) != chunk.breadcrumb
    return labels, int(heading), int(shortened)


def chunk_source(chunk: Chunk, generation: str | None = None) -> dict[str, Any]:
    """The chunk as the JSON document every engine stores (dates stay ``date`` objects;
    the JSON writer of each engine turns them into ISO days)."""
    source: dict[str, Any] = {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "source_path": chunk.source_path,
        "source_version": chunk.source_version,
        "strategy": chunk.strategy,
        "chunk_index": chunk.chunk_index,
        "title": chunk.title,
        "text": chunk.text,
        "body": chunk.body,
        "breadcrumb": chunk.breadcrumb,
        "heading_path": chunk.heading_path,
        "span": {"start": chunk.span.start, "end": chunk.span.end},
        "token_span": {"start": chunk.token_span.start, "end": chunk.token_span.end},
        "tokens": chunk.tokens,
        "embedder_tokens": chunk.embedder_tokens,
        "tokens_lost": chunk.tokens_lost,
        "tokenizer": chunk.tokenizer,
        "parser": chunk.parser,
        "content_digest": chunk.content_digest,
        "pages": chunk.pages,
        "elements": chunk.elements,
        "category": chunk.category,
        "tenant": chunk.tenant,
        "acl": chunk.acl,
        "effective_from": chunk.effective_from,
        "superseded_on": chunk.superseded_on,
        "meta": chunk.meta,
        "amounts": chunk.amounts,
        "money": chunk.money,
        "dates": chunk.dates,
        "identifiers": chunk.identifiers,
        "amount_evidence": chunk.amount_evidence,
        "facts": [fact.source_dict() for fact in chunk.facts],
    }
    if generation is not None:
        source["generation"] = generation
    return source


def metadata_digest(doc: Document) -> str:
    """16 hex of SHA-256 over the document-level fields every chunk carries beside its text.

    A chunk id covers only the searched text; when this digest changes (an ACL, a
    tenant, a category edited in front matter) every chunk must be rewritten.
    """
    fields = {
        "title": doc.title,
        "source_path": doc.source_path,
        "category": doc.category,
        "tenant": doc.tenant,
        "acl": sorted(doc.acl),
        "effective_from": doc.effective_from.isoformat() if doc.effective_from else None,
        "superseded_on": doc.superseded_on.isoformat() if doc.superseded_on else None,
        "meta": doc.meta,
    }
    payload = json.dumps(fields, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]
