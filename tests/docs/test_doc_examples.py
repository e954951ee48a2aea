"""What users read is what runs: every example of the README and docs/ that shows output.

Console examples (``$ osrag …`` and what it prints) run on the example corpus in a fresh
embedded index and must print what the page shows, under the normalisation the checker's
docstring lists (:mod:`doc_examples`; docs/index.md says the same to readers). Python
examples (``>>>``) run as doctests. A block that cannot run here says why in a
``<!-- not run: … -->`` comment; an unmarked one that cannot run fails. The checker
itself is tested on pages written here: a stale example fails, with a diff.
"""

from __future__ import annotations

from pathlib import Path

import doc_examples
import pytest
from doc_examples import Example, Workspaces

CONSOLE = [e for e in doc_examples.every_example() if e.kind == "console"]
PYTHON_PAGES = sorted({e.page for e in doc_examples.every_example() if e.kind == "python"})


@pytest.mark.parametrize("example", CONSOLE, ids=[e.name for e in CONSOLE])
def test_every_console_example_prints_what_the_page_shows(
    example: Example, workspaces: Workspaces
) -> None:
    if example.not_run is not None:
        return  # counted and listed by test_every_example_runs_or_says_why_not
    why = example.why_not_runnable()
    assert why is None, (
        f"{example.name} cannot run ({why}): mark it <!-- not run: REASON --> or change it"
    )
    outcome = doc_examples.run_console(example, workspaces)
    assert not outcome.drifted(), outcome.report()


@pytest.mark.parametrize(
    "page", PYTHON_PAGES, ids=[p.relative_to(doc_examples.ROOT).as_posix() for p in PYTHON_PAGES]
)
def test_every_python_example_prints_what_the_page_shows(page: Path) -> None:
    shown = [e for e in doc_examples.examples(page) if e.kind == "python" and e.not_run is None]
    failures = doc_examples.run_python(shown)
    assert not failures, failures


def test_every_example_runs_or_says_why_not() -> None:
    found = doc_examples.counts()
    assert not found["cannot run"], "unmarked examples that cannot run:\n" + "\n".join(
        found["cannot run"]
    )
    assert found["console"] and found["python"]
    assert all(": " in entry and not entry.endswith(": ") for entry in found["not run"])


STALE = """\
# A page

Searching for the umbrella policies:

```console
$ osrag search 'umbrella $300K' --tenant acme --acl agents --k 1 --mode bm25
no cluster URL set; using the embedded index in .osrag — set OSRAG_URL to use a cluster
…
1  umbrella-3m-standard  Acme Personal Umbrella — High Limit › Limits  1.48  USD 3,000,000.00
```

<!-- not run: needs a cluster -->
```console
$ osrag search 'umbrella' --url http://127.0.0.1:9200
```

```console
$ osrag index status | head -3
```

```python
>>> 1 + 1
3
```
"""


def test_a_stale_example_fails_with_what_differs(tmp_path: Path, workspaces: Workspaces) -> None:
    page = tmp_path / "stale.md"
    page.write_text(STALE, encoding="utf-8")
    found = doc_examples.examples(page)
    assert [(e.kind, e.line, e.not_run) for e in found] == [
        ("console", 5, None),
        ("console", 13, "needs a cluster"),
        ("console", 17, None),
        ("python", 21, None),
    ]
    outcome = doc_examples.run_console(found[0], workspaces)
    drifted = outcome.drifted()
    assert [command.number for command, _, _ in drifted] == [6]
    report = outcome.report()
    assert "umbrella-3m-standard" in report and "umbrella-300k-plus" in report
    # the same page with the output the command really prints passes
    _, got, code = outcome.runs[0]
    assert code == 0 and doc_examples.agrees(got, got)
    counted = doc_examples.counts((page,))
    assert counted["not run"] == [f"{found[1].name}: needs a cluster"]
    assert counted["cannot run"] == [
        f"{found[2].name}: line 18, `osrag index status | head -3`: it uses shell syntax "
        "(a pipe, redirection, variable or substitution)"
    ]
    assert "Expected:\n    3\nGot:\n    2" in doc_examples.run_python([found[3]])


def test_the_normalisation_keeps_what_matters_and_only_that() -> None:
    normalise = doc_examples.normalise
    printed = (
        "osrag-chunks-ec32245e-1: 26 documents; wrote 260 chunks in 8.5 s · 29.9 ms\n"
        "building osrag-chunks-eval-db7c03fe for current · updated 2026-12-04 22:16:41 UTC\n"
        '{"score": 4.18123, "took_ms": 12.25, "created_at": "2026-12-04T22:16:41.5+00:00"}\n'
        "storage embedded@1:e32af703 · all-MiniLM-L6-v2@6c5947bc164d · USD 1,000.00"
    )
    assert normalise(printed) == (
        "osrag-chunks-<digest>-<n>: 26 documents; wrote 260 chunks in N s · N ms\n"
        "building osrag-chunks-eval-<digest> for current · updated <time>\n"
        '{"score": 4.18, "took_ms": N, "created_at": "<time>"}\n'
        "storage embedded@1:e32af703 · all-MiniLM-L6-v2@6c5947bc164d · USD 1,000.00"
    )
    folder = Path("/tmp/run-1")
    assert normalise("wrote /tmp/run-1/report.html", folder=folder) == "wrote report.html"
    agrees = doc_examples.agrees
    assert agrees("a  b\nc", "a b c")  # wrapping and padding do not matter
    assert agrees("first\n…\nlast", "first\nmiddle\nlines\nlast")
    assert agrees("hits: … · N ms", "hits: 5 (5 unique spans) · N ms")
    assert not agrees("5 hits", "4 hits")
    assert not agrees("a b", "b a")  # the order does
    assert not agrees("USD 300,000.00", "USD 3,000,000.00")
