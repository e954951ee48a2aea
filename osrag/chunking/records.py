"""The one constructor of every chunk: :func:`make_chunk`.

Rule: a chunk is a record, not a string. Given the document, the strategy,
the chunk's index, its source span, its breadcrumb and heading path, and its
token span, ``make_chunk`` derives everything else:

- ``body = normalize(doc.text[span.start:span.end])`` (see :mod:`.normalize`);
- ``text = breadcrumb + "\\n" + body`` (what is searched), or ``body`` alone when the
  breadcrumb is empty (a document without a title or headings: nothing is prepended);
- ``content_digest = sha256(text)`` (hex) and
  ``chunk_id = f"{doc_id}#{chunk_index}#{content_digest[:16]}"``;
- identity (``doc_id``, ``source_path``, ``source_version``), provenance
  (``strategy``, ``tokenizer``, ``parser``) and the document's metadata, copied
  so each chunk can be filtered on its own.

Invariant: because ``body`` is derived here from the span, the span invariant
holds by construction for every strategy. Chunks are built without pydantic
re-validation (this function is the one place that guarantees the fields; a
test checks that every record it builds survives ``Chunk.model_validate``
unchanged). Pydantic's own ``model_construct`` costs ~20 µs a record on the
benchmark machine — more than all of the chunking — so the instances are
filled here the way ``model_construct`` fills them (``__dict__`` and the three
pydantic slots), which costs a fraction of that.
"""

from __future__ import annotations

import hashlib

from osrag.chunking.normalize import normalize
from osrag.models import Chunk, Document, Span, TokenSpan

__all__ = ["make_chunk"]


_new = object.__new__
_set = object.__setattr__

# Every field is set, so ``__pydantic_fields_set__`` is the full set; one set per
# model is shared (pydantic only ever adds field names to it, which are already
# there).
_CHUNK_FIELDS = set(Chunk.model_fields)
_SPAN_FIELDS = set(Span.model_fields)
_TOKEN_SPAN_FIELDS = set(TokenSpan.model_fields)


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
) -> Chunk:
    """Build chunk number ``index`` of ``doc`` from the source interval ``[start, end)``."""
    if not (doc.content_start <= start <= end <= len(doc.text)) or not (
        0 <= token_start <= token_end
    ):
        raise ValueError(
            f"{doc.source_path}: chunk {index} has span [{start}, {end}) / tokens "
            f"[{token_start}, {token_end}) outside the document"
        )
    body = normalize(doc.text[start:end])
    text = breadcrumb + "\n" + body if breadcrumb else body
    digest = hashlib.sha256(text.encode()).hexdigest()
    d = doc.__dict__
    span = _new(Span)
    _set(span, "__dict__", {"start": start, "end": end})
    _set(span, "__pydantic_fields_set__", _SPAN_FIELDS)
    _set(span, "__pydantic_extra__", None)
    _set(span, "__pydantic_private__", None)
    token_span = _new(TokenSpan)
    _set(token_span, "__dict__", {"start": token_start, "end": token_end})
    _set(token_span, "__pydantic_fields_set__", _TOKEN_SPAN_FIELDS)
    _set(token_span, "__pydantic_extra__", None)
    _set(token_span, "__pydantic_private__", None)
    chunk = _new(Chunk)
    _set(
        chunk,
        "__dict__",
        {
            "chunk_id": f"{d['doc_id']}#{index}#{digest[:16]}",
            "doc_id": d["doc_id"],
            "source_path": d["source_path"],
            "source_version": d["source_version"],
            "strategy": strategy,
            "chunk_index": index,
            "title": d["title"],
            "text": text,
            "body": body,
            "breadcrumb": breadcrumb,
            "heading_path": heading_path,
            "span": span,
            "token_span": token_span,
            "tokenizer": tokenizer,
            "parser": parser,
            "content_digest": digest,
            "category": d["category"],
            "tenant": d["tenant"],
            "acl": d["acl"][:],
            "effective_from": d["effective_from"],
            "superseded_on": d["superseded_on"],
            "meta": d["meta"].copy(),
            "amounts": [],
            "money": [],
            "dates": [],
            "identifiers": [],
        },
    )
    _set(chunk, "__pydantic_fields_set__", _CHUNK_FIELDS)
    _set(chunk, "__pydantic_extra__", None)
    _set(chunk, "__pydantic_private__", None)
    return chunk


# make_chunk must fill every field of Chunk; fail at import, not in production,
# when a field is added to the model without being added here.
_probe = Document(doc_id="p", source_path="p", source_version="p", title="p", text="p")
_filled = make_chunk(
    _probe,
    strategy="p",
    index=0,
    start=0,
    end=1,
    breadcrumb="p",
    heading_path=[],
    token_start=0,
    token_end=1,
    tokenizer="p",
    parser="p",
).__dict__
if set(_filled) != _CHUNK_FIELDS:  # pragma: no cover - a developer error
    raise ImportError(f"make_chunk fills {sorted(_filled)}; Chunk has {sorted(_CHUNK_FIELDS)}")
del _probe, _filled
