"""Every CLI option that reads a file: a bad file is one line naming it, never a traceback.

Each option is given four bad files — missing, a folder, bytes that are not text, and
well-formed content of the wrong kind — and must fail with a non-zero exit code and an
error line that names the file, without a traceback. The options: ``--tokenizer
file:…`` (chunks, ingest), ``--config`` (every command), ``--embedder onnx:…`` and
``bert:…``, eval's queries, ``--qrels``, ``--holders``, ``--span-qrels``, span-qrels'
passages and ``--qrels``, and the connection's ``--password-file``, ``--api-key-file``,
``--ca-certs``, ``--client-cert``/``--client-key``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import osrag

BAD = ("missing", "folder", "bytes", "wrong")

WRONG = {
    "tokenizer": '{"model": {"type": "nothing"}}',
    "config": 'backend = ["not", "a", "backend"]\nk = "ten"\n',
    "onnx": "this is not an ONNX graph",
    "bert": None,  # a folder without the model's files
    "queries": '{"no": "query"}\n',
    "qrels": "this is not\na qrels file at all\n",
    "spans": "q1 d1 start end grade\n",
    "passages": '["not", "an", "object"]\n',
    "secret": "",  # an empty password or key
    "pem": "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n",
}


def bad_file(tmp_path: Path, kind: str, how: str) -> Path:
    path = tmp_path / "inputs" / f"{kind}-{how}"
    path.parent.mkdir(exist_ok=True)
    if how == "folder":
        path.mkdir()
    elif how == "bytes":
        path.write_bytes(b"\x80\x81\xfe\xff\x00\x9c" * 50)
    elif how == "wrong":
        content = WRONG[kind]
        if content is None:
            path.mkdir()
            (path / "config.json").write_text('{"hidden_size": 8}')
        else:
            path.write_text(content)
    return path


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An embedded index of two documents, for the commands that need one."""
    root = tmp_path_factory.mktemp("indexed")
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Umbrella\n\nThe umbrella policy covers $300,000.\n")
    env = {"OSRAG_HOME": str(root / "home"), "OSRAG_CACHE_DIR": str(root / "cache")}
    done = osrag("ingest", str(corpus), "-q", "--backend", "embedded", env=env)
    assert done.returncode == 0, done.stderr
    env["corpus"] = str(corpus)
    return env


def good_queries(tmp_path: Path) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "q1", "query": "umbrella policy"}\n')
    return path


EMBEDDED = ["--backend", "embedded"]
EVAL = ["eval", "{queries}", "--qrels", "{qrels}", *EMBEDDED]
SPANS = ["span-qrels", "{passages}", "--corpus", "{corpus}", "--out", "{out}"]
CHECK = ["config", "check", "--url"]
CASES: dict[str, tuple[str, list[str]]] = {
    "chunks --tokenizer file:": ("tokenizer", ["chunks", "{corpus}", "--tokenizer", "file:{f}"]),
    "ingest --tokenizer file:": (
        "tokenizer", ["ingest", "{corpus}", *EMBEDDED, "--tokenizer", "file:{f}"]
    ),
    "search --config": ("config", ["search", "umbrella", *EMBEDDED, "--config", "{f}"]),
    "ingest --config": ("config", ["ingest", "{corpus}", *EMBEDDED, "--config", "{f}"]),
    "ingest --embedder onnx:": (
        "onnx", ["ingest", "{corpus}", *EMBEDDED, "--embedder", "onnx:{f}"]
    ),
    "embedder warm bert:": ("bert", ["embedder", "warm", "bert:{f}"]),
    "eval QUERIES": ("queries", ["eval", "{f}", *EMBEDDED]),
    "eval --qrels": ("qrels", ["eval", "{queries}", "--qrels", "{f}", *EMBEDDED]),
    "eval --holders": ("qrels", [*EVAL, "--holders", "{f}"]),
    "eval --span-qrels": ("spans", [*EVAL, "--span-qrels", "{f}"]),
    "span-qrels PASSAGES": ("passages", [*SPANS[:1], "{f}", *SPANS[2:]]),
    "span-qrels --qrels": ("qrels", [*SPANS, "--qrels", "{f}"]),
    "config check --password-file": (
        "secret", [*CHECK, "http://127.0.0.1:9", "--username", "u", "--password-file", "{f}"]
    ),
    "config check --api-key-file": (
        "secret", [*CHECK, "http://127.0.0.1:9", "--api-key-file", "{f}"]
    ),
    "config check --ca-certs": ("pem", [*CHECK, "https://127.0.0.1:9", "--ca-certs", "{f}"]),
    "config check --client-cert": (
        "pem", [*CHECK, "https://127.0.0.1:9", "--client-cert", "{f}", "--client-key", "{f}"]
    ),
}  # fmt: skip


def _qrels(tmp_path: Path) -> Path:
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 a 1\n")
    return path


def _passages(tmp_path: Path) -> Path:
    path = tmp_path / "passages.jsonl"
    path.write_text('{"query_id": "q1", "doc_id": "a", "passage": "umbrella policy", "grade": 1}\n')
    return path


@pytest.mark.parametrize("how", BAD)
@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_file_is_one_line_naming_it(
    case: str, how: str, tmp_path: Path, indexed: dict[str, str]
) -> None:
    kind, template = CASES[case]
    path = bad_file(tmp_path, kind, how)
    env = {k: v for k, v in indexed.items() if k.startswith("OSRAG_")}
    fill = {
        "f": str(path),
        "corpus": indexed["corpus"],
        "queries": str(good_queries(tmp_path)),
        "qrels": str(_qrels(tmp_path)),
        "passages": str(_passages(tmp_path)),
        "out": str(tmp_path / "out.jsonl"),
    }
    args = [part.format(**fill) for part in template]
    done = osrag(*args, env=env, cwd=tmp_path)
    assert done.returncode not in (0, 1), (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
    assert errors, done.stderr[-2000:]
    assert path.name in errors[0], errors[0]
