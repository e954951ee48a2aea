"""The manifest of an alias: what each generation holds, written once for every engine.

It lives in the alias's :class:`~osrag.engines.base.RecordStore` (an index
``<alias>.manifest`` on OpenSearch and Elasticsearch, SQLite beside the
embedded index) as small JSON records:

=============  ================================  ==========================================
kind           key                               record
=============  ================================  ==========================================
generation     ``<name>``                        :class:`GenerationRecord`: config, versions,
                                                 state (building/ready), counts
document       ``<generation>::<doc_id>``        :class:`DocumentRecord`: source version,
                                                 chunk ids, tenant, ACL, metadata digest
change         ``<generation>::<doc_id>::<at>``  :class:`ChangeRecord`: which ids replaced
                                                 which (the log of replacements, deletions)
policy         ``access``                        :class:`AccessPolicy`: has the alias ever
                                                 held tenants / ACLs
=============  ================================  ==========================================

The ingest lock is a record of the same store (:mod:`osrag.ingestion.lock`), and so is each
generation's label vocabulary (:mod:`osrag.ingestion.label_vocabulary`), forgotten with it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pydantic import ValidationError

from osrag.engines.base import RecordStore
from osrag.errors import IndexStateError
from osrag.ingestion.label_vocabulary import LABEL_KINDS, LABEL_STATE
from osrag.models import AccessPolicy, ChangeRecord, DocumentRecord, GenerationRecord

GENERATION, DOCUMENT, CHANGE, POLICY = "generation", "document", "change", "policy"
_POLICY_KEY = "access"


def _document_key(generation: str, doc_id: str) -> str:
    return f"{generation}::{doc_id}"


class Manifest:
    """The records of one alias (see the module docstring)."""

    def __init__(self, store: RecordStore, alias: str) -> None:
        self.store = store
        self.alias = alias

    def _broken(self, kind: str, key: str, exc: ValidationError) -> IndexStateError:
        first = exc.errors()[0]
        return IndexStateError(
            f"the manifest of {self.alias!r} holds an unreadable {kind} record {key!r} "
            f"({'.'.join(map(str, first['loc']))}: {first['msg']}): it was written by another "
            "osrag version, or edited by hand"
        )

    # -------------------------------------------------------------------- generations

    def generation(self, name: str) -> GenerationRecord | None:
        found = self.store.get(GENERATION, name)
        if found is None:
            return None
        try:
            return GenerationRecord.model_validate(found.data)
        except ValidationError as exc:
            raise self._broken(GENERATION, name, exc) from None

    def generations(self) -> list[GenerationRecord]:
        """Every generation recorded for the alias, oldest first."""
        self.store.refresh()
        records = []
        for key, data in self.store.scan(GENERATION):
            try:
                records.append(GenerationRecord.model_validate(data))
            except ValidationError as exc:
                raise self._broken(GENERATION, key, exc) from None
        return sorted(records, key=lambda r: (r.created_at, r.name))

    def put_generation(self, record: GenerationRecord) -> None:
        self.store.put(GENERATION, record.name, record.model_dump(mode="json"))

    def forget_generation(self, name: str) -> None:
        """The generation's record, its document records, its change log and its label
        vocabulary (:mod:`osrag.ingestion.label_vocabulary`)."""
        self.store.refresh()
        for kind in (DOCUMENT, CHANGE, *LABEL_KINDS):
            keys = [key for key, _ in self.store.scan(kind, f"{name}::")]
            self.store.delete_many(kind, keys)
        self.store.delete(LABEL_STATE, name)
        self.store.delete(GENERATION, name)

    # -------------------------------------------------------------------- documents

    def documents(self, generation: str) -> Iterator[DocumentRecord]:
        self.store.refresh()
        for key, data in self.store.scan(DOCUMENT, f"{generation}::"):
            try:
                yield DocumentRecord.model_validate(data)
            except ValidationError as exc:
                raise self._broken(DOCUMENT, key, exc) from None

    def documents_for(self, generation: str, doc_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        if not doc_ids:
            return {}
        found = self.store.get_many(DOCUMENT, [_document_key(generation, d) for d in doc_ids])
        records = {}
        for key, data in found.items():
            try:
                record = DocumentRecord.model_validate(data)
            except ValidationError as exc:
                raise self._broken(DOCUMENT, key, exc) from None
            records[record.doc_id] = record
        return records

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        if records:
            self.store.put_many(
                DOCUMENT,
                [
                    (_document_key(r.generation, r.doc_id), r.model_dump(mode="json"))
                    for r in records
                ],
            )

    def delete_documents(self, generation: str, doc_ids: Sequence[str]) -> None:
        if doc_ids:
            self.store.delete_many(DOCUMENT, [_document_key(generation, d) for d in doc_ids])

    # -------------------------------------------------------------------- the change log

    def log(self, changes: Sequence[ChangeRecord]) -> None:
        if changes:
            self.store.put_many(
                CHANGE,
                [
                    (
                        f"{c.generation}::{c.doc_id}::{c.at.isoformat()}::{n}",
                        c.model_dump(mode="json"),
                    )
                    for n, c in enumerate(changes)
                ],
            )

    def changes(self, generation: str, doc_id: str | None = None) -> list[ChangeRecord]:
        """The log of one generation (of one document), oldest first."""
        prefix = f"{generation}::" if doc_id is None else f"{generation}::{doc_id}::"
        self.store.refresh()
        records = [ChangeRecord.model_validate(data) for _, data in self.store.scan(CHANGE, prefix)]
        if doc_id is not None:
            records = [r for r in records if r.doc_id == doc_id]
        return sorted(records, key=lambda r: r.at)

    # -------------------------------------------------------------------- access policy

    def policy(self) -> AccessPolicy:
        """Read fresh on every call: access decisions never rest on a cached answer."""
        found = self.store.get(POLICY, _POLICY_KEY)
        return AccessPolicy.model_validate(found.data) if found else AccessPolicy()

    def widen_policy(self, *, tenants: bool, acl: bool) -> AccessPolicy:
        """Record that the alias now holds tenants and/or ACLs (never narrowed). Called before
        the first such chunk is written, so no search can see it before the policy."""
        current = self.policy()
        wider = AccessPolicy(tenants=current.tenants or tenants, acl=current.acl or acl)
        if wider != current:
            self.store.put(POLICY, _POLICY_KEY, wider.model_dump(mode="json"))
        return wider

    def refresh(self) -> None:
        self.store.refresh()
