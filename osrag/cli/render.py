"""The CLI's rendering edge: text from a corpus or a cluster reaches the terminal as text.

A file name, a heading, a document id or an error message can hold anything: an
escape sequence that clears the screen or retitles the window, a bell, a C1 control
(``\\x9b`` is a one-byte CSI to many terminals), a bidirectional override that reorders
what follows, Rich markup (``[bold red]``), a newline that draws a forged line or
table row. Every way the CLI writes goes through this module:

- :class:`SafeConsole` (both of the CLI's consoles) writes every control character
  of every string it renders — messages, table cells, titles — as a visible escape
  (``\\x1b``, ``\\x9b``, ``\\u202e``), the newline excepted: the CLI's own messages
  put newlines where they mean them. Its ``print_json`` writes the same JSON value
  with those characters ``\\u``-escaped, so ``--json`` stays exact.
- :func:`printable` is for a value put inside a message or a table cell: the newline
  too is written ``\\n``, and Rich markup is escaped (shown, not applied).
- :func:`data_table` makes a table whose string cells are values: each goes through
  :func:`printable`, so one row is one line whatever a cell holds.
- :func:`log_handler` does the same for log records.

Rich's table and logging modules are imported only when a table or a handler is made.
"""

from __future__ import annotations

import json as _json
import logging
import re
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

__all__ = ["SafeConsole", "data_table", "log_handler", "plural", "printable", "visible"]

_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0 and C1 controls, DEL, the Unicode line and paragraph separators and the
bidirectional embeddings, overrides and isolates."""
_CONTROL_BUT_NEWLINE = re.compile(
    r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal may act on."""
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")


def visible(text: object, *, newline: bool = False) -> str:
    """``text`` with every control character written as an escape (``\\x1b``, ``\\u202e``);
    ``newline`` keeps newlines as they are."""
    pattern = _CONTROL_BUT_NEWLINE if newline else _UNPRINTABLE
    return pattern.sub(_escaped, str(text))


def printable(text: object) -> str:
    """``text`` safe as one value in one line of the terminal: control characters (a
    newline in a file name, an escape sequence) written as ``\\n``, ``\\x1b``…, Rich markup
    escaped — so a value can neither forge a line of output nor restyle it."""
    return escape(visible(text))


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 hit``, ``5 hits``, ``1,024 candidates`` (``many``: an irregular plural)."""
    return f"{count:,} {noun if count == 1 else many or noun + 's'}"


class SafeConsole(Console):
    """A Rich console that never writes a control character it was given (see the module
    docstring)."""

    def render_str(self, text: str, **options: Any) -> Text:
        return super().render_str(visible(text, newline=True), **options)

    def print_json(self, json: str | None = None, *, data: Any = None, **_: Any) -> None:
        from rich.highlighter import JSONHighlighter
        from rich.text import Text

        value = _json.loads(json) if json is not None else data
        dumped = _json.dumps(value, indent=2, ensure_ascii=False)
        text = Text(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped))
        self.print(JSONHighlighter()(text), soft_wrap=True)


def data_table(*columns: Any, **options: Any) -> Table:
    """A :class:`rich.table.Table` of values: every string cell is shown as text on one
    line (:func:`printable`); other renderables (a :class:`~rich.text.Text` the CLI
    styled itself) pass as they are. Column headers are the CLI's own."""
    from rich.table import Table

    class DataTable(Table):
        def add_row(self, *renderables: Any, **row: Any) -> None:
            super().add_row(
                *(printable(c) if isinstance(c, str) else c for c in renderables), **row
            )

    return DataTable(*columns, **options)


def log_handler(console: Console) -> logging.Handler:
    """A Rich log handler on ``console`` whose records are rendered as text: control
    characters escaped, markup not applied."""
    from rich.logging import RichHandler

    class SafeLogHandler(RichHandler):
        def render_message(self, record: logging.LogRecord, message: str) -> Any:
            record.markup = False
            return super().render_message(record, visible(message, newline=True))

    return SafeLogHandler(console=console, show_time=False, show_path=False)
