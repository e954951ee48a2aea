"""YAML front matter: the metadata block at the top of a Markdown or text file.

Rule: a first line ``---`` followed by a ``key: value`` line opens front matter, closed
by ``---`` or ``...``; the block is read by PyYAML's safe loader (libyaml's where
available) into a mapping, the document's text continuing after the closing line. A
first ``---`` followed by anything else is a thematic break, not front matter.

Invariant: :func:`front_matter` never raises for what a file holds. A block that never
closes, that is not YAML, that is not a mapping, or whose values Python cannot hold — a
30th of February, hour 25, year 0, an integer of 5,000 digits, nesting deeper than the
parser goes — is a :class:`~osrag.models.LoadIssue` naming the line.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from osrag.models import LoadIssue

__all__ = ["front_matter"]

_OPEN = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.M)
_YAML_KEY_LINE = re.compile(r"[ \t]*[A-Za-z_][\w.-]*[ \t]*:(?:[ \t]|\r?\n|\Z)")
"""The line after an opening ``---`` is ``key: value``: front matter, not a thematic break."""

try:
    _YamlBase: type = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _YamlBase = yaml.SafeLoader


class _FrontMatterLoader(_YamlBase):
    """PyYAML's safe loader whose dates, times and integers that Python cannot hold are
    YAML errors at their line, not a ``ValueError`` from deep inside the constructor."""


def _guarded(construct: Any, what: str) -> Any:
    def guarded(loader: Any, node: yaml.Node) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not a valid {what} ({exc})", node.start_mark
            ) from None

    return guarded


for _tag, _what in (("timestamp", "date or time"), ("int", "integer"), ("float", "number")):
    _FrontMatterLoader.add_constructor(
        f"tag:yaml.org,2002:{_tag}",
        _guarded(_FrontMatterLoader.yaml_constructors[f"tag:yaml.org,2002:{_tag}"], _what),
    )


def front_matter(text: str, rel: str) -> tuple[dict[Any, Any], int] | LoadIssue:
    """``(fields, content_start)`` of ``text`` (``({}, 0)`` without front matter), or the
    file's issue (see the module rule)."""
    m = _OPEN.match(text)
    if not m:
        return {}, 0
    close = _CLOSE.search(text, m.end())
    if close is None:
        if _YAML_KEY_LINE.match(text, m.end()):
            # Metadata that never closes must not become searchable content: a
            # tenant or ACL in it would otherwise silently turn into public text.
            return LoadIssue(
                path=rel,
                line=1,
                reason="front matter opened on line 1 is never closed (add a '---' line "
                "after the metadata)",
            )
        return {}, 0
    block = text[m.end() : close.start()]
    try:
        raw = yaml.load(block, Loader=_FrontMatterLoader) if block.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return LoadIssue(path=rel, line=line, reason=f"malformed front matter: {problem}")
    except RecursionError:
        return LoadIssue(path=rel, line=1, reason="front matter nested too deeply to read")
    if not isinstance(raw, dict):
        return LoadIssue(
            path=rel, line=1, reason=f"front matter is a {type(raw).__name__}, not a mapping"
        )
    return raw, close.end()
