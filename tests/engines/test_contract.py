"""The contract every engine signs: one suite, run over every ChunkIndex and RecordStore.

A new engine is added to ``ENGINES`` (see ``backend_cases.open_case``) and must pass
all of it: generations and the alias (compare-and-swap), bulk writes with an outcome
per item, refresh, ``count`` and ``chunk_ids`` under typed filters, ``search`` of
typed plans answered as osrag's hit records, and the record store's conditional
writes, on which the manifest and the ingest lock rest.
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from backend_cases import BackendCase, generation_body, stored_chunk

from osrag.engines.base import Delete, Put, RecordConflict
from osrag.errors import IndexStateError, LockedError, QueryError
from osrag.ingestion.lock import LOCK, LOCK_KEY, IngestLock, LockRecord, break_lock, holder
from osrag.schema.filters import AnyOf, NamedFilter, Not, Range, Term, Terms
from osrag.schema.plan import SearchPlan, Source, TextLeg


def _generation(case: BackendCase, n: int = 1) -> str:
    name = f"{case.alias}-0123abcd-{n}"
    case.backend.create_generation(name, generation_body(case.kind), bulk_loading=n == 1)
    return name


def _source(chunk_id: str, doc_id: str = "doc", body: str = "an umbrella policy") -> dict[str, Any]:
    held = "$300" in body
    return stored_chunk(
        doc_id,
        body,
        chunk_id=chunk_id,
        amounts=[30_000_000] if held else [],
        money=["USD:30000000"] if held else [],
    )


@pytest.fixture
def case(backend_case: BackendCase) -> Any:
    yield backend_case
    backend_case.purge()


# --------------------------------------------------------------------------- generations, alias


def test_generations_are_listed_by_alias_and_dropped(case: BackendCase) -> None:
    one, two = _generation(case, 1), _generation(case, 2)
    assert case.backend.generations(case.alias) == {one, two}
    assert case.backend.generations(f"{case.alias}-other") == set()
    case.backend.drop_generation(one)
    case.backend.drop_generation(one)  # dropping a missing one is not an error
    assert case.backend.generations(case.alias) == {two}


def test_the_alias_moves_only_from_the_generation_it_points_to(case: BackendCase) -> None:
    one, two = _generation(case, 1), _generation(case, 2)
    assert case.backend.alias_target(case.alias) is None
    case.backend.move_alias(case.alias, one, None)
    assert case.backend.alias_target(case.alias) == one
    with pytest.raises(IndexStateError):
        case.backend.move_alias(case.alias, two, None)  # it points somewhere now
    with pytest.raises(IndexStateError):
        case.backend.move_alias(case.alias, two, two)  # not where it points
    assert case.backend.alias_target(case.alias) == one
    case.backend.move_alias(case.alias, two, one)
    assert case.backend.alias_target(case.alias) == two


def test_concurrent_swaps_from_the_same_generation_let_exactly_one_win(case: BackendCase) -> None:
    one, two, three = (_generation(case, n) for n in (1, 2, 3))
    case.backend.move_alias(case.alias, one, None)
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def swap(to: str) -> None:
        engine = case.build()
        barrier.wait()
        try:
            engine.move_alias(case.alias, to, one)
            outcomes.append("moved")
        except IndexStateError:
            outcomes.append("refused")

    threads = [threading.Thread(target=swap, args=(to,)) for to in (two, three)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["moved", "refused"]
    assert case.backend.alias_target(case.alias) in (two, three)


# --------------------------------------------------------------------------- writes, count, search


def test_writes_report_each_item_and_deletes_of_missing_ids_are_not_errors(
    case: BackendCase,
) -> None:
    name = _generation(case)
    poisoned = _source("doc#2#c") | {"amounts": ["not a number"]}
    outcome = case.backend.write(
        name,
        [
            Put("doc#0#a", _source("doc#0#a", body="umbrella $300,000 limit")),
            Put("doc#1#b", _source("doc#1#b")),
            Put("doc#2#c", poisoned),
            Delete("doc#9#missing"),
        ],
    )
    assert (outcome.written, outcome.deleted) == (2, 0)
    assert [f.id for f in outcome.failures] == ["doc#2#c"] and outcome.failures[0].reason
    case.backend.finish_generation(name)
    assert case.backend.count(name) == 2
    assert case.backend.count(name, Term("amounts", 30_000_000)) == 1
    again = case.backend.write(name, [Put("doc#1#b", _source("doc#1#b")), Delete("doc#0#a")])
    assert (again.written, again.deleted, again.failures) == (1, 1, [])
    case.backend.refresh(name)
    assert case.backend.count(name) == 1  # overwritten in place, deleted by id


def test_chunk_ids_scan_in_chunk_id_order_page_by_page_under_a_typed_filter(
    case: BackendCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    import osrag.engines.rest.index

    monkeypatch.setattr(osrag.engines.rest.index, "SCAN_PAGE", 3)  # several pages on REST engines
    name = _generation(case)
    ids = [f"d{n % 4}#{n}#{'zyxwvutsrqpo'[n]}" for n in range(12)]
    written = [
        Put(i, _source(i, i.split("#")[0], "umbrella $300K" * (n % 3 == 0)))
        for n, i in enumerate(reversed(ids))
    ]
    assert case.backend.write(name, written).written == 12
    case.backend.finish_generation(name)
    everything = list(case.backend.chunk_ids(name))
    assert [c for c, _ in everything] == sorted(ids)
    assert all(d == c.split("#")[0] for c, d in everything)
    wanted = Terms("doc_id", ("d1", "d3"))
    chosen = list(case.backend.chunk_ids(name, wanted))
    assert chosen == [(c, d) for c, d in everything if d in ("d1", "d3")]
    assert case.backend.count(name, wanted) == len(chosen) == 6
    held = [c for c, _ in case.backend.chunk_ids(name, Range("amounts", gte=30_000_000))]
    assert held == sorted(i for n, i in enumerate(reversed(ids)) if n % 3 == 0)
    either = AnyOf((Term("doc_id", "d0"), Not(Range("amounts", gte=1))))
    expected = {c for c, d in everything if d == "d0"} | (set(ids) - set(held))
    assert [c for c, _ in case.backend.chunk_ids(name, either)] == sorted(expected)
    assert list(case.backend.chunk_ids(name, Terms("doc_id", ()))) == []
    assert case.backend.count(name, Terms("doc_id", ("nobody",))) == 0


def _everything(*filters: Any, **options: Any) -> SearchPlan:
    """A filter-only plan (every chunk passing ``filters``, ranked by them alone)."""
    return SearchPlan(
        mode="bm25",
        text=TextLeg(options.pop("text", ""), no_terms="all"),
        vector=None,
        guards=(),
        filters=tuple(NamedFilter(f"f{n}", f) for n, f in enumerate(filters)),
        **options,
    )


def test_search_answers_one_result_per_plan_in_one_round_trip(case: BackendCase) -> None:
    name = _generation(case)
    case.backend.write(
        name,
        [
            Put(f"d{n}#{n}#x", _source(f"d{n}#{n}#x", f"d{n}", f"umbrella {'$300K' * (n % 2)}"))
            for n in range(6)
        ],
    )
    case.backend.finish_generation(name)
    case.backend.move_alias(case.alias, name, None)
    ranked = _everything(text="umbrella", size=2, source=Source(excludes=("body",)))
    counted = _everything(Term("amounts", 30_000_000), size=0)
    first, second = case.backend.search(case.alias, [ranked, counted])
    assert (first.total, first.candidates, len(first.hits)) == (6, 6, 2)
    for hit in first.hits:
        assert hit.index == name and hit.chunk_id == hit.source["chunk_id"]
        assert hit.doc_id == hit.source["doc_id"] == hit.chunk_id.split("#")[0]
        assert isinstance(hit.score, float) and "body" not in hit.source
    assert (second.total, second.candidates, second.hits) == (3, 3, ())


def test_a_plan_the_engine_cannot_run_is_a_query_error(case: BackendCase) -> None:
    name = _generation(case)
    case.backend.finish_generation(name)
    with pytest.raises(QueryError):
        case.backend.search(name, [_everything(Term("amounts", "three hundred"))])


# --------------------------------------------------------------------------- the record store


def test_records_conditional_writes_and_scans(case: BackendCase) -> None:
    store = case.backend.records(case.alias)
    assert store.get("thing", "a") is None and list(store.scan("thing")) == []
    store.put("thing", "a", {"n": 1}, create=True)
    with pytest.raises(RecordConflict):
        store.put("thing", "a", {"n": 2}, create=True)
    found = store.get("thing", "a")
    assert found is not None and found.data == {"n": 1}
    store.put("thing", "a", {"n": 3}, version=found.version)
    with pytest.raises(RecordConflict):
        store.put("thing", "a", {"n": 4}, version=found.version)  # changed since read
    with pytest.raises(RecordConflict):
        store.delete("thing", "a", version=found.version)
    store.put_many("thing", [("g1::x", {"k": "x"}), ("g1::y", {"k": "y"}), ("g2::z", {"k": "z"})])
    store.refresh()
    assert sorted(k for k, _ in store.scan("thing", "g1::")) == ["g1::x", "g1::y"]
    assert store.get_many("thing", ["g1::x", "nope"]) == {"g1::x": {"k": "x"}}
    store.delete_many("thing", ["g1::x", "g1::y"])
    assert store.delete("thing", "a") and not store.delete("thing", "a")
    store.refresh()
    assert [k for k, _ in store.scan("thing")] == ["g2::z"]
    store.drop()
    assert store.get("thing", "g2::z") is None


def test_one_lock_holder_at_a_time_and_a_dead_owner_is_broken_at_once(
    case: BackendCase, caplog: pytest.LogCaptureFixture
) -> None:
    store = case.backend.records(case.alias)
    with IngestLock(store, case.alias) as first:
        with pytest.raises(LockedError, match=f"pid {first.pid}"):
            IngestLock(store, case.alias).__enter__()
        with pytest.raises(LockedError, match="held by a running ingest"):
            break_lock(store)
    assert holder(store) is None
    # a record left by a process that no longer runs, on this host
    import socket

    now = dt.datetime.now(dt.UTC)
    dead = LockRecord(
        owner="gone",
        host=socket.gethostname(),
        pid=2**22 + 12345,
        process_start="1",
        acquired_at=now,
        expires_at=now + dt.timedelta(hours=1),
    )
    store.put(LOCK, LOCK_KEY, dead.model_dump(mode="json"), create=True)
    with caplog.at_level("WARNING", logger="osrag.ingestion.lock"), IngestLock(store, case.alias):
        pass
    assert "no longer running" in caplog.text
    # another host's lock: held until its TTL, then taken over; --force breaks it at once
    remote = dead.model_copy(update={"host": "elsewhere.example", "pid": 1})
    store.put(LOCK, LOCK_KEY, remote.model_dump(mode="json"), create=True)
    with pytest.raises(LockedError, match=r"elsewhere\.example"):
        IngestLock(store, case.alias).__enter__()
    assert break_lock(store, force=True) == remote
    stale = remote.model_copy(update={"expires_at": now - dt.timedelta(seconds=1)})
    store.put(LOCK, LOCK_KEY, stale.model_dump(mode="json"), create=True)
    with IngestLock(store, case.alias):
        assert holder(store) is not None and holder(store) != stale


def test_a_lost_lock_stops_the_ingest_at_its_next_renewal(case: BackendCase) -> None:
    store = case.backend.records(case.alias)
    lock = IngestLock(store, case.alias, ttl=dt.timedelta(seconds=0))
    with lock:
        break_lock(store, force=True)
        with pytest.raises(IndexStateError, match="lost the ingest lock"):
            lock.renew_if_due()
