"""An embedding endpoint can neither corrupt nor stall an ingest.

Against the misbehaving loopback server of :mod:`embedding_server`: an answer whose
indexes repeat, whose count is wrong, whose numbers are strings, booleans or NaN, or
that is 100 MB long is refused (never attached to the wrong chunks; read no further
than the answer limit); a server that answers 429 forever, sends ``Retry-After:
nan``, hangs or trickles one byte a second costs at most the batch deadline, once —
no document-by-document retry storm; a server that changes its dimension without a
new version is an error, not a silent new generation; the vector cache does not hand
one endpoint's vectors to another. The ingest-level cases run on the embedded engine
and on OpenSearch.
"""

from __future__ import annotations

import math
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, open_case
from embedding_server import serving
from hypothesis import given
from hypothesis import strategies as st

from osrag.embedding import get_embedder
from osrag.embedding.openai_compat import OpenAIEmbedder
from osrag.embedding.retrying import retry_delay
from osrag.errors import EmbeddingError, IndexStateError
from osrag.ingestion.ingest import IngestOptions, current_generation, ingest
from osrag.models import ChunkingConfig
from osrag.search.searcher import Searcher

FAST = {"timeout": 2, "retries": 2, "deadline": 6}
"""Embedder options that keep a failing test short (the defaults: 30 s, 4, 120 s)."""


@pytest.fixture(params=[pytest.param("opensearch", marks=pytest.mark.opensearch), "embedded"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackendCase]:
    alias = request.getfixturevalue("index_prefix") if request.param == "opensearch" else None
    case = open_case(request, request.param, tmp_path, alias)
    yield case
    if case.kind == "embedded":
        case.backend.close()  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSRAG_CACHE_DIR", str(tmp_path / "cache"))


def _corpus(tmp_path: Path, documents: int = 5) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    for n in range(documents):
        (corpus / f"d{n}.md").write_text(f"# Policy {n}\n\nPolicy {n} covers ${n + 1},000.\n")
    return corpus


def _options(case: BackendCase, embedder: Any, **extra: Any) -> IngestOptions:
    return IngestOptions(alias=case.alias, embedder=embedder, embed_workers=2, **extra)


# ---------------------------------------------------------------- answers that lie


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("duplicate-index", "index 0"),
        ("wrong-count", "expected 5 vectors"),
        ("strings", "not a number"),
        ("booleans", "not a number"),
        ("nan", "not a number"),
    ],
)
def test_an_answer_that_lies_is_refused_and_nothing_is_attached(
    engine: BackendCase, tmp_path: Path, mode: str, says: str
) -> None:
    corpus = _corpus(tmp_path)
    with serving(mode) as server:
        embedder = OpenAIEmbedder(server.base, "toy", version="1", dimension=8, **FAST)
        with pytest.raises(EmbeddingError, match=says) as caught:
            ingest(corpus, engine.backend, _options(engine, embedder))
        assert server.base in str(caught.value)
        assert server.requests == 1  # a broken answer is not asked again, batch or document
    assert engine.backend.alias_target(engine.alias) is None  # nothing became searchable


def test_a_huge_answer_is_cut_off_at_the_limit_in_bounded_memory() -> None:
    with serving("huge") as server:
        code = (
            "import sys, time\n"
            "from osrag.embedding.openai_compat import OpenAIEmbedder\n"
            "from osrag.errors import EmbeddingError\n"
            f"e = OpenAIEmbedder({server.base!r}, 'toy', dimension=8, timeout=60, retries=0)\n"
            "started = time.perf_counter()\n"
            "try:\n"
            "    e.embed(['a'])\n"
            "    print('accepted')\n"
            "except EmbeddingError as exc:\n"
            "    print('refused', exc)\n"
            "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM'))\n"
            "print(int(hwm.split()[1]) // 1024, round(time.perf_counter() - started, 1))\n"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
        )
    verdict, measured = result.stdout.strip().splitlines()[-2:]
    rss_mib, seconds = measured.split()
    print(f"\n100 MB answer: {verdict[:90]} — peak RSS {rss_mib} MiB, {seconds} s")
    assert verdict.startswith("refused") and "max_answer_bytes" in verdict, result.stderr
    assert int(rss_mib) < 300


# ---------------------------------------------------------------- answers that stall


@pytest.mark.parametrize("mode", ["429", "retry-after-nan", "hang", "trickle"])
def test_a_stalling_endpoint_costs_one_batch_deadline_and_no_retry_storm(
    engine: BackendCase, tmp_path: Path, mode: str
) -> None:
    corpus = _corpus(tmp_path)
    with serving(mode) as server:
        embedder = OpenAIEmbedder(server.base, "toy", version="1", dimension=8, **FAST)
        started = time.monotonic()
        with pytest.raises(EmbeddingError) as caught:
            ingest(corpus, engine.backend, _options(engine, embedder))
        took = time.monotonic() - started
        requests = server.requests
    print(f"\n{mode}: failed after {took:.1f} s and {requests} requests: {caught.value}")
    assert took < FAST["deadline"] + 4, took
    assert requests <= FAST["retries"] + 1  # one batch's tries; no document-by-document rerun
    assert server.base in str(caught.value) and "Traceback" not in str(caught.value)
    assert engine.backend.alias_target(engine.alias) is None


def test_a_trickling_answer_times_out_as_a_whole() -> None:
    with serving("trickle") as server:
        embedder = OpenAIEmbedder(server.base, "toy", dimension=8, timeout=3, retries=0)
        started = time.monotonic()
        with pytest.raises(EmbeddingError, match="within 3 s"):
            embedder.embed(["a", "b"])
        assert time.monotonic() - started < 6  # the answer would take ~240 s


def test_retry_after_nan_at_query_time_is_an_embedding_error_not_a_value_error(
    tmp_path: Path,
) -> None:
    from osrag.engines.embedded.index import EmbeddedIndex

    index = EmbeddedIndex(tmp_path / "index")
    corpus = _corpus(tmp_path, 2)
    with serving() as server:
        spec = server.spec(**FAST)
        ingest(corpus, index, IngestOptions(alias="a", embedder=spec, embed_workers=1))
        server.mode = "retry-after-nan"
        with pytest.raises(EmbeddingError, match="429"):
            Searcher(index, "a").search("policy", mode="vector")


def test_the_ingest_deadline_ends_a_slow_endpoint(engine: BackendCase, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    with serving("trickle") as server:
        embedder = OpenAIEmbedder(
            server.base, "toy", version="1", dimension=8, timeout=600, deadline=600
        )
        started = time.monotonic()
        with pytest.raises(EmbeddingError, match="embed_deadline"):
            ingest(corpus, engine.backend, _options(engine, embedder, embed_deadline=3))
    assert time.monotonic() - started < 8


def test_a_flaky_endpoint_gets_a_bounded_number_of_retries(tmp_path: Path) -> None:
    from osrag.engines.embedded.index import EmbeddedIndex

    corpus = _corpus(tmp_path, 40)
    with serving("ok") as server:
        embedder = OpenAIEmbedder(
            server.base, "toy", version="1", dimension=8, batch_size=1, concurrency=1,
            backoff=0.01, retries=3,
        )  # fmt: skip
        server.mode = "flaky"
        with pytest.raises(EmbeddingError, match="retry budget"):
            ingest(corpus, EmbeddedIndex(tmp_path / "i"), IngestOptions(embedder=embedder))
        # 40 texts; every other request fails: unthrottled, every batch would be retried
        assert server.requests < 40


@given(st.one_of(st.sampled_from(["nan", "-5", "inf", "-inf", "1e12", "  3 ", "", "x", "0x10",
    "Wed, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 9999 07:28:00 GMT", "NaN", "1e-400"]),
    st.text(max_size=12)))  # fmt: skip
def test_any_retry_after_gives_a_finite_wait_within_the_cap(value: str) -> None:
    delay = retry_delay(0, value, base=0.5, max_wait=30.0)
    assert math.isfinite(delay) and 0.0 <= delay <= 30.0


# ---------------------------------------------------------------- identity of the vectors


def test_a_dimension_change_without_a_new_version_is_an_error(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    with serving() as server:
        ingest(corpus, engine.backend, _options(engine, server.spec()))
        before = current_generation(engine.backend, engine.alias).name
        server.mode = "dimension-change"
        (corpus / "d0.md").write_text("# Policy 0\n\nPolicy 0 now covers $9,000.\n")
        with pytest.raises((EmbeddingError, IndexStateError), match="version"):
            ingest(corpus, engine.backend, _options(engine, server.spec()))
        assert engine.backend.generations(engine.alias) == {before}
        assert engine.backend.alias_target(engine.alias) == before
        report = ingest(corpus, engine.backend, _options(engine, server.spec(version="2")))
        assert report.new_generation and report.alias_moved


def test_the_vector_cache_does_not_hand_one_endpoints_vectors_to_another(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    with serving() as first, serving() as second:
        ingest(corpus, engine.backend, _options(engine, first.spec()))
        first_inputs = first.inputs
        engine.purge()
        report = ingest(corpus, engine.backend, _options(engine, second.spec()))
        assert first_inputs > 1 and second.inputs > 1, (first_inputs, second.inputs)
        assert report.chunks_embedded == report.chunks_written
        other = ChunkingConfig(max_tokens=300)  # a new generation, the same texts
        again = ingest(corpus, engine.backend, _options(engine, second.spec(), chunking=other))
        assert again.new_generation and again.chunks_embedded == 0  # the same endpoint: cached


def test_a_spec_states_the_deadline_and_the_answer_limit() -> None:
    embedder = get_embedder("openai:toy@http://127.0.0.1:9/v1#deadline=7&max_answer_bytes=1000")
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.deadline == 7 and embedder.max_answer_bytes == 1000


@pytest.mark.parametrize(
    ("mode", "path", "says"),
    [
        ("duplicate-index", "/v1/embeddings", "index 0 twice"),
        ("strings", "/v1/embeddings", "not a number"),
        ("strings", "/embed", "not a number"),
        ("booleans", "/embed", "not a number"),
        ("nan", "/embed", "not a number"),
        ("huge", "/embed", "max_answer_bytes"),
        ("trickle", "/embed", "within 2 s"),
    ],
)
def test_the_plain_http_embedder_checks_and_bounds_answers_alike(
    mode: str, path: str, says: str
) -> None:
    from osrag.embedding.service import HttpEmbedder

    with serving(mode) as server:
        embedder = HttpEmbedder(
            server.url + path, model="toy", dimension=8, timeout=2, retries=0, deadline=4
        )
        started = time.monotonic()
        with pytest.raises(EmbeddingError, match=says):
            embedder.embed(["a", "b", "c"])
        assert time.monotonic() - started < 5
