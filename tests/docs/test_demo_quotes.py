"""The README and ``scripts/demo`` agree line for line where the README quotes the demo.

``scripts/demo`` prints each command as it runs it (``$ osrag …``, each word quoted as a
shell reads it, by its own ``shown`` function). A block of the pages marked
``<!-- run: quotes scripts/demo -->`` must quote those lines exactly: each of its
commands is one the demo runs, written as the demo prints it. What the commands print is
compared with the page — here, with the demo's commands run one after the other in one
folder as the demo runs them, and by tests/docs/test_doc_examples.py block by block — so
the figures the README quotes are the figures the demo prints.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from typing import Any

import doc_examples
from example_corpus import ROOT, osrag

DEMO = ROOT / "scripts" / "demo"


def demo_commands() -> list[list[str]]:
    """Every ``run …`` line of the demo as the words of an ``osrag`` command (its
    ``$corpus`` filled in)."""
    text = DEMO.read_text(encoding="utf-8")
    found = re.search(r"^corpus=(\S+)$", text, re.MULTILINE)
    assert found is not None, "scripts/demo no longer sets corpus="
    return [
        ["osrag", *(word.replace("$corpus", found.group(1)) for word in shlex.split(line[4:]))]
        for line in text.splitlines()
        if line.startswith("run ")
    ]


def printed(words: list[str]) -> str:
    """The line the demo prints before running ``osrag WORDS``: its own ``shown``
    function, run by bash."""
    text = DEMO.read_text(encoding="utf-8")
    function = re.search(r"^shown\(\) \{\n.*?^\}\n", text, re.MULTILINE | re.DOTALL)
    assert function is not None, "scripts/demo no longer defines shown()"
    script = function.group(0) + 'shown "$@"'
    done = subprocess.run(
        ["bash", "-c", script, "shown", *words[1:]], capture_output=True, text=True, check=True
    )
    return f"osrag {done.stdout}"


def quoting_blocks() -> list[doc_examples.Example]:
    return [e for e in doc_examples.every_example() if "quotes scripts/demo" in e.options]


def test_the_demo_prints_each_command_as_a_shell_reads_it() -> None:
    commands = demo_commands()
    assert commands[0][:3] == ["osrag", "ingest", "examples/insurance"]
    for words in commands:
        assert shlex.split(printed(words)) == words


def test_the_pages_quote_the_demo_line_for_line() -> None:
    blocks = quoting_blocks()
    assert {b.page.name for b in blocks} >= {"README.md"}
    assert len([b for b in blocks if b.page.name == "README.md"]) >= 3
    runs = demo_commands()
    for block in blocks:
        for command in block.commands():
            where = f"{block.page.name}:{command.number}"
            assert command.args in runs, f"{where}: `{command.line}` is not a command of the demo"
            assert command.line == printed(command.args), f"{where}: not as the demo prints it"


def test_the_readme_quotes_the_demos_explanation_and_both_evaluations() -> None:
    quoted = [
        command.args
        for block in quoting_blocks()
        if block.page.name == "README.md"
        for command in block.commands()
    ]
    wanted = [words for words in demo_commands() if "--explain" in words or words[1] == "eval"]
    assert len(wanted) == 3 and all(words in quoted for words in wanted)


def test_the_demos_commands_in_order_print_what_the_pages_quote(workspaces: Any) -> None:
    """The demo's commands, run one after the other in one folder as the demo runs them
    (from the corpus alone: its first command ingests it with vectors): each quoted
    command's output is what the page shows."""
    folder, cache = workspaces.folder("corpus")
    env = workspaces.environment(cache)
    transcript: dict[str, tuple[str, int]] = {}
    for words in demo_commands():
        done = osrag(words[1:], folder, env)
        transcript[printed(words)] = (done.stdout, done.returncode)
    assert all(code == 0 for _, code in transcript.values()), transcript
    for block in quoting_blocks():
        for command in block.commands():
            output, _ = transcript[command.line]
            got = doc_examples.normalise(output, folder=folder, cache=cache)
            assert doc_examples.agrees(doc_examples.normalise(command.expected), got), (
                f"{block.page.name}:{command.number}: $ {command.line}\n{got}"
            )
