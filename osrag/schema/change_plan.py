"""What a change of an alias's corpus or configuration costs: the ``osrag plan`` record.

Built by :func:`osrag.ingestion.cost.price_changes` (pure) and
:func:`osrag.ingestion.cost.plan_change` (which reads the alias); ``osrag plan --json``
and ``osrag ingest --dry-run --json`` print its ``model_dump_json()``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

DocumentKind = Literal["new", "changed", "unchanged", "removed", "failed"]


class SettingChange(BaseModel):
    """One value of the generation's configuration or versions that the change moves."""

    setting: str = Field(description="dotted path: chunking.max_tokens, versions.extractors, …")
    before: str | None
    after: str | None


class DocumentCounts(BaseModel):
    """Documents against the alias's current generation."""

    unchanged: int = 0
    changed: int = 0
    new: int = 0
    removed: int = Field(
        default=0, description="held by the alias now and not after the change (lost to it)"
    )
    failed: int = Field(default=0, description="could not be read: their chunks are kept")


class ChunkCounts(BaseModel):
    """Chunks against the alias's current generation, matched by document and text."""

    before: int = 0
    after: int = 0
    unchanged: int = Field(
        default=0, description="same document, same text as a chunk the alias holds now"
    )
    changed: int = Field(default=0, description="new text in a document the alias holds now")
    new: int = Field(default=0, description="chunks of documents the alias does not hold")
    removed: int = Field(default=0, description="chunks held now whose text is gone")
    to_write: int = Field(
        default=0,
        description="records written: every chunk of a new generation; in place, every "
        "chunk of a changed document (an unchanged text's record moves to the new version)",
    )
    to_delete: int = 0


class VectorCounts(BaseModel):
    """Where the vectors of the chunks to write come from (an embedder configured)."""

    from_generation: int = Field(
        default=0,
        description="read back from a generation built by the same embedder fingerprint "
        "(same document, same text)",
    )
    from_cache: int = Field(
        default=0, description="in the local vector cache, or a repeat of a text embedded here"
    )
    to_embed: int = Field(default=0, description="texts the embedder will be asked for")
    tokens_to_embed: int = 0
    tokens_counted_with: str = Field(
        default="",
        description="the embedder's own tokenizer, or the chunking tokenizer (an estimate "
        "for a service whose tokenizer osrag does not know)",
    )


class EmbeddingCost(BaseModel):
    """What embedding the new texts takes: time on this machine, tokens and money."""

    embedder: str | None = None
    fingerprint: str | None = None
    remote: bool = False
    texts_per_second: float | None = None
    tokens_per_second: float | None = None
    rate_source: str = Field(
        default="", description="where the rate comes from: a stored measurement, or none"
    )
    seconds: float | None = Field(
        default=None, description="tokens to embed / tokens per second (None: no rate)"
    )
    price_per_million_tokens: float | None = None
    cost: float | None = Field(
        default=None, description="tokens to embed × price (the embed_price setting)"
    )


class SizeEstimate(BaseModel):
    """Index bytes (primary copies) before and after, scaled from the current generation."""

    bytes_before: int | None = None
    bytes_after: int | None = None
    bytes_per_chunk: float | None = None
    note: str = ""


class DocumentPlan(BaseModel):
    """One document whose chunks change."""

    doc_id: str
    kind: DocumentKind
    unchanged: int = 0
    changed: int = 0
    removed: int = 0
    to_embed: int = 0


class ChangePlan(BaseModel):
    """What applying a proposed configuration to a corpus does to an alias, and costs."""

    alias: str
    current_generation: str | None
    generation: str = Field(description="the generation the change writes")
    new_generation: bool = Field(description="a new generation is built (the alias then moves)")
    alias_moves: bool = Field(
        default=False,
        description="the alias moves to the generation written (a new one, or one built "
        "before with this configuration, e.g. after a rollback)",
    )
    settings: list[SettingChange] = Field(
        default_factory=list, description="what differs from the current generation's"
    )
    scope: str = Field(
        default="every document",
        description="the documents the plan covers: the caller's tenant and groups, as a "
        "search sees them",
    )
    documents: DocumentCounts = Field(default_factory=DocumentCounts)
    chunks: ChunkCounts = Field(default_factory=ChunkCounts)
    vectors: VectorCounts | None = None
    embedding: EmbeddingCost | None = None
    size: SizeEstimate = Field(default_factory=SizeEstimate)
    warnings: list[str] = Field(default_factory=list)
    changed_documents: list[DocumentPlan] = Field(
        default_factory=list, description="the documents that are not unchanged, corpus order"
    )
