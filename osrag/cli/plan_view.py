"""How ``osrag plan`` and ``osrag ingest --dry-run`` print a
:class:`~osrag.schema.change_plan.ChangePlan` (``--json`` prints the model itself)."""

from __future__ import annotations

from typing import Any

from osrag.cli.common import err, out, printable


def _bytes(value: int | None) -> str:
    if value is None:
        return "unknown"
    for unit in ("B", "kB", "MB", "GB"):
        if abs(value) < 1000 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value = value / 1000  # type: ignore[assignment]
    return str(value)


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def render_plan(plan: Any, *, show: int = 20) -> None:
    """The plan as a few lines and a table (``--json`` prints the model itself)."""
    from osrag.cli.render import data_table, plural

    where = "in place"
    if plan.new_generation:
        where = "a new generation"
    elif plan.alias_moves:
        where = "a generation built before; the alias moves to it"
    current = plan.current_generation or "unset"
    out.print(
        f"plan for alias {printable(plan.alias)}: {printable(current)} → "
        f"{printable(plan.generation)} ({where}); covers {printable(plan.scope)}",
        highlight=False,
    )
    for change in plan.settings:
        out.print(
            f"  changes {printable(change.setting)}: {printable(change.before)} → "
            f"{printable(change.after)}",
            highlight=False,
        )
    table = data_table("", "unchanged", "changed", "new", "removed", "after", box=None)
    d, c = plan.documents, plan.chunks
    after = d.unchanged + d.changed + d.new
    table.add_row(
        "documents", str(d.unchanged), str(d.changed), str(d.new), str(d.removed), str(after)
    )
    table.add_row(
        "chunks", str(c.unchanged), str(c.changed), str(c.new), str(c.removed), str(c.after)
    )
    out.print(table)
    out.print(
        f"writes {plural(c.to_write, 'chunk record')}, deletes {c.to_delete:,}"
        + (f"; {plural(d.failed, 'file')} could not be read" if d.failed else ""),
        highlight=False,
    )
    if plan.vectors is not None and plan.embedding is not None:
        v, e = plan.vectors, plan.embedding
        out.print(
            f"vectors: {v.from_generation} read back from the index, {v.from_cache} from "
            f"the local cache, {v.to_embed} to embed ({v.tokens_to_embed:,} tokens, counted "
            f"with {printable(v.tokens_counted_with)})",
            highlight=False,
        )
        rate = (
            f"{e.texts_per_second:g} texts/s, {e.tokens_per_second:,.0f} tokens/s"
            if e.texts_per_second
            else "no rate"
        )
        money = ""
        if e.cost is not None:
            money = f"; cost {e.cost:.4f} at {e.price_per_million_tokens:g} per million tokens"
        out.print(
            f"embedding with {printable(e.embedder)}: about {_duration(e.seconds)} at "
            f"{rate} ({printable(e.rate_source)}){money}",
            highlight=False,
        )
    else:
        out.print("vectors: none (no embedder)", highlight=False)
    s = plan.size
    out.print(
        f"index size: {_bytes(s.bytes_before)} → {_bytes(s.bytes_after)} ({printable(s.note)})",
        highlight=False,
    )
    if show and plan.changed_documents:
        out.print("documents whose chunks change (document, then its chunks):", highlight=False)
    for row in plan.changed_documents[:show]:
        out.print(
            f"  {row.kind:<9} {printable(row.doc_id)}  unchanged {row.unchanged}, changed "
            f"{row.changed}, removed {row.removed}, to embed {row.to_embed}",
            highlight=False,
        )
    if show and len(plan.changed_documents) > show:
        out.print(f"  … {len(plan.changed_documents) - show} more", highlight=False)
    for warning in plan.warnings:
        err.print(f"[yellow]warning:[/yellow] {printable(warning)}", soft_wrap=True)
