"""Hostile corpus files: what each costs ``osrag ingest`` (exit code, seconds, peak RSS).

Each probe is a corpus folder of one good Markdown file and one hostile file —
a symlink to ``/etc/passwd``, a symlink to ``/dev/zero``, a FIFO, capitalised
access keys, Word files whose ``word/document.xml`` is 24 MB (a 1.6 MB file),
just under and just over the XML limit and ≈240 MB (the zip-bomb-limit probe),
text and HTML files just under and just over their byte limits — ingested into
an embedded index by ``osrag ingest`` in a fresh subprocess (the files just
under a limit are only loaded: see :data:`LOAD_ONLY`). The child runs
under an address-space cap (``--cap-gb``, default 3) and a timeout
(``--timeout``, default 30 s; 150 s for the load-only probes), so a probe
that would read ``/dev/zero`` forever or hang on a FIFO ends as ``MEM``/``TIMEOUT``
instead of taking the machine.
Peak RSS is the child's own (``wait4``).

    python benchmarks/hostile_files.py                      # this checkout
    python benchmarks/hostile_files.py --code ../other-checkout   # another checkout's code
    python benchmarks/hostile_files.py --only docx-24mb-xml,fifo

Prints a table; writes ``benchmarks/results/hostile_files-<label>.json``.
The generators (:func:`write_docx`, :func:`make_probe`) are what
``tests/loaders/test_hostile_corpus.py`` builds its files with.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
MIB = 1024 * 1024

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_WORDS = [
    "policy",
    "coverage",
    "premium",
    "claim",
    "deductible",
    "insured",
    "limit",
    "umbrella",
    "liability",
    "property",
    "dwelling",
    "renewal",
    "endorsement",
    "exclusion",
    "schedule",
    "payment",
    "notice",
    "period",
    "contract",
    "party",
    "agreement",
    "term",
    "clause",
    "section",
    "amount",
    "dollars",
    "annual",
    "monthly",
    "benefit",
    "rider",
    "holder",
]


_RUN = (
    '<w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:cs="Calibri"/>'
    '<w:sz w:val="22"/><w:szCs w:val="22"/></w:rPr><w:t xml:space="preserve">{}</w:t></w:r>'
)
_PARAGRAPH = '<w:p><w:pPr><w:spacing w:after="120"/><w:jc w:val="both"/></w:pPr>{}</w:p>'


def _paragraphs(seed: int, count: int = 2000) -> list[bytes]:
    """A pool of distinct paragraphs marked up as Word writes them (paragraph properties,
    a run with its font and size every few words), more than deflate's 32 KB window, so
    the file compresses like a real document rather than like a repeated string."""
    rng = random.Random(seed)
    pool = []
    for n in range(count):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(25, 45))]
        words.append(f"${rng.randint(1, 999)},{rng.randint(0, 999):03d}.")
        runs = [" ".join(words[i : i + 6]) + " " for i in range(0, len(words), 6)]
        runs[0] = f"{n} {runs[0]}"
        pool.append(_PARAGRAPH.format("".join(_RUN.format(r) for r in runs)).encode())
    return pool


def _plain(paragraph: bytes) -> bytes:
    """A pool paragraph's words, without the Word markup."""
    return re.sub(rb"<[^>]+>", b"", paragraph)


def write_docx(path: Path, xml_bytes: int, *, seed: int = 7) -> int:
    """A Word file whose ``word/document.xml`` is ``xml_bytes`` long (±1 paragraph), written
    as a stream at compression level 1; returns the XML's exact size."""
    head = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<w:document xmlns:w="{_W}"><w:body>'
    )
    tail = b"</w:body></w:document>"
    pool = _paragraphs(seed)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        written = 0
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(head.encode())
            written = len(head)
            n = 0
            block: list[bytes] = []
            while written + len(tail) < xml_bytes:
                paragraph = pool[n % len(pool)]
                n += 1
                block.append(paragraph)
                written += len(paragraph)
                if len(block) >= 4096:
                    member.write(b"".join(block))
                    block.clear()
            member.write(b"".join(block))
            member.write(tail)
            written += len(tail)
    return written


def write_text(path: Path, size: int) -> None:
    """A Markdown file of ``size`` bytes of prose."""
    pool = [
        p.replace(b"<w:p><w:r><w:t>", b"").replace(b"</w:t></w:r></w:p>", b"\n\n")
        for p in _paragraphs(3)
    ]
    with path.open("wb") as out:
        out.write(b"# Large file\n\n")
        written = 14
        n = 0
        while written < size:
            piece = pool[n % len(pool)][: size - written]
            out.write(piece)
            written += len(piece)
            n += 1


def write_html(path: Path, size: int) -> None:
    """An HTML page of ``size`` bytes of paragraphs."""
    pool = [
        p.replace(b"<w:p><w:r><w:t>", b"<p>").replace(b"</w:t></w:r></w:p>", b"</p>\n")
        for p in _paragraphs(5)
    ]
    head, tail = b"<!DOCTYPE html><html><body><h1>Large page</h1>\n", b"</body></html>\n"
    with path.open("wb") as out:
        out.write(head)
        written = len(head) + len(tail)
        n = 0
        while written + len(pool[n % len(pool)]) <= size:
            out.write(pool[n % len(pool)])
            written += len(pool[n % len(pool)])
            n += 1
        out.write(b" " * (size - written) + tail)


ACCESS_KEYS_FILE = (
    "---\nTenant: t1\nACL: [secret]\n---\n# Secret plan\n\nThe secret plan pays $5,000.\n"
)

PROBES: dict[str, str] = {
    "symlink-etc-passwd": "a symlink to /etc/passwd",
    "symlink-dev-zero": "a symlink to /dev/zero",
    "fifo": "a FIFO named f.md",
    "access-keys-capitalised": "front matter Tenant: t1 / ACL: [secret]",
    "docx-24mb-xml": "a .docx of 24 MB of XML (≈1.6 MB file)",
    "docx-xml-just-under-limit": "a .docx of 63 MiB of XML (limit 64 MiB)",
    "docx-xml-just-over-limit": "a .docx of 65 MiB of XML",
    "docx-240mb-xml": "a .docx of ≈240 MB of XML (≈16 MB file), under the 256 MiB zip limit",
    "text-just-under-limit": "a .md of 127 MiB (limit 128 MiB)",
    "text-just-over-limit": "a .md of 129 MiB",
    "html-just-under-limit": "an .html of 7.9 MiB (limit 8 MiB)",
    "html-just-over-limit": "an .html of 8.1 MiB",
}


def make_probe(name: str, folder: Path) -> Path:
    """The corpus folder of probe ``name``: ``ok.md`` and the hostile file."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ok.md").write_text("# ok\n\nAn ordinary page about umbrella cover.\n")
    if name == "symlink-etc-passwd":
        (folder / "passwd.md").symlink_to("/etc/passwd")
    elif name == "symlink-dev-zero":
        (folder / "zero.md").symlink_to("/dev/zero")
    elif name == "fifo":
        os.mkfifo(folder / "f.md")
    elif name == "access-keys-capitalised":
        (folder / "secret.md").write_text(ACCESS_KEYS_FILE)
    elif name.startswith("docx-"):
        size = {
            "docx-24mb-xml": 24_000_000,
            "docx-xml-just-under-limit": 63 * MIB,
            "docx-xml-just-over-limit": 65 * MIB,
            "docx-240mb-xml": 240_000_000,
        }[name]
        write_docx(folder / "big.docx", size)
    elif name.startswith("text-"):
        write_text(folder / "big.md", (127 if "under" in name else 129) * MIB)
    elif name.startswith("html-"):
        write_html(folder / "big.html", int((7.9 if "under" in name else 8.1) * MIB))
    else:
        raise KeyError(name)
    return folder


def _capped(cap_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
    os.setsid()


LOAD_ONLY = frozenset(
    {"docx-xml-just-under-limit", "text-just-under-limit", "html-just-under-limit"}
)
"""Probes measured by loading the corpus only (``load_corpus``): chunking and indexing a
file just under a limit costs what its text costs, which is not what the limit bounds."""
_LOAD = (
    "import sys\n"
    "from osrag.loaders.corpus import load_corpus\n"
    "issues = [i for i in load_corpus(sys.argv[1]) if not hasattr(i, 'doc_id')]\n"
    "for issue in issues:\n"
    "    print(f'error {issue}', file=sys.stderr)\n"
    "sys.exit(3 if issues else 0)\n"
)


def run_probe(
    corpus: Path, home: Path, *, code: Path, cap_gb: float, timeout: float, load_only: bool
) -> dict[str, object]:
    """``osrag ingest corpus`` into an embedded index (or, ``load_only``, a load of the
    corpus) in a fresh, capped child process, run from ``home`` with ``code`` first on
    the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OSRAG_")}
    env |= {"OSRAG_HOME": str(home), "PYTHONPATH": str(code), "COLUMNS": "200"}
    ingest = ["-m", "osrag.cli", "ingest", str(corpus), "--backend", "embedded", "-q"]
    command = [sys.executable, *(["-c", _LOAD, str(corpus)] if load_only else ingest)]
    started = time.perf_counter()
    child = subprocess.Popen(
        command,
        env=env,
        cwd=home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: _capped(int(cap_gb * 1024**3)),
    )
    status, usage, outcome = wait_child(child, timeout)
    seconds = time.perf_counter() - started
    stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if outcome is None:
        code_ = os.waitstatus_to_exitcode(status)
        outcome = str(code_)
        if code_ != 0 and "MemoryError" in stderr:
            outcome = f"MEM({code_})"
    errors = [line for line in stderr.splitlines() if line.startswith("error")]
    return {
        "exit": outcome,
        "seconds": round(seconds, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "errors": errors[:3],
    }


def wait_child(
    child: subprocess.Popen[bytes], timeout: float
) -> tuple[int, resource.struct_rusage, str | None]:
    """Wait for ``child`` (its own process group) at most ``timeout`` seconds: its wait
    status, its resource usage (peak RSS), and "TIMEOUT" when it was killed."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            child.returncode = os.waitstatus_to_exitcode(status)
            return status, usage, None
        if time.monotonic() > deadline:
            os.killpg(child.pid, signal.SIGKILL)
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = -9
            return status, usage, "TIMEOUT"
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose osrag is run")
    parser.add_argument("--label", default=None, help="name of the JSON result (default: code dir)")
    parser.add_argument("--only", default="", help="comma-separated probe names")
    parser.add_argument("--cap-gb", type=float, default=3.0, help="address-space cap of a child")
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds before a child is killed"
    )
    parser.add_argument(
        "--load-timeout", type=float, default=150.0, help="the same for the load-only probes"
    )
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(PROBES)
    label = args.label or args.code.resolve().name
    rows: dict[str, dict[str, object]] = {}
    print(f"{'probe':<28} {'exit':>9} {'seconds':>8} {'peak RSS MiB':>13}  first error")
    with tempfile.TemporaryDirectory(prefix="osrag-hostile-") as tmp:
        for name in names:
            folder = make_probe(name, Path(tmp) / name / "corpus")
            home = Path(tmp) / name / "home"
            home.mkdir()
            row = run_probe(
                folder,
                home,
                code=args.code,
                cap_gb=args.cap_gb,
                timeout=args.load_timeout if name in LOAD_ONLY else args.timeout,
                load_only=name in LOAD_ONLY,
            )
            row["probe"] = PROBES[name]
            row["measured"] = "load" if name in LOAD_ONLY else "ingest"
            rows[name] = row
            first = (row["errors"] or [""])[0]  # type: ignore[index]
            print(
                f"{name:<28} {row['exit']!s:>9} {row['seconds']:>8.2f} "
                f"{row['peak_rss_mib']:>13.1f}  "
                f"{str(first)[:110]}",
                flush=True,
            )
            shutil.rmtree(Path(tmp) / name, ignore_errors=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"hostile_files-{label}.json"
    payload = {"code": str(args.code), "cap_gb": args.cap_gb, "timeout": args.timeout, "rows": rows}
    out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
