"""``osrag plan``: what a proposed configuration would rebuild, and cost (see
:mod:`osrag.ingestion.change_plan`); ``osrag ingest --dry-run`` prints the same plan."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from osrag.cli.common import (
    AliasOpt,
    BackendOpt,
    ConfigFileOpt,
    FollowSymlinksOpt,
    JsonOpt,
    UrlOpt,
    cluster_guard,
    err,
    out,
    printable,
    session,
)
from osrag.cli.ingest import (
    AnalyzerOpt,
    EmbedderOpt,
    FitWindowOpt,
    MaxTokensOpt,
    MinTokensOpt,
    NewGenerationOpt,
    NoEmbedderOpt,
    OverlapOpt,
    PathArg,
    PruneOpt,
    SizeOpt,
    StrategyOpt,
    TokenizerOpt,
    ingest_options,
)
from osrag.errors import CorpusError

TenantOpt = Annotated[
    str | None,
    typer.Option("--tenant", help="The caller's tenant: the plan counts what it may see."),
]
AclOpt = Annotated[
    list[str] | None, typer.Option("--acl", help="A group of the caller (repeatable).")
]
UnrestrictedOpt = Annotated[
    bool,
    typer.Option(
        "--unrestricted",
        help="Every document, whatever its tenant or ACL (the operator who ingests).",
    ),
]
CalibrateOpt = Annotated[
    bool | None,
    typer.Option(
        "--calibrate/--no-calibrate",
        help="Measure the embedder now on a sample of the texts to embed (and store the "
        "rate); default: use the stored rate, measuring a local embedder once if none is.",
        show_default=False,
    ),
]
ShowOpt = Annotated[int, typer.Option(help="Documents listed at most (0: none).")]


def plan_command(
    path: PathArg,
    url: UrlOpt = None,
    config: ConfigFileOpt = None,
    alias: AliasOpt = None,
    backend: BackendOpt = None,
    strategy: StrategyOpt = None,
    size: SizeOpt = None,
    overlap: OverlapOpt = None,
    max_tokens: MaxTokensOpt = None,
    min_tokens: MinTokensOpt = None,
    tokenizer: TokenizerOpt = None,
    analyzer: AnalyzerOpt = "english",
    embedder: EmbedderOpt = None,
    no_embedder: NoEmbedderOpt = False,
    fit_window: FitWindowOpt = True,
    prune: PruneOpt = True,
    new_generation: NewGenerationOpt = False,
    tenant: TenantOpt = None,
    acl: AclOpt = None,
    unrestricted: UnrestrictedOpt = False,
    calibrate: CalibrateOpt = None,
    follow_symlinks: FollowSymlinksOpt = None,
    show: ShowOpt = 20,
    json_output: JsonOpt = False,
) -> None:
    """What ingesting PATH with these settings would change in the alias, and cost.

    Against the alias's current generation: documents and chunks unchanged, changed, new
    and removed; vectors read back from the index (same text, same embedder) and texts
    to embed, their tokens, time at this machine's measured rate, and money at the
    embed_price setting; index bytes before and after. Writes nothing to the index.
    Without --tenant/--acl the plan counts only documents a search without them sees;
    an alias that holds tenants needs --tenant (or --unrestricted)."""
    from osrag.ingestion.change_plan import Caller, plan_change

    if not path.exists():
        raise CorpusError(f"{path}: no such file or folder")
    settings, index, alias_name = session(url, config, alias, backend)
    with cluster_guard(settings):
        options = ingest_options(
            settings,
            index,
            alias_name,
            flags={
                "strategy": strategy,
                "size": size,
                "overlap": overlap,
                "max_tokens": max_tokens,
                "min_tokens": min_tokens,
                "tokenizer": tokenizer,
            },
            embedder=embedder,
            no_embedder=no_embedder,
            analyzer=analyzer,
            fit_window=fit_window,
            prune=prune,
            new_generation=new_generation,
            follow_symlinks=follow_symlinks,
        )
        caller = Caller(tenant=tenant, groups=tuple(acl or ()), unrestricted=unrestricted)
        plan = plan_change(
            path,
            index,
            options,
            caller=caller,
            price_per_million_tokens=settings.embed_price,
            calibrate=calibrate,
        )
    if json_output:
        out.print_json(plan.model_dump_json())
        return
    render_plan(plan, show=show)


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
    from osrag.cli.render import data_table

    where = "a new generation" if plan.new_generation else "in place"
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
    table.add_row("documents", str(d.unchanged), str(d.changed), str(d.new), str(d.removed), "")
    table.add_row(
        "chunks", str(c.unchanged), str(c.changed), str(c.new), str(c.removed), str(c.after)
    )
    out.print(table)
    out.print(
        f"writes {c.to_write} chunk record(s), deletes {c.to_delete}"
        + (f"; {d.failed} file(s) could not be read" if d.failed else ""),
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
