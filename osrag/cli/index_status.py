"""``osrag index status`` as a table: one row per thing an operator asks about.

The generation's configuration and versions are the manifest's dictionaries
(:class:`~osrag.schema.ingest.GenerationRecord`); here each is written as ``key value``
pairs, a nested table (the chunker's ``window``) on a row of its own, so nothing
reaches the terminal as a Python ``repr``. ``--json`` prints the model itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from osrag.cli.render import plural, visible

if TYPE_CHECKING:
    from rich.table import Table

    from osrag.ingestion.generations import IndexStatus

__all__ = ["analyzer_line", "mapping_text", "status_table"]


def analyzer_line(config: dict[str, Any]) -> str:
    """The generation's text analyzer, and what it stands in for when it was a fallback."""
    used = config.get("analyzer", "english")
    asked = config.get("analyzer_requested")
    return f"{used} (in place of {asked}, which the engine lacks)" if asked else str(used)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value == "":
        return '""'
    if isinstance(value, list | tuple):
        return ", ".join(map(_value, value)) or "none"
    return str(value)


def mapping_text(values: dict[str, Any]) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """``key value · key value`` for the plain values of ``values``, and its nested
    dictionaries apart (name, dictionary), each for a row of its own."""
    plain = [f"{key} {_value(v)}" for key, v in values.items() if not isinstance(v, dict)]
    nested = [(key, v) for key, v in values.items() if isinstance(v, dict)]
    return " · ".join(plain), nested


def _config_rows(name: str, values: dict[str, Any]) -> list[tuple[str, str]]:
    text, nested = mapping_text(values)
    rows = [(name, text)]
    for key, inner in nested:
        rows += _config_rows(f"{name} {key}", inner)
    return rows


def _versions(versions: dict[str, str]) -> Table:
    """A table in the cell: each version beside its name, a list's items after ``, `` so a
    long one wraps between them."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for key, value in versions.items():
        grid.add_row(Text(visible(key)), Text(visible(value.replace(",", ", "))))
    return grid


def _generation_rows(found: IndexStatus, alias: str) -> list[tuple[str, str | Table]]:
    record = found.generation
    if record is None:
        return [("alias", f"{alias} → (no generation)")]
    in_index = "?" if found.chunks_in_index is None else f"{found.chunks_in_index:,}"
    rows: list[tuple[str, str | Table]] = [
        ("alias", f"{alias} → {record.name} ({record.state})"),
        ("documents", f"{record.documents:,}"),
        ("chunks", f"{record.chunks:,} in the manifest, {in_index} in the index"),
        ("updated", f"{record.updated_at or record.created_at:%Y-%m-%d %H:%M:%S} UTC"),
        ("tenants", ", ".join(record.tenants) or "none"),
        ("acl", "yes" if found.policy.acl else "no"),
    ]
    rows += _config_rows("chunking", record.config.get("chunking", {}))
    vectors = record.config.get("embedder")
    if vectors:
        lost = plural(record.tokens_truncated, "token")
        rows.append(
            (
                "embedder",
                f"{vectors.get('id')} · window {vectors.get('window', '?')} · "
                f"{plural(record.chunks_truncated, 'chunk')} truncated ({lost} not embedded)",
            )
        )
    rows.append(("analyzer", analyzer_line(record.config)))
    rows.append(("versions", _versions(record.versions)))
    return rows


def _lock_row(found: IndexStatus) -> tuple[str, str]:
    if found.lock is None:
        return "lock", "free"
    alive = {True: "running", False: "no longer running", None: "on another host"}
    return "lock", f"held by {found.lock.describe()} ({alive[found.lock_owner_alive]})"


def status_table(found: IndexStatus, alias: str) -> Table:
    """The alias, its generation (counts, tenants, configuration, versions), the lock and
    the generations being built, a row each; every value escaped for the terminal."""
    from rich.table import Column

    from osrag.cli.render import data_table

    table = data_table(
        Column(no_wrap=True, style="bold"),
        Column(overflow="fold"),
        box=None,
        show_header=False,
        pad_edge=False,
    )
    rows = _generation_rows(found, alias)
    rows.append(_lock_row(found))
    if found.building:
        rows.append(("building", ", ".join(found.building)))
    for name, value in rows:
        table.add_row(name, value)
    return table
