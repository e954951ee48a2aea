"""What an ingest records: generations, manifest documents, access policies, changes, the report."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
)

from osrag.schema.documents import LoadIssue
from osrag.schema.labels import LabelVocabularyReport


class GenerationRecord(BaseModel):
    """A generation index and the configuration that built it (stored in the manifest)."""

    name: str
    alias: str
    digest: str
    number: int
    config: dict[str, Any]
    versions: dict[str, str]
    state: Literal["building", "ready"] = "building"
    created_at: dt.datetime
    completed_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    documents: int = 0
    chunks: int = 0
    tenants: list[str] = Field(default_factory=list)
    has_acl: bool = False
    chunks_truncated: int = Field(
        default=0, description="chunks longer than the embedder's window (their end not embedded)"
    )
    tokens_truncated: int = Field(
        default=0, description="embedder tokens past the window, over those chunks"
    )

    @property
    def multi_tenant(self) -> bool:
        return bool(self.tenants)


class DocumentRecord(BaseModel):
    """What the manifest remembers of one document in one generation."""

    generation: str
    doc_id: str
    source_path: str
    source_version: str
    chunk_ids: list[str]
    tenant: str | None = None
    has_acl: bool = False
    metadata_digest: str = ""
    chunks_truncated: int = 0
    """Of its chunks, those longer than the embedder's window."""
    tokens_truncated: int = 0
    """Their embedder tokens past the window."""
    """Digest of the document-level fields copied onto every chunk (title, tenant, ACL,
    category, dates, meta): when it changes, every chunk is rewritten even where the
    text — and so the chunk id — did not change."""
    ingested_at: dt.datetime


class AccessPolicy(BaseModel):
    """What an alias has ever held, recorded before the first such chunk is written.

    Monotonic: once an alias has held a tenant's documents it requires a tenant
    from every caller, even after those documents are gone."""

    tenants: bool = False
    acl: bool = False


class ChangeRecord(BaseModel):
    """The log of replacements and deletions, so stale citations can be detected."""

    generation: str
    doc_id: str
    action: Literal["added", "replaced", "deleted"]
    old_ids: list[str] = Field(default_factory=list)
    new_ids: list[str] = Field(default_factory=list)
    at: dt.datetime


class FactsDropped(BaseModel):
    """A chunk that held more amount facts than the engine's nested-object limit: it went
    in with the first ``kept`` facts by position; ``dropped`` facts from the span
    ``first_dropped`` on were left out of its nested ``facts`` (its flat amounts keep
    every value)."""

    doc_id: str
    chunk_id: str
    kept: int
    dropped: int
    first_dropped: tuple[int, int] = Field(
        description="[start, end) of the first dropped fact in the document text (code points)"
    )
    first_dropped_raw: str = Field(description="that fact's figures as written")


class IngestReport(BaseModel):
    """What ``osrag ingest --json`` prints."""

    generation: str
    alias: str
    documents: int = 0
    chunks_written: int = 0
    chunks_deleted: int = 0
    chunks_unchanged: int = 0
    documents_unchanged: int = 0
    documents_changed: int = 0
    documents_added: int = 0
    documents_removed: int = 0
    documents_empty: list[str] = Field(default_factory=list)
    errors: list[LoadIssue] = Field(default_factory=list)
    new_generation: bool = False
    alias_moved: bool = False
    previous_generation: str | None = None
    dry_run: bool = False
    orphans_deleted: int = Field(
        default=0,
        description="chunks found in the index that the manifest did not list (left by an "
        "interrupted ingest) and deleted",
    )
    lock_wait_seconds: float = Field(default=0.0, description="time spent waiting for the lock")
    chunks_embedded: int = Field(default=0, description="chunk texts the embedder was asked for")
    vectors_reused: int = Field(
        default=0, description="chunk vectors taken from the cache (their text was embedded before)"
    )
    vectors_from_generation: int = Field(
        default=0,
        description="chunk vectors read back from a generation built by the same embedder "
        "(same document, same text)",
    )
    throttled: int = Field(
        default=0,
        description="chunk writes the engine answered 429 (back-pressure) and were resent",
    )
    bulk_retries: int = Field(default=0, description="back-off rounds those resends took")
    chunks_truncated: int = Field(
        default=0,
        description="written chunks longer than the embedder's window: the embedder sees "
        "only their first window of tokens",
    )
    tokens_truncated: int = Field(
        default=0, description="embedder tokens of written chunks past the window (not embedded)"
    )
    seconds: float = Field(
        default=0.0, description="time of the ingest itself (lock wait excluded)"
    )
    labels_cut: int = Field(
        default=0,
        description="facts of written chunks whose label was cut to its bound (it ends in …)",
    )
    headings_cut: int = Field(
        default=0,
        description="written chunks whose breadcrumb holds a heading cut to its bound",
    )
    breadcrumbs_shortened: int = Field(
        default=0,
        description="written chunks whose breadcrumb was shortened in their text, to its share "
        "of the embedder's window",
    )
    facts_dropped: list[FactsDropped] = Field(
        default_factory=list,
        description="chunks over the engine's nested-object limit, and the facts each lost",
    )
    label_vocabulary: LabelVocabularyReport | None = Field(
        default=None,
        description="the generation's label vocabulary after the ingest (None: it keeps none, "
        "or the ingest changed nothing)",
    )


def generation_name(alias: str, digest: str, number: int) -> str:
    """``<alias>-<digest>-<n>``: the index of generation ``n`` of ``alias`` for ``digest``."""
    return f"{alias}-{digest}-{number}"


GENERATION_NAME = re.compile(r"(?P<alias>.+)-(?P<digest>[0-9a-f]{8})-(?P<number>\d+)")
"""``<alias>-<digest>-<n>``: how :func:`generation_name` names generations."""


def generation_pattern(alias: str) -> re.Pattern[str]:
    """The names of the generations of ``alias`` (and of no other alias)."""
    return re.compile(re.escape(alias) + r"-[0-9a-f]{8}-\d+")
