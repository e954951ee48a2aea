"""A hostile corpus costs a bounded amount and leaks nothing, on the embedded engine and OpenSearch.

Every file here is something a corpus folder can hold without the person running
``osrag ingest`` noticing: a link out of the folder, a device, a FIFO, a Word file
built to be expensive, access keys spelt another way. Each must be reported by
name (exit 3, the rest of the corpus goes in), never read beyond its limit, and
never make a restricted document public. Big files are generated in ``tmp_path``
(at most ≈100 MB) and every child process runs under a timeout and an
address-space cap, so the old behaviour fails the test instead of the machine.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from backend_cases import BackendCase, open_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import IN_CI, ROOT

from osrag.errors import QueryError
from osrag.ingestion.ingest import IngestOptions, ingest
from osrag.loaders import ReadOptions
from osrag.loaders.corpus import load_corpus, load_file
from osrag.models import Document, LoadIssue
from osrag.search.searcher import Searcher

sys.path.insert(0, str(ROOT / "benchmarks"))
from hostile_files import ACCESS_KEYS_FILE, write_docx

CAP_BYTES = 3 * 1024**3
"""Address space of a child ``osrag`` (the old code read /dev/zero until it ran out)."""


@pytest.fixture(params=[pytest.param("opensearch", marks=pytest.mark.opensearch), "embedded"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackendCase]:
    alias = request.getfixturevalue("index_prefix") if request.param == "opensearch" else None
    case = open_case(request, request.param, tmp_path, alias)
    yield case
    if case.kind == "embedded":
        case.backend.close()  # type: ignore[attr-defined]


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ok.md").write_text("# Umbrella\n\nThe umbrella policy covers $300,000.\n")
    return corpus


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def _osrag(
    case: BackendCase, *args: str, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``osrag ARGS`` against ``case`` in a capped child; a hang is a failure, not a wait."""
    extra, case_env = case.cli()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    command = [sys.executable, "-m", "osrag.cli", *args]
    if args[0] == "ingest":
        command += [*extra, "--alias", case.alias, "-q"]
    try:
        return subprocess.run(
            command,
            env=clean | {"COLUMNS": "200"} | case_env | (env or {}),
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_limited,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"osrag {' '.join(args)} still running after {timeout} s")


def _errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error")]


def _bodies(case: BackendCase, text: str, **scope: Any) -> list[str]:
    """The bodies a search returns; none when it is refused for lack of a tenant (closed)."""
    try:
        result = Searcher(case.backend, case.alias).search(text, **scope)
    except QueryError:
        return []
    return [hit.body for hit in result.hits]


# ---------------------------------------------------------------- the corpus is the folder given


def test_a_symlinked_file_leading_out_of_the_corpus_is_reported_and_never_indexed(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "passwd.md").symlink_to("/etc/passwd")
    result = _osrag(engine, "ingest", str(corpus))
    assert result.returncode == 3, result.stderr
    (error,) = _errors(result)
    assert "passwd.md" in error and "outside the corpus folder" in error
    assert not any("root:" in body for body in _bodies(engine, "root bin bash"))
    assert _bodies(engine, "umbrella")  # the rest went in


def test_a_link_to_a_device_and_a_fifo_are_refused_without_being_opened(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "zero.md").symlink_to("/dev/zero")
    os.mkfifo(corpus / "f.md")
    started = time.monotonic()
    result = _osrag(engine, "ingest", str(corpus), timeout=60)
    assert result.returncode == 3, result.stderr[-2000:]
    assert time.monotonic() - started < 60
    errors = "\n".join(_errors(result))
    assert "f.md: a FIFO (named pipe), not a regular file" in errors
    assert "zero.md" in errors  # outside the folder, and a device: never opened
    assert _bodies(engine, "umbrella")


def test_follow_symlinks_reads_a_regular_file_outside_the_folder_but_never_a_device(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Shared\n\nA shared clause.\n")
    corpus = _corpus(tmp_path)
    (corpus / "shared.md").symlink_to(outside)
    (corpus / "zero.md").symlink_to("/dev/zero")
    items = {
        item.source_path if isinstance(item, Document) else item.path: item
        for item in load_corpus(corpus, ReadOptions(follow_symlinks=True))
    }
    assert isinstance(items["shared.md"], Document)
    assert isinstance(items["zero.md"], LoadIssue)
    assert "a character device, not a regular file" in items["zero.md"].reason
    (refused,) = load_file(corpus / "shared.md")
    assert isinstance(refused, LoadIssue) and "outside the corpus folder" in refused.reason


# ---------------------------------------------------------------- bounded cost per file


def test_a_docx_over_the_xml_limit_is_refused_at_once_naming_the_limit(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    size = write_docx(corpus / "big.docx", 100_000_000)  # ≈6.6 MB file
    assert size < 100 * (corpus / "big.docx").stat().st_size  # not a zip bomb by its ratio
    started = time.monotonic()
    result = _osrag(engine, "ingest", str(corpus), timeout=60)
    assert result.returncode == 3, result.stderr[-2000:]
    assert time.monotonic() - started < 60
    (error,) = _errors(result)
    assert "big.docx" in error and "max_docx_xml_bytes" in error
    assert _bodies(engine, "umbrella")


def _peak_load(path: Path, options: str = "") -> tuple[str, float, float]:
    """Load ``path`` in a fresh process: (what it gave, seconds, peak RSS in MiB)."""
    code = (
        "import sys, time, resource\n"
        "from pathlib import Path\n"
        "from osrag.loaders.corpus import load_file\n"
        "started = time.perf_counter()\n"
        f"items = list(load_file(Path({str(path)!r}){options}))\n"
        "kind = type(items[0]).__name__\n"
        # VmHWM, not ru_maxrss: ru_maxrss survives exec on Linux, so a child of a large
        # pytest process would report the parent's peak
        "hwm = next(line for line in open('/proc/self/status') if line.startswith('VmHWM'))\n"
        "print(kind, time.perf_counter() - started, int(hwm.split()[1]) / 1024)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    kind, seconds, rss = result.stdout.split()
    return kind, float(seconds), float(rss)


def test_a_docx_of_24_mb_of_xml_loads_in_bounded_memory(tmp_path: Path) -> None:
    write_docx(tmp_path / "big.docx", 24_000_000)
    kind, _, rss = _peak_load(tmp_path / "big.docx")
    assert kind == "Document"
    # the whole-tree reader peaked at ≈350 MiB on this file, streamed ≈80 MiB
    assert rss < 200, f"peak RSS {rss:.0f} MiB"


def test_a_file_over_a_limit_is_reported_naming_it_and_its_previous_version_kept(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "rider.md").write_text("# Rider\n\nThe flood rider pays $7,000.\n")
    options = IngestOptions(alias=engine.alias, read=ReadOptions(max_file_bytes=4096))
    assert not ingest(corpus, engine.backend, options).errors
    (corpus / "rider.md").write_text("# Rider\n\nThe flood rider pays $9,000.\n" + "x " * 4096)
    report = ingest(corpus, engine.backend, options)
    (issue,) = report.errors
    assert issue.path == "rider.md" and "max_file_bytes" in issue.reason
    assert any("$7,000" in body for body in _bodies(engine, "flood rider"))
    assert not any("$9,000" in body for body in _bodies(engine, "flood rider"))


@pytest.mark.parametrize(
    ("name", "limit", "value"),
    [
        ("page.html", "max_html_bytes", 10_000),
        ("page.html", "max_text_chars", 5_000),
        ("doc.docx", "max_text_chars", 5_000),
        ("doc.docx", "max_docx_unzipped_bytes", 50_000),
        ("doc.docx", "max_docx_xml_bytes", 50_000),
        ("doc.md", "max_file_bytes", 10_000),
    ],
)
def test_each_limit_refuses_a_file_over_it_by_name(
    tmp_path: Path, name: str, limit: str, value: int
) -> None:
    path = tmp_path / name
    if name.endswith(".docx"):
        write_docx(path, 200_000)
    elif name.endswith(".md"):
        path.write_text("# Policy\n\n" + "A clause of the policy. " * 1000)
    else:
        path.write_text("<html><body>" + "<p>A clause of the policy.</p>" * 2000 + "</body></html>")
    assert isinstance(next(iter(load_file(path))), Document)
    (issue,) = load_file(path, options=ReadOptions(**{limit: value}))
    assert isinstance(issue, LoadIssue) and limit in issue.reason, issue


# ---------------------------------------------------------------- access metadata fails closed


def test_access_keys_in_another_case_are_the_access_keys(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "secret.md").write_text(ACCESS_KEYS_FILE)
    assert not ingest(corpus, engine.backend, IngestOptions(alias=engine.alias)).errors
    assert not any("secret plan" in b.lower() for b in _bodies(engine, "secret plan"))
    assert not any("secret plan" in b.lower() for b in _bodies(engine, "secret plan", tenant="t1"))
    found = _bodies(engine, "secret plan", tenant="t1", acl=["secret"])
    assert any("secret plan" in b.lower() for b in found)


def test_a_misspelt_access_key_is_an_error_naming_the_file_and_line(
    engine: BackendCase, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "typo.md").write_text("---\ntitle: Plan\nacls: [secret]\n---\nThe typo plan.\n")
    (corpus / "twice.md").write_text("---\ntenant: a\nTenant: b\n---\nThe twice plan.\n")
    (corpus / "rows.jsonl").write_text(
        '{"id": "r1", "text": "The row plan.", "TENANT": "t1"}\n'
        '{"id": "r2", "text": "The group plan.", "allowed_groups": ["x"]}\n'
    )
    report = ingest(corpus, engine.backend, IngestOptions(alias=engine.alias))
    by_path = {(issue.path, issue.line): issue.reason for issue in report.errors}
    assert set(by_path) == {("typo.md", 3), ("twice.md", 3), ("rows.jsonl", 2)}
    assert "'acls' looks like an access key" in by_path[("typo.md", 3)]
    assert "'tenant' and 'Tenant' both set 'tenant'" in by_path[("twice.md", 3)]
    assert not _bodies(engine, "typo plan") and not _bodies(engine, "group plan")
    assert not _bodies(engine, "row plan") and _bodies(engine, "row plan", tenant="t1")


def test_require_tenant_refuses_a_document_without_one(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "scoped.md").write_text("---\ntenant: acme\n---\nScoped.\n")
    items = list(load_corpus(corpus, ReadOptions(require_tenant=True)))
    refused = [i for i in items if isinstance(i, LoadIssue)]
    assert [i.path for i in refused] == ["ok.md"] and "require_tenant" in refused[0].reason
    assert [d.doc_id for d in items if isinstance(d, Document)] == ["scoped"]


_ACCESS_VARIANTS = st.sampled_from(
    ["tenant", "Tenant", "TENANT", " tenant ", "acl", "ACL", "Acl", " acl", "acls", "ACLs",
     "tenants", "tenant_id", "TenantId", "groups", "allowed_groups", "access", "permissions",
     "readers", "visibility", "Group"]
)  # fmt: skip
_OTHER_KEYS = st.sampled_from(["title", "layout", "nav_order", "parent", "category", "summary"])
_VALUES = st.one_of(
    st.sampled_from(["t1", "secret", "x y"]), st.lists(st.sampled_from(["a", "b"]), max_size=2)
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=st.lists(st.one_of(_ACCESS_VARIANTS, _OTHER_KEYS), min_size=1, max_size=5))
def test_no_document_with_an_access_like_key_goes_in_without_its_access_fields(
    keys: list[str],
) -> None:
    import json
    import tempfile

    from osrag.loaders.metadata import access_like

    lines = [f"{json.dumps(key)}: {json.dumps(['a'] if 'acl' in key.lower() else 't1')}"
             for key in keys]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.md"
        path.write_text("---\n" + "\n".join(lines) + "\n---\nBody.\n")
        items = list(load_file(path))
    (item,) = items
    if isinstance(item, LoadIssue):
        return  # refused, naming the file: fails closed
    folded = {key.strip().casefold() for key in keys}
    assert ("tenant" in folded) == (item.tenant is not None)
    assert ("acl" in folded) == bool(item.acl)
    assert not any(access_like(str(k)) or str(k).strip().casefold() in ("tenant", "acl")
                   for k in item.meta)  # fmt: skip


# ---------------------------------------------------------------- clean failure


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_killed_parallel_ingest_leaves_no_process_behind(tmp_path: Path) -> None:
    if not Path("/proc").is_dir():
        if IN_CI:
            pytest.fail("reads the process table from /proc, which this machine lacks")
        pytest.skip("reads the process table from /proc")  # outside CI only
    corpus = _corpus(tmp_path)
    paragraph = "The umbrella policy covers claims of $300,000 after the deductible. " * 40
    for n in range(600):
        (corpus / f"d{n:03}.md").write_text(f"# Doc {n}\n\n" + (paragraph + "\n\n") * 8)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    ingest_process = subprocess.Popen(
        [sys.executable, "-m", "osrag.cli", "ingest", str(corpus), "--backend", "embedded",
         "--workers", "2", "-q"],
        env=clean | {"OSRAG_HOME": str(tmp_path / "home")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    helpers: set[int] = set()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and ingest_process.poll() is None:
        helpers |= _descendants(ingest_process.pid)
        if len(helpers) >= 3:  # fork server, resource tracker, workers
            break
        time.sleep(0.2)
    assert len(helpers) >= 3, f"the pool never started (helpers: {helpers})"
    time.sleep(1.0)
    helpers |= _descendants(ingest_process.pid)
    ingest_process.send_signal(signal.SIGKILL)
    ingest_process.wait()
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline and any(_running(pid) for pid in helpers):
        time.sleep(0.2)
    left = [pid for pid in helpers if _running(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{len(left)} helper process(es) outlived the killed ingest"


def test_a_newline_in_a_file_name_cannot_forge_an_error_line(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "x\nerror forged.md").write_bytes(b"\xff\xfe not UTF-8")
    case = open_case(None, "embedded", tmp_path)
    try:
        result = _osrag(case, "ingest", str(corpus))
    finally:
        case.backend.close()  # type: ignore[attr-defined]
    assert result.returncode == 3
    (error,) = _errors(result)
    assert "x\\nerror forged.md" in error
    assert not any(line.startswith("error forged") for line in result.stderr.splitlines())


def test_chunks_reports_an_unreadable_file_and_exits_3(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    (corpus / "zero.md").symlink_to("/dev/zero")
    result = subprocess.run(
        [sys.executable, "-m", "osrag.cli", "chunks", str(corpus), "--strategy", "structural"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limited,
    )
    assert result.returncode == 3, result.stderr[-2000:]
    assert "zero.md" in result.stdout and "1 load errors" in result.stdout


def test_a_k_out_of_range_is_refused_naming_k(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "osrag.cli", "search", "umbrella", "--k", "100000",
         "--backend", "embedded"],
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
        | {"OSRAG_HOME": str(tmp_path)},
    )  # fmt: skip
    assert result.returncode != 0
    assert "--k" in result.stderr and "--size" not in result.stderr


def test_an_html_page_with_a_misspelt_access_property_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(
        '<html><head><meta name="Tenant" content="acme"><meta name="groups" content="hr">'
        "</head><body><p>Payroll.</p></body></html>"
    )
    (issue,) = load_file(page)
    assert isinstance(issue, LoadIssue) and "'groups' looks like an access key" in issue.reason
    page.write_text(
        '<html><head><meta name="Tenant" content="acme"></head><body><p>Payroll.</p></body></html>'
    )
    (doc,) = load_file(page)
    assert isinstance(doc, Document) and doc.tenant == "acme"


@pytest.mark.parametrize(("limit", "value"), [("max_pdf_pages", 1), ("max_text_chars", 500)])
def test_a_pdf_over_its_page_or_text_limit_is_refused_by_name(
    tmp_path: Path, limit: str, value: int
) -> None:
    from formats_corpus import write_corpus

    (pdf,) = write_corpus(tmp_path, "pdf", stems=["life-term-20"]).glob("*.pdf")
    (doc,) = load_file(pdf)
    assert isinstance(doc, Document) and len(doc.text) > value
    (issue,) = load_file(pdf, options=ReadOptions(**{limit: value}))
    assert isinstance(issue, LoadIssue) and limit in issue.reason, issue
