"""Reliability at the edges: what each hostile input costs ``osrag`` (exit, seconds, peak RSS).

One probe per case of docs/reliability.md's table: front matter and JSONL values that
used to stop an ingest, an embedding endpoint that lies or stalls (the misbehaving
loopback server of ``tests/support/embedding_server.py``, at the embedder's default settings),
control codes in a heading, a full disk (``RLIMIT_FSIZE``), empty access values, date
keys in another spelling, a repeated ``--tenant``. Each probe runs ``osrag`` (or a few
lines of the library) in a fresh child process against an embedded index, with
``--code`` first on the path, under a timeout; peak RSS is the child's own (``wait4``).
After the run a check says what happened (``verdict``): whether the rest of the corpus
went in, whether a document became visible, whether vectors were attached to the
wrong chunks, whether raw control codes reached the terminal.

    python benchmarks/reliability_probes.py                         # this checkout
    python benchmarks/reliability_probes.py --code ../before --label before
    python benchmarks/reliability_probes.py --only jsonl-deep,endpoint-hang

Prints a table; writes ``benchmarks/results/reliability_probes-<label>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "tests" / "support"))

from embedding_server import Server, serving  # noqa: E402
from hostile_files import wait_child  # noqa: E402

GOOD = "# Umbrella\n\nThe umbrella policy covers $300,000.\n"
DIGITS = "9" * 5000


@dataclass
class Probe:
    """A corpus, the command run on it, and the check of what came out."""

    title: str
    files: dict[str, str]
    command: list[str] = field(default_factory=lambda: ["ingest", "{corpus}", "-q"])
    server: str | None = None
    """The embedding server's mode (the command's ``{spec}`` names it)."""
    script: str | None = None
    """Python run instead of the CLI (``{corpus}``, ``{home}``, ``{spec}`` filled in)."""
    check: Callable[[dict[str, Any]], str] | None = None
    first: bool = False
    """Ingest the corpus once before the probe (then ``edit`` it, if given)."""
    edit: Callable[[Path], None] | None = None
    limit: int | None = None
    """``RLIMIT_FSIZE`` of the child, bytes."""


def _front(line: str) -> dict[str, str]:
    return {"ok.md": GOOD, "rider.md": f"---\ntitle: Rider\n{line}\n---\n# Rider\n\nPays $9,000.\n"}


PRELUDE = """
try:  # the engines as packages
    from osrag.engines.embedded.index import EmbeddedIndex
    from osrag.schema.plan import SearchPlan, TextLeg
except ImportError:  # a checkout from before
    from osrag.engines.embedded import EmbeddedIndex
    from osrag.search.plan import SearchPlan, TextLeg


def all_chunks(index, target):
    index.refresh(target)
    plan = SearchPlan(mode="bm25", text=TextLeg("", no_terms="all"), vector=None, guards=(),
                      filters=(), size=10_000, depth=10_000, count_candidates=False)
    (answer,) = index.search(target, [plan])
    return [hit.source for hit in answer.hits]
"""
"""What the checks' scripts share; it runs on this checkout's osrag and an older one."""


def _searched(code: Path, home: Path, text: str, **scope: Any) -> list[str]:
    """Doc ids a search of the probe's index returns (``refused`` when it is refused)."""
    script = (
        "import datetime, json, sys, warnings\n"
        "warnings.simplefilter('ignore')\n"
        + PRELUDE
        + "from osrag.search.searcher import Searcher\n"
        "try:\n"
        f"    r = Searcher(EmbeddedIndex({str(home / 'embedded')!r}), 'osrag-chunks')"
        f".search({text!r}, size=50, **{scope!r})\n"
        "    print(json.dumps([h.doc_id for h in r.hits]))\n"
        "except Exception as exc:\n"
        "    print(json.dumps(['refused: ' + type(exc).__name__]))\n"
    )
    done = _run([sys.executable, "-c", script], code, home)
    try:
        return list(json.loads(done.stdout.strip().splitlines()[-1]))
    except (IndexError, ValueError):
        return [f"search failed: {done.stderr[-200:]}"]


def _went_in(row: dict[str, Any]) -> str:
    ids = _searched(row["code"], row["home"], "umbrella policy")
    return "the rest went in" if "ok" in ids else "the rest did NOT go in"


def _public(row: dict[str, Any]) -> str:
    ids = _searched(row["code"], row["home"], "secret plan")
    return "visible to a caller without a tenant" if "secret" in ids else "visible to no one"


def _in_tenant(row: dict[str, Any]) -> str:
    ids = _searched(row["code"], row["home"], "secret plan", tenant="t1")
    return "visible to every member of t1" if "secret" in ids else "visible to no one"


def _tenant_true(row: dict[str, Any]) -> str:
    ids = _searched(row["code"], row["home"], "secret plan", tenant="True")
    return "tenant 'True'" if "secret" in ids else "not given tenant 'True'"


def _as_of(row: dict[str, Any]) -> str:
    import datetime as dt

    ids = _searched(row["code"], row["home"], "future plan", as_of=dt.date(2025, 6, 1))
    return "shown in a 2025 as-of search" if "future" in ids else "not shown in a 2025 as-of search"


def _new_version(corpus: Path) -> None:
    for path in corpus.glob("*.md"):
        path.write_text(path.read_text().replace("policy", "policy NEWVERSION"))


def _escapes(row: dict[str, Any]) -> str:
    out = row.get("stdout", "") + row.get("stderr_all", "")
    raw = [c for c in out if (ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) <= 0x9F]
    return f"{len(raw)} raw control characters on the terminal"


def _misattached(row: dict[str, Any]) -> str:
    """Whether a stored vector belongs to another chunk's text."""
    script = (
        "import sqlite3, glob, json, hashlib, array\n"
        "import numpy as np\n" + PRELUDE + "import sys\n"
        "sys.path.insert(0, " + repr(str(ROOT / "tests" / "support")) + ")\n"
        "from embedding_server import toy_vector\n"
        f"index = EmbeddedIndex({str(row['home'] / 'embedded')!r})\n"
        "target = index.alias_target('osrag-chunks')\n"
        "if target is None:\n"
        "    print('nothing written'); raise SystemExit\n"
        "texts = {s['chunk_id']: s['text'] for s in all_chunks(index, target)}\n"
        "db = glob.glob("
        + repr(str(row["home"] / "embedded"))
        + " + '/*/generations/*/vectors.sqlite')[0]\n"
        "wrong = 0\n"
        "for cid, blob in sqlite3.connect(db).execute('select chunk_id, vector from vectors'):\n"
        "    got = np.frombuffer(blob, dtype='<f4')\n"
        "    want = np.array(toy_vector(texts[cid]), dtype=np.float32)\n"
        "    want /= np.linalg.norm(want)\n"
        "    wrong += not np.allclose(got, want, atol=1e-5)\n"
        "print(f'{wrong} of {len(texts)} chunks hold another chunk\\'s vector')\n"
    )
    done = _run([sys.executable, "-c", script], row["code"], row["home"])
    return (done.stdout.strip() or done.stderr.strip()[-160:]).splitlines()[-1]


def _requests(row: dict[str, Any]) -> str:
    server: Server = row["server"]
    return f"{server.requests} requests to the endpoint"


def _agreeing(row: dict[str, Any]) -> str:
    """Whether every document is whole (old or new) and the manifest lists the index's ids."""
    script = (
        PRELUDE + "from osrag.ingestion.manifest import Manifest\n"
        f"index = EmbeddedIndex({str(row['home'] / 'embedded')!r})\n"
        "target = index.alias_target('osrag-chunks')\n"
        "chunks = all_chunks(index, target)\n"
        "manifest = Manifest(index.records('osrag-chunks'), 'osrag-chunks')\n"
        "records = list(manifest.documents(target))\n"
        "listed = {c for r in records for c in r.chunk_ids}\n"
        "held = {c['chunk_id'] for c in chunks}\n"
        "seen = {}\n"
        "for c in chunks:\n"
        "    seen.setdefault(c['doc_id'], set()).add('NEWVERSION' in c['body'])\n"
        "mixed = sum(len(v) > 1 for v in seen.values())\n"
        "new = sum(v == {True} for v in seen.values())\n"
        "print(f'{new} documents new, {len(seen) - new - mixed} old, {mixed} mixed, '\n"
        "      f'{120 - len(seen)} gone; ids only in the index {len(held - listed)}, '\n"
        "      f'only in the manifest {len(listed - held)}')\n"
    )
    done = _run([sys.executable, "-c", script], row["code"], row["home"])
    return (done.stdout.strip() or done.stderr.strip()[-160:]).splitlines()[-1]


def _consistent(row: dict[str, Any]) -> str:
    done = _run(
        [sys.executable, "-m", "osrag.cli", "index", "status", "--backend", "embedded"],
        row["code"],
        row["home"],
    )
    counts = next((line for line in done.stdout.splitlines() if line.startswith("documents")), "")
    problems = [line for line in done.stderr.splitlines() if line.startswith("problem")]
    status = (
        f"status exit {done.returncode}: {' '.join(counts.split())}; {len(problems)} problem(s)"
    )
    return f"{_agreeing(row)}; {status}"


ENDPOINT_CORPUS = {
    f"d{n}.md": f"# Policy {n}\n\nPolicy {n} covers ${n + 1},000.\n" for n in range(3)
}
EMBED = ["ingest", "{corpus}", "-q", "--embedder", "{spec}"]

PROBES: dict[str, Probe] = {
    "yaml-impossible-date": Probe(
        "front matter reviewed: 2024-02-30", _front("reviewed: 2024-02-30"), check=_went_in
    ),
    "yaml-month-13": Probe(
        "front matter effective_from: 2024-13-45", _front("effective_from: 2024-13-45"),
        check=_went_in,
    ),
    "yaml-year-0": Probe("front matter 0000-01-01", _front("created: 0000-01-01"), check=_went_in),
    "yaml-hour-25": Probe(
        "front matter 2024-01-01 25:00:00", _front("at: 2024-01-01 25:00:00"), check=_went_in
    ),
    "yaml-5000-digits": Probe(
        "front matter with a 5,000-digit integer", _front(f"n: {DIGITS}"), check=_went_in
    ),
    "chunks-impossible-date": Probe(
        "osrag chunks, front matter 2024-02-30", _front("reviewed: 2024-02-30"),
        command=["chunks", "{corpus}", "--strategy", "structural"],
    ),
    "workers-impossible-date": Probe(
        "--workers 2, 150 files and one 2024-02-30",
        {**_front("reviewed: 2024-02-30"),
         **{f"p{n:03}.md": f"# Page {n}\n\nPage {n}.\n" for n in range(150)}},
        command=["ingest", "{corpus}", "-q", "--workers", "2"], check=_went_in,
    ),
    "jsonl-5000-digits": Probe(
        "a JSONL line with a 5,000-digit integer",
        {"ok.md": GOOD, "rows.jsonl": '{"id": "r1", "text": "Row.", "n": ' + DIGITS + "}\n"},
        check=_went_in,
    ),
    "jsonl-deep": Probe(
        "a JSONL line nested 100,000 deep",
        {"ok.md": GOOD,
         "rows.jsonl": '{"id": "r1", "text": "Row.", "t": '
         + "[" * 100_000 + "]" * 100_000 + "}\n"},
        check=_went_in,
    ),
    "endpoint-duplicate-index": Probe(
        "embedding answer with duplicate index values", ENDPOINT_CORPUS, EMBED,
        server="duplicate-index", check=_misattached,
    ),
    "endpoint-retry-after-nan": Probe(
        "429 with Retry-After: nan", ENDPOINT_CORPUS, EMBED, server="retry-after-nan",
        check=_requests,
    ),
    "endpoint-429-forever": Probe(
        "429 forever (Retry-After: 1)", ENDPOINT_CORPUS, EMBED, server="429", check=_requests
    ),
    "endpoint-hang": Probe(
        "an endpoint that never answers", ENDPOINT_CORPUS, EMBED, server="hang", check=_requests
    ),
    "endpoint-trickle": Probe(
        "an answer at one byte a second", ENDPOINT_CORPUS, EMBED, server="trickle",
        check=_requests,
    ),
    "endpoint-strings": Probe(
        "numbers sent as strings", ENDPOINT_CORPUS, EMBED, server="strings", check=_misattached
    ),
    "endpoint-huge": Probe(
        "a 100 MB answer", ENDPOINT_CORPUS, EMBED, server="huge", check=_requests
    ),
    "heading-escape-codes": Probe(
        "escape codes, markup and a newline in names and headings",
        {"esc\x1b[2Jclear.md": "# [bold red]x umbrella\n\n## Bell\x07 CSI\x9b31m umbrella\n\n"
         "The umbrella pays $300.\n",
         "x\nerror forged.md": "# Forged umbrella\n\nThe umbrella pays $400.\n"},
        command=["search", "umbrella", "--backend", "embedded"], first=True, check=_escapes,
    ),
    "full-disk": Probe(
        "full disk (RLIMIT_FSIZE 200 KiB) during an in-place ingest",
        {f"d{n:03}.md": f"# Doc {n}\n\n" + "\n".join(
            f"## Section {s}\n\n" + " ".join(["policy coverage premium claim"] * 30)
            + f" ${n},{s:03}.\n" for s in range(6)) for n in range(120)},
        command=["ingest", "{corpus}", "-q", "--batch-chunks", "60", "--workers", "1"],
        first=True, edit=_new_version, limit=200 * 1024, check=_consistent,
    ),
    "acl-empty": Probe(
        "front matter tenant: t1 / acl: []",
        {"ok.md": GOOD, "secret.md": "---\ntenant: t1\nacl: []\n---\nThe secret plan.\n"},
        check=_in_tenant,
    ),
    "tenant-empty": Probe(
        "front matter tenant: (empty)",
        {"ok.md": GOOD, "secret.md": "---\ntenant:\n---\nThe secret plan.\n"},
        check=_public,
    ),
    "tenant-yes": Probe(
        "front matter tenant: yes",
        {"ok.md": GOOD, "secret.md": "---\ntenant: yes\n---\nThe secret plan.\n"},
        check=_tenant_true,
    ),
    "date-key-capitalised": Probe(
        "front matter effective_date: 2030-01-01",
        {"ok.md": GOOD, "future.md": "---\neffective_date: 2030-01-01\n---\nThe future plan.\n"},
        check=_as_of,
    ),
    "tenant-twice": Probe(
        "osrag search --tenant a --tenant b", {"ok.md": GOOD},
        command=["search", "umbrella", "--backend", "embedded", "--tenant", "a", "--tenant", "b"],
        first=True,
    ),
    "caller-blank-tenant": Probe(
        "osrag search --tenant ' '", {"ok.md": GOOD},
        command=["search", "umbrella", "--backend", "embedded", "--tenant", " "], first=True,
    ),
}  # fmt: skip


def _run(args: list[str], code: Path, home: Path, timeout: float = 120) -> Any:
    """A helper child: ``code``'s osrag (never the working directory's), from ``home``."""
    return subprocess.run(
        args, env=_env(code, home), cwd=home, capture_output=True, text=True, timeout=timeout
    )


def _env(code: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    return env | {
        "OSRAG_HOME": str(home),
        "OSRAG_CACHE_DIR": str(home / "cache"),
        "PYTHONPATH": str(code),
        "COLUMNS": "200",
    }


def _limits(cap_bytes: int, fsize: int | None) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
    if fsize is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    os.setsid()


def run_probe(
    name: str, probe: Probe, folder: Path, code: Path, timeout: float, cap_gb: float
) -> dict[str, Any]:
    corpus, home = folder / "corpus", folder / "home"
    corpus.mkdir(parents=True)
    home.mkdir()
    for rel, text in probe.files.items():
        (corpus / rel).write_text(text)
    if probe.first:  # the corpus ingested; then the probe's edit
        _run(
            [sys.executable, "-m", "osrag.cli", "ingest", str(corpus), "--backend", "embedded",
             "-q"],
            code, home, timeout=600,
        )  # fmt: skip
        if probe.edit is not None:
            probe.edit(corpus)
    with _maybe_server(probe.server) as server:
        fill = {
            "corpus": str(corpus),
            "home": str(home),
            "spec": server.spec(dimension=8) if server else "",
        }
        args = [part.format(**fill) for part in probe.command]
        if args[0] == "ingest":
            args += ["--backend", "embedded"]
        command = [sys.executable, "-m", "osrag.cli", *args]
        started = time.perf_counter()
        child = subprocess.Popen(
            command,
            env=_env(code, home),
            cwd=home,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: _limits(int(cap_gb * 1024**3), probe.limit),
        )
        status, usage, outcome = wait_child(child, timeout)
        seconds = time.perf_counter() - started
        stdout = child.stdout.read().decode(errors="replace") if child.stdout else ""
        stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
        if outcome is None:
            outcome = str(os.waitstatus_to_exitcode(status))
        row: dict[str, Any] = {
            "exit": outcome,
            "seconds": round(seconds, 1),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
            "traceback": "Traceback" in stderr,
            "first_error": next(
                (line for line in stderr.splitlines() if line.startswith(("error", "E"))),
                stderr.strip().splitlines()[-1] if stderr.strip() else "",
            )[:240],
        }
        context = {"code": code, "home": home, "server": server, "stdout": stdout,
                   "stderr_all": stderr}  # fmt: skip
        if probe.check is not None:
            try:
                row["verdict"] = probe.check(context)
            except Exception as exc:  # a probe's check must not stop the others
                row["verdict"] = f"check failed: {exc}"
    return row


class _NoServer:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _maybe_server(mode: str | None) -> Any:
    return serving(mode) if mode else _NoServer()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose osrag is run")
    parser.add_argument("--label", default=None, help="name of the JSON result (default: code dir)")
    parser.add_argument("--only", default="", help="comma-separated probe names")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a kill")
    parser.add_argument("--cap-gb", type=float, default=3.0, help="address-space cap of a child")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(PROBES)
    label = args.label or args.code.resolve().name
    rows: dict[str, dict[str, Any]] = {}
    print(f"{'probe':<26} {'exit':>8} {'s':>7} {'MiB':>7}  verdict / first error")
    with tempfile.TemporaryDirectory(prefix="osrag-reliability-") as tmp:
        for name in names:
            row = run_probe(
                name, PROBES[name], Path(tmp) / name, args.code.resolve(), args.timeout, args.cap_gb
            )
            row["probe"] = PROBES[name].title
            rows[name] = row
            said = row.get("verdict") or row["first_error"]
            print(
                f"{name:<26} {row['exit']:>8} {row['seconds']:>7.1f} {row['peak_rss_mib']:>7.1f}  "
                f"{'TRACEBACK ' if row['traceback'] else ''}{str(said)[:120]!r}",
                flush=True,
            )
            shutil.rmtree(Path(tmp) / name, ignore_errors=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"reliability_probes-{label}.json"
    if args.only and out.exists():  # some probes again: the others' rows are kept
        rows = json.loads(out.read_text())["rows"] | rows
    out.write_text(json.dumps({"code": str(args.code), "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
