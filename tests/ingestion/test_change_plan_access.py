"""A change plan shows a caller only the documents a search of theirs would see.

The gold is the documents' own front matter (tenant and ACL), read here with a regular
expression, not by osrag: a caller sees their tenant's documents whose ACL is empty or
names one of their groups. An alias that holds tenants refuses a caller without one.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from backend_cases import BackendCase

from osrag.errors import QueryError
from osrag.ingestion.change_plan import Caller, plan_change
from osrag.ingestion.ingest import IngestOptions, ingest

INSURANCE = Path(__file__).resolve().parents[1] / "data" / "insurance"
NEW = """---
id: globex-marine
title: Globex Marine Cargo
tenant: globex
acl: [underwriters]
---

# Globex Marine Cargo

Cargo is covered up to $2,000,000 per shipment.
"""


def front_matter(path: Path) -> tuple[str, str, set[str]]:
    """(id, tenant, ACL groups) as the file states them."""
    text = path.read_text(encoding="utf-8").split("---")[1]
    doc_id = re.search(r"^id: (.+)$", text, re.M)
    tenant = re.search(r"^tenant: (.+)$", text, re.M)
    acl = re.search(r"^acl: \[(.*)\]$", text, re.M)
    assert doc_id and tenant and acl
    groups = {g.strip() for g in acl.group(1).split(",") if g.strip()}
    return doc_id.group(1).strip(), tenant.group(1).strip(), groups


def seen_by(docs: list[tuple[str, str, set[str]]], tenant: str, groups: set[str]) -> set[str]:
    found = set()
    for doc_id, doc_tenant, acl in docs:
        if doc_tenant == tenant and (not acl or acl & groups):
            found.add(doc_id)
    return found


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    shutil.copytree(INSURANCE, folder)
    return folder


def test_a_plan_shows_a_caller_only_what_their_search_sees(
    backend_case: BackendCase, corpus: Path
) -> None:
    backend, alias = backend_case.backend, backend_case.alias
    options = IngestOptions(alias=alias)
    ingest(corpus, backend, options)
    before = [front_matter(p) for p in corpus.glob("*.md") if p.name != "EXPECTED.md"]
    for gone in ("umb-3m-classic.md", "umb-commercial-300m.md"):  # acme agents; globex underwriters
        (corpus / gone).unlink()
    for edited in ("home-2024.md", "umb-eur-300k.md"):  # acme agents; globex agents
        path = corpus / edited
        path.write_text(path.read_text() + "\nAn added paragraph about the deductible.\n")
    (corpus / "globex-marine.md").write_text(NEW)
    after = [front_matter(p) for p in corpus.glob("*.md") if p.name != "EXPECTED.md"]

    with pytest.raises(QueryError, match="several tenants"):
        plan_change(corpus, backend, options, caller=Caller(), calibrate=False)

    for tenant, groups in [
        ("acme", {"agents"}),
        ("acme", set()),
        ("globex", {"agents"}),
        ("globex", {"underwriters"}),
        ("initech", {"agents", "underwriters"}),
    ]:
        caller = Caller(tenant=tenant, groups=tuple(sorted(groups)))
        plan = plan_change(corpus, backend, options, caller=caller, calibrate=False)
        visible_before = seen_by(before, tenant, groups)
        visible_after = seen_by(after, tenant, groups)
        listed = {row.doc_id for row in plan.changed_documents}
        assert listed <= visible_before | visible_after, (tenant, groups)
        counts = plan.documents
        assert counts.removed == len(visible_before - visible_after)
        assert counts.new == len(visible_after - visible_before)
        assert counts.unchanged + counts.changed == len(visible_before & visible_after)
        assert tenant in plan.scope

    everything = plan_change(
        corpus, backend, options, caller=Caller(unrestricted=True), calibrate=False
    )
    assert everything.documents.removed == 2 and everything.documents.new == 1
    assert everything.documents.changed == 2
