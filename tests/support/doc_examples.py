"""The examples of the README and docs/ are run, and what they print is compared with the page.

What counts as an example (a fenced code block, found by markdown-it-py, the CommonMark
parser rich already depends on):

* a **console example**: a block with a line that starts with ``$ `` (a prompt). Each
  prompt line is a command (a line ending in ``\\`` continues on the next); the lines
  under it, up to the next prompt, are what it prints — stdout and stderr, in the order
  written. A ``# comment`` after a command is the reader's, not the shell's.
* a **Python example**: a block with ``>>>`` prompts, run with :mod:`doctest` (the blocks
  of one page share their names, as in one session; options ``ELLIPSIS`` and
  ``NORMALIZE_WHITESPACE``).

Other blocks — commands to copy without a prompt (``bash`` listings), code, JSON, diagrams
— show no output and are not run.

An HTML comment right before a block (blank lines between allowed) says how to run it:

* ``<!-- not run: REASON -->``: the block is illustrative (a command whose output is not
  shown, one that needs a cluster, a secret or a corpus the repository does not hold);
  it is counted and listed with its reason, never run.
* ``<!-- run: with vectors -->``: the index is built with the offline embedder
  (``--embedder default``) before the block runs.
* ``<!-- run: quotes scripts/demo -->``: the block's commands are lines of
  ``scripts/demo`` (tests/docs/test_demo_quotes.py holds the page to that), run with
  vectors as the demo's index has them.

How a console example runs: in a fresh folder holding a copy of ``examples/insurance``,
with no ``OSRAG_*`` variable set, ``COLUMNS=100``, and a cache folder of its own (the
embedder's model already built there, no vector cached). Unless its first command is an
``osrag ingest`` (the page shows the ingest itself), the folder's embedded index
(``.osrag``) already holds the corpus. Each command is ``python -m osrag.cli ARGS``; an
unmarked block that cannot run this way — a command other than ``osrag``, shell syntax
(pipes, redirections, ``VAR=value`` prefixes, ``&&``), a cluster (``--url``) — is a
failure that says to mark it.

What is compared: the command's output and the page's text, both **normalised**:

1. a duration — ``12.3 ms``, ``8.5 s`` — becomes ``N ms``, ``N s``;
2. a generation's digest and number — ``osrag-chunks-5a9b5afa-1`` — become
   ``osrag-chunks-<digest>-<n>`` (an evaluation's ``…-eval-db7c03fe``: ``…-eval-<digest>``);
3. a timestamp — ``2025-06-01 12:00:00``, ISO 8601 with fractions and a zone — becomes
   ``<time>``;
4. the run's folder becomes ``.`` and its cache folder ``~/.cache/osrag``;
5. in JSON, a ``score`` is rounded to 2 places, and a duration (a key ending in ``_ms``:
   ``took_ms``, ``embedder_load_ms``) becomes ``N``;
6. every run of whitespace, line breaks included, is one space — so where the terminal
   wrapped a line, and how wide a table's padding is, do not matter (the text and its
   order do);
7. ``…`` on the page stands for any text (doctest's ``ELLIPSIS``): a line of its own
   leaves out lines, ``…`` inside a line leaves out part of it.

Compared with :class:`doctest.OutputChecker` (options ``ELLIPSIS`` and
``NORMALIZE_WHITESPACE``) after rules 1–5 and after each ``…`` on the page is written as
doctest's ``...``. docs/examples.md says the same to the pages' authors.
``python tests/support/doc_examples.py`` prints the counts: examples run, marked not run
(with reasons), and unmarked ones that cannot run.
"""

from __future__ import annotations

import doctest
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from example_corpus import ROOT, Workspaces, osrag
from markdown_it import MarkdownIt

PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
"""The pages whose examples run: the README and every page of docs/."""

_MARKER = re.compile(r"<!--\s*(not run|run)\s*:\s*(.*?)\s*-->\s*$", re.DOTALL)
_RUN_OPTIONS = {"with vectors", "quotes scripts/demo"}
_PROMPT = "$ "
_OPERATORS = "();<>|&"
"""The characters of the shell's operators (a pipe, a redirection, ``&&``, ``;`` …): a
command run as an argument list would not honour them."""
_DURATION = re.compile(r"\b\d[\d,]*(?:\.\d+)? (ms|s)\b")
_GENERATION = re.compile(r"\b([a-z0-9][a-z0-9_.-]*?)-([0-9a-f]{8})(-\d+)?\b")
_TIMESTAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}| UTC)?"
)
_JSON_SCORE = re.compile(r'("score": )(-?\d+\.\d+(?:e-?\d+)?)')
_JSON_TIME = re.compile(r'("\w+_ms": )-?\d+(?:\.\d+)?')
_CHECKER = doctest.OutputChecker()
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@dataclass(frozen=True)
class Command:
    """One prompt line of a console example and what the page says it prints."""

    line: str
    """The command as written after the prompt (continuations joined, comment kept)."""
    expected: str
    number: int
    """Its line in the page."""

    @property
    def args(self) -> list[str]:
        """The words of the command, as a POSIX shell splits them (the comment dropped)."""
        return shlex.split(self.line, comments=True)

    def why_not_runnable(self) -> str | None:
        """Why the checker cannot run this command (None: it can)."""
        words = self.args
        if words and "=" in words[0]:
            return "it sets an environment variable first"
        if not words or words[0] != "osrag":
            return f"{(words or ['(nothing)'])[0]!r} is not an osrag command"
        lexer = shlex.shlex(self.line, posix=True, punctuation_chars=True)
        lexer.commenters = "#"
        if any(t and set(t) <= set(_OPERATORS) for t in lexer) or "$" in _unquoted(self.line):
            return "it uses shell syntax (a pipe, redirection, variable or substitution)"
        if any(w in ("--url", "--cloud-id") or w.startswith("--url=") for w in words):
            return "it needs a cluster"
        return None


@dataclass(frozen=True)
class Example:
    """A fenced block of a page that is an example, and what its marker says."""

    page: Path
    line: int
    """The line of the opening fence, 1-based."""
    text: str
    kind: str
    """``console`` or ``python``."""
    not_run: str | None = None
    """The reason given in ``<!-- not run: … -->``."""
    options: frozenset[str] = field(default_factory=frozenset)
    """From ``<!-- run: … -->``: ``with vectors``, ``quotes scripts/demo``."""

    @property
    def name(self) -> str:
        shown = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{shown.as_posix()}:{self.line}"

    @property
    def state(self) -> str:
        """The folder's state before the first command (:mod:`example_corpus`): the corpus
        alone when the example begins by ingesting it, else ingested — with vectors when
        its marker says so."""
        commands = self.commands()
        if commands and commands[0].args[:2] == ["osrag", "ingest"]:
            return "corpus"
        return "vectors" if self.options & {"with vectors", "quotes scripts/demo"} else "index"

    def commands(self) -> list[Command]:
        """The prompt lines of a console example and the output under each."""
        found: list[Command] = []
        lines = self.text.splitlines()
        at = 0
        while at < len(lines):
            if not lines[at].startswith(_PROMPT):
                at += 1
                continue
            number = self.line + 1 + at
            command = lines[at][len(_PROMPT) :]
            while command.rstrip().endswith("\\") and at + 1 < len(lines):
                at += 1
                command = command.rstrip()[:-1] + " " + lines[at].strip()
            at += 1
            output: list[str] = []
            while at < len(lines) and not lines[at].startswith(_PROMPT):
                output.append(lines[at])
                at += 1
            found.append(Command(command.strip(), "\n".join(output), number))
        return found

    def why_not_runnable(self) -> str | None:
        """Why an unmarked console example cannot run (None: every command can)."""
        for command in self.commands():
            why = command.why_not_runnable()
            if why is not None:
                return f"line {command.number}, `{command.line}`: {why}"
        return None


def _unquoted(code: str) -> str:
    """``code`` without its single-quoted parts (where a ``$`` is literal)."""
    return re.sub(r"'[^']*'", "''", code)


def _marker(source: str, fence_line: int) -> tuple[str, str] | None:
    """The ``<!-- … -->`` comment ending right before line ``fence_line`` (0-based),
    blank lines between allowed: (``run`` or ``not run``, what follows the colon)."""
    lines = source.splitlines()[:fence_line]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[-1].rstrip().endswith("-->"):
        return None
    start = len(lines) - 1
    while start > 0 and "<!--" not in lines[start]:
        start -= 1
    found = _MARKER.search("\n".join(lines[start:]).strip())
    return (found.group(1), " ".join(found.group(2).split())) if found else None


def examples(page: Path, source: str | None = None) -> list[Example]:
    """Every example of ``page`` (its ``source`` when given), in order."""
    source = page.read_text(encoding="utf-8") if source is None else source
    found: list[Example] = []
    for token in MarkdownIt("commonmark").parse(source):
        if token.type != "fence" or token.map is None:
            continue
        lines = token.content.splitlines()
        if any(line.startswith(_PROMPT) for line in lines):
            kind = "console"
        elif any(line.lstrip().startswith(">>> ") for line in lines):
            kind = "python"
        else:
            continue
        marker = _marker(source, token.map[0])
        not_run, options = None, frozenset[str]()
        if marker is not None and marker[0] == "not run":
            not_run = marker[1] or "(no reason given)"
        elif marker is not None:
            options = frozenset(o.strip() for o in marker[1].split(",") if o.strip())
            unknown = options - _RUN_OPTIONS
            if unknown:
                raise ValueError(
                    f"{page}:{token.map[0] + 1}: unknown run option(s) {sorted(unknown)}; "
                    f"known: {sorted(_RUN_OPTIONS)}"
                )
        found.append(Example(page, token.map[0] + 1, token.content, kind, not_run, options))
    return found


def every_example(pages: tuple[Path, ...] = PAGES) -> Iterator[Example]:
    for page in pages:
        yield from examples(page)


def normalise(text: str, *, folder: Path | None = None, cache: Path | None = None) -> str:
    """``text`` under rules 1–5 of the module docstring (whitespace is doctest's)."""
    if folder is not None:
        text = text.replace(f"{folder}/", "").replace(str(folder), ".")
    if cache is not None:
        text = text.replace(str(cache), "~/.cache/osrag")
    text = _JSON_SCORE.sub(lambda m: f"{m.group(1)}{float(m.group(2)):.2f}", text)
    text = _JSON_TIME.sub(r"\1N", text)
    text = _TIMESTAMP.sub("<time>", text)
    text = _DURATION.sub(r"N \1", text)
    return _GENERATION.sub(_generation, text)


def _generation(match: re.Match[str]) -> str:
    return f"{match.group(1)}-<digest>" + ("-<n>" if match.group(3) else "")


def agrees(expected: str, actual: str) -> bool:
    """Whether ``actual`` is what the page shows (both normalised already; ``…`` on the
    page stands for any text)."""
    want = expected.replace("…", "...").strip() + "\n"
    got = actual.strip() + "\n"
    return _CHECKER.check_output(want, got, _FLAGS)


@dataclass
class Outcome:
    """A console example run: each command with what the page shows and what it printed."""

    example: Example
    runs: list[tuple[Command, str, int]] = field(default_factory=list)
    """(command, its output normalised, its exit code)."""

    def drifted(self) -> list[tuple[Command, str, int]]:
        return [
            (command, got, code)
            for command, got, code in self.runs
            if not agrees(normalise(command.expected), got)
        ]

    def report(self) -> str:
        """What differs, command by command, for a failing test's message."""
        parts = []
        for command, got, code in self.drifted():
            parts.append(
                f"{self.example.page.name}:{command.number}: $ {command.line}\n"
                f"exit code {code}\n"
                f"--- the page shows (normalised) ---\n{normalise(command.expected).strip()}\n"
                f"--- the command printed (normalised) ---\n{got.strip()}"
            )
        return "\n\n".join(parts)


def run_console(example: Example, workspaces: Workspaces) -> Outcome:
    """Run every command of a console example in order, in one fresh folder."""
    folder, cache = workspaces.folder(example.state)
    env = workspaces.environment(cache)
    outcome = Outcome(example)
    for command in example.commands():
        done = osrag(command.args[1:], folder, env)
        got = normalise(done.stdout, folder=folder, cache=cache)
        outcome.runs.append((command, got, done.returncode))
    return outcome


def run_python(page_examples: list[Example]) -> str:
    """Run the Python examples of one page as one doctest session; the failures as
    doctest reports them ('' when every example printed what the page shows)."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    names: dict[str, object] = {"__name__": "__doc_examples__"}
    report: list[str] = []
    for example in page_examples:
        test = parser.get_doctest(
            example.text, names, example.name, str(example.page), example.line
        )
        runner.run(test, out=report.append, clear_globs=False)
        names = test.globs
    return "".join(report)


def counts(pages: tuple[Path, ...] = PAGES) -> dict[str, list[str]]:
    """The examples of ``pages`` by what the checker does with them (without running):
    run, not run (with the reason) and cannot run (unmarked)."""
    found: dict[str, list[str]] = {"console": [], "python": [], "not run": [], "cannot run": []}
    for example in every_example(pages):
        if example.not_run is not None:
            found["not run"].append(f"{example.name}: {example.not_run}")
        elif example.kind == "python":
            found["python"].append(example.name)
        elif (why := example.why_not_runnable()) is not None:
            found["cannot run"].append(f"{example.name}: {why}")
        else:
            found["console"].append(example.name)
    return found


def _tables(text: str) -> dict[tuple[str, str], str]:
    """The rows of the tables a command printed, by the table's title (the line above its
    top border) and the row's first cell."""
    rows: dict[tuple[str, str], str] = {}
    title = ""
    for line in text.split("\n"):
        stripped = line.rstrip()
        if stripped.startswith("│"):
            rows[(title, stripped.split("│")[1].strip())] = stripped
        elif stripped[:1] not in ("┏", "┃", "┡", "└", "┗"):
            title = stripped.strip()
    return rows


def _rows_from(expected: str, printed: str) -> list[str] | None:
    """The page's lines with each table row replaced by the printed table's same row; None
    when a row the page quotes is not printed (then the page needs a hand edit)."""
    got = _tables(printed)
    out: list[str] = []
    title = ""
    for line in expected.split("\n"):
        stripped = line.rstrip()
        if stripped.startswith("│"):
            key = (title, stripped.split("│")[1].strip())
            if key not in got:
                return None
            out.append(got[key])
            continue
        if stripped[:1] not in ("┏", "┃", "┡", "└", "┗") and stripped.strip() != "…":
            title = stripped.strip()
        out.append(line)
    return out


def update(pages: tuple[Path, ...] = PAGES) -> list[str]:
    """Rewrite, in the pages, the output of every console example that drifted with what
    its command prints now (the folder's paths written as the page writes them; timings,
    digests and scores as printed — the comparison normalises them). For a maintainer who
    changed the output on purpose: read the diff before committing it. The examples
    updated, by name."""
    import tempfile

    changed: list[str] = []
    with tempfile.TemporaryDirectory() as base:
        workspaces = Workspaces(Path(base))
        for page in pages:
            lines = page.read_text(encoding="utf-8").split("\n")
            edits: list[tuple[int, int, list[str]]] = []
            for example in examples(page):
                if example.kind != "console" or example.not_run or example.why_not_runnable():
                    continue
                folder, cache = workspaces.folder(example.state)
                env = workspaces.environment(cache)
                for command in example.commands():
                    done = osrag(command.args[1:], folder, env)
                    got = normalise(done.stdout, folder=folder, cache=cache)
                    if agrees(normalise(command.expected), got):
                        continue
                    if any(line.strip() == "…" for line in command.expected.split("\n")):
                        # a page that elides keeps its cut: only the rows of the tables it
                        # quotes are rewritten, each from the same table of the output
                        new = _rows_from(command.expected, done.stdout)
                        if new is None:
                            changed.append(f"{example.name} (line {command.number}): by hand")
                            continue
                        at = command.number
                        while lines[at - 1].rstrip().endswith("\\"):
                            at += 1
                        shown = command.expected.split("\n")
                        edits.append((at, at + len(shown), new))
                        changed.append(f"{example.name} (line {command.number}): table rows")
                        continue
                    raw = done.stdout.replace(f"{folder}/", "").replace(str(folder), ".")
                    raw = raw.replace(str(cache), "~/.cache/osrag").rstrip("\n")
                    at = command.number  # the prompt's line, 1-based: its output follows
                    while lines[at - 1].rstrip().endswith("\\"):
                        at += 1
                    shown = command.expected.split("\n") if command.expected else []
                    edits.append((at, at + len(shown), [r.rstrip() for r in raw.split("\n")]))
                    changed.append(f"{example.name} (line {command.number})")
            for start, end, new in sorted(edits, reverse=True):
                lines[start:end] = new
            if edits:
                page.write_text("\n".join(lines), encoding="utf-8")
    return changed


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        for name in update():
            print(f"updated {name}")
        raise SystemExit(0)
    for kind, names in counts().items():
        print(f"{kind}: {len(names)}")
        for name in names:
            print(f"  {name}")
