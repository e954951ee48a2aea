"""``osrag search``: one query, a readable table, and why it returned what it did."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import ValidationError

from osrag.cli.common import (
    AclOpt,
    JsonOpt,
    cluster_guard,
    err,
    out,
    printable,
    session,
    session_flags,
)
from osrag.cli.render import plural
from osrag.errors import ConfigError

if TYPE_CHECKING:
    from rich.table import Table

    from osrag.models import QuerySpec, SearchHit, SearchResult

_FIELD_FLAGS = {"as_of": "as-of", "amount_filter": "no-amount-filter"}
"""The flag that sets each :class:`~osrag.models.QuerySpec` field (where the names differ)."""


QueryArg = Annotated[
    str,
    typer.Argument(
        help="The question; every amount it states is a constraint "
        "(exact, over/under, between, or) and becomes a filter."
    ),
]
KOpt = Annotated[int, typer.Option("--k", help="Hits to return.")]
TenantOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--tenant",
        metavar="<str>",
        help="Only this tenant's documents (one tenant: given twice is an error).",
    ),
]
AsOfOpt = Annotated[
    str | None,
    typer.Option("--as-of", help="Only documents in force on this day (YYYY-MM-DD)."),
]
CategoryOpt = Annotated[list[str] | None, typer.Option(help="Only these categories (repeatable).")]
NoAmountFilterOpt = Annotated[
    bool,
    typer.Option(
        "--no-amount-filter", help="No amount constraints at all (the plain BM25 baseline)."
    ),
]
CollapseOpt = Annotated[bool, typer.Option(help="One hit per document.")]
ModeOpt = Annotated[
    str,
    typer.Option(
        help="auto (hybrid where the alias holds vectors, else bm25), bm25 (words), vector "
        "(the query's embedding) or hybrid (both, fused); every filter is in every leg."
    ),
]
FusionOpt = Annotated[
    str, typer.Option(help="hybrid: rrf (reciprocal rank fusion) or normalization.")
]
EmbedderOpt = Annotated[
    str | None,
    typer.Option(
        help="The query embedder (default: the one the alias was built with).",
        show_default=False,
    ),
]
SearchTypeOpt = Annotated[
    str | None,
    typer.Option(
        "--search-type",
        help="dfs_query_then_fetch (default: term statistics of every shard, as one shard "
        "scores) or query_then_fetch (each shard's own; one round trip less).",
    ),
]
ExplainOpt = Annotated[
    bool,
    typer.Option(
        "--explain",
        help="Before the results (on stderr): the amount constraints the query states and "
        "what each is bound to, the amount ladder's steps with their candidates, and one "
        "line per leg with its filters.",
    ),
]
ExplainJsonOpt = Annotated[
    bool,
    typer.Option(
        "--explain-json",
        help="--explain, then the request bodies of the step that answered, as OpenSearch "
        "DSL (the embedded index compiles the same plan to its own queries).",
    ),
]
ContextOpt = Annotated[
    str | None,
    typer.Option(
        "--context",
        help="Expand the hits into passages of the document's own text: neighbours (the "
        "chunks around each hit), section (the enclosing section) or table (a table's caption "
        "and header with the hit's rows). One more request.",
        show_default=False,
    ),
]
BudgetOpt = Annotated[
    int,
    typer.Option(help="--context: tokens all passages hold together (never exceeded)."),
]
NeighboursOpt = Annotated[
    int, typer.Option(help="--context neighbours: chunks on each side of a hit.")
]
TokenizerOpt = Annotated[
    str | None,
    typer.Option(
        help="--context: the tokenizer that counts the budget (default: the embedder's, else "
        "the one the chunks were counted in).",
        show_default=False,
    ),
]


@session_flags
def search_command(
    query: QueryArg,
    *,
    where: dict[str, Any],
    k: KOpt = 10,
    tenant: TenantOpt = None,
    acl: AclOpt = None,
    as_of: AsOfOpt = None,
    category: CategoryOpt = None,
    no_amount_filter: NoAmountFilterOpt = False,
    collapse: CollapseOpt = False,
    mode: ModeOpt = "auto",
    fusion: FusionOpt = "rrf",
    embedder: EmbedderOpt = None,
    search_type: SearchTypeOpt = None,
    explain: ExplainOpt = False,
    explain_json: ExplainJsonOpt = False,
    context: ContextOpt = None,
    budget: BudgetOpt = 1024,
    neighbours: NeighboursOpt = 1,
    tokenizer: TokenizerOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Search the alias: a readable table under a line with the filters and the candidate count;
    with --context, the passages (--json: a `passages` list beside `hits`)."""
    from osrag.search.searcher import Searcher

    if tenant is not None and len(tenant) > 1:
        raise ConfigError(
            f"--tenant given {len(tenant)} times ({', '.join(map(repr, tenant))}): a search "
            "is for one tenant"
        )
    spec = _spec(
        query,
        k=k,
        tenant=tenant[0] if tenant else None,
        acl=acl,
        as_of=as_of,
        category=category,
        no_amount_filter=no_amount_filter,
        collapse=collapse,
        mode=mode,
        fusion=fusion,
        context=_context(context, budget, neighbours, tokenizer),
    )
    if search_type not in (None, "query_then_fetch", "dfs_query_then_fetch"):
        raise ConfigError(
            f"--search-type {search_type!r}: choose query_then_fetch or dfs_query_then_fetch"
        )
    settings, index, alias_name = session(**where)
    searcher = Searcher(
        index,
        alias_name,
        embedder=embedder,
        search_type=search_type,  # type: ignore[arg-type]  # validated above
        label_meaning_threshold=settings.label_meaning_threshold,
    )
    with cluster_guard(settings):
        result = searcher.search(spec)
        if explain or explain_json:
            _print_explanation(searcher, spec, result, bodies=explain_json)
    if json_output:
        out.print_json(result.model_dump_json())
        return
    err.print(_summary_line(result), highlight=False)
    out.print(_hits_table(result, out.width))
    if result.context is not None:
        _print_passages(result)


def _context(
    kind: str | None, budget: int, neighbours: int, tokenizer: str | None
) -> dict[str, Any] | None:
    """``--context`` and its options as the ContextRequest the library takes (validated with
    the rest of the query: a bad value names its flag)."""
    if kind is None:
        return None
    return {"kind": kind, "budget": budget, "neighbours": neighbours, "tokenizer": tokenizer}


def _print_passages(result: SearchResult) -> None:
    """Each passage under a line naming its document, span, breadcrumb and hits; then a note
    for whatever the budget left out."""
    report = result.context
    assert report is not None
    for passage in result.passages:
        where = f"\\[{passage.span.start}, {passage.span.end})"
        pages = f" · pages {', '.join(map(str, passage.pages))}" if passage.pages else ""
        out.print(
            f"\n[bold]{passage.rank}. {printable(passage.doc_id)}[/bold] {where}{pages} · "
            f"{printable(passage.breadcrumb)} · {passage.tokens} tokens · "
            f"hits {len(passage.hits)}",
            highlight=False,
        )
        # the passage's own lines, as text: markup not applied, control characters escaped
        out.print(passage.text, highlight=False, markup=False)
    line = (
        f"passages: {len(result.passages)} · {report.kind} · {report.tokens} of "
        f"{report.budget} tokens ({report.tokenizer}) · {report.chunks_read} chunks read"
    )
    err.print(line, highlight=False)
    for note in report.notes():
        err.print(f"  note: {printable(note)}", highlight=False)


def _spec(
    query: str,
    *,
    as_of: str | None,
    acl: list[str] | None,
    category: list[str] | None,
    no_amount_filter: bool,
    **given: Any,
) -> QuerySpec:
    """The query as the library takes it; a bad value is a ConfigError naming its flag."""
    from osrag.models import QuerySpec

    try:
        when = dt.date.fromisoformat(as_of) if as_of else None
    except ValueError as exc:
        raise ConfigError(f"--as-of {as_of!r}: expected YYYY-MM-DD") from exc
    try:
        return QuerySpec(
            text=query,
            k=given.pop("k"),
            acl=acl or None,
            as_of=when,
            category=category or None,
            amount_filter=not no_amount_filter,
            **given,  # tenant, collapse, mode and fusion, validated here
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(part) for part in first["loc"]]
        if loc[:1] == ["context"] and loc[1:2] != ["kind"]:
            loc = loc[1:]  # --budget, --neighbours, --tokenizer
        field = loc[0] if loc else "query"
        flag = _FIELD_FLAGS.get(field, field.replace("_", "-"))
        raise ConfigError(f"--{flag}: {first['msg']}") from None


def _print_explanation(
    searcher: Any, spec: QuerySpec, result: SearchResult, *, bodies: bool
) -> None:
    """``--explain``: the compact explanation of the step that answered
    (:mod:`osrag.cli.explain`); ``--explain-json`` adds its request bodies."""
    import json as jsonlib

    from rich.markup import escape

    from osrag.cli.explain import explanation, renderables
    from osrag.search.searcher import without_words

    plan = searcher.plan(spec)
    if result.text_fallback:
        plan = without_words(plan)
    sent = searcher.plans(plan, step=result.amount_step)
    for part in renderables(explanation(plan, sent, result)):
        err.print(part, highlight=False)
    if not bodies:
        return
    shown, _ = searcher.bodies(plan, step=result.amount_step)
    step = f"the {result.amount_step} step's" if result.amount_step else "the"
    err.print(f"{step} request, as OpenSearch DSL:", highlight=False)
    err.print(escape(_abridge_vectors(jsonlib.dumps(shown, indent=2, ensure_ascii=False))))


def _summary_line(result: SearchResult) -> str:
    """Mode, amount constraints, filters, candidates, hits, time (the model load apart) and
    index, on one line; notes under it."""
    filters = ", ".join(f.name for f in result.filters_applied) or "none"
    stated = (
        "; ".join(c.describe() for c in result.constraints)
        if result.constraints
        else result.amount_status
    )
    mode = f"{result.mode} ({result.fusion})" if result.fusion else result.mode
    line = (
        f"{mode} · amount: {printable(stated)} · filters: {printable(filters)} · "
        f"{plural(result.candidate_count, 'candidate')} · "
        f"{plural(result.raw_hits, 'hit')} ({plural(result.unique_spans, 'unique span')}) · "
        f"{result.took_ms:.1f} ms"
        + (
            f" (+ {result.embedder_load_ms:.0f} ms loading the embedder)"
            if result.embedder_load_ms is not None
            else ""
        )
        + f" · {printable(result.index)}"
    )
    if result.amount_step == "worded":
        line += (
            " · [yellow]worded: no amount of the named quantity met the constraints; an "
            "amount of a label holding most of its words did[/yellow]"
        )
    if result.amount_step == "per-unit":
        line += (
            " · [yellow]per-unit: no amount of the named quantity met the constraints; an "
            "amount of the period unit asked did, whatever its label[/yellow]"
        )
    if result.amount_step == "role-free" and len(result.amount_steps) > 1:
        line += (
            " · [yellow]role-free: no amount of the named quantity met the constraints; "
            "any amount did[/yellow]"
        )
    if result.fallback:
        line += (
            " · [yellow]fallback: the amount constraints together matched nothing and were "
            "dropped (boosts instead)[/yellow]"
        )
    if result.amount_steps:
        tried = ", ".join(f"{s.step} {s.candidates:,}" for s in result.amount_steps)
        line += f" · amount step: {result.amount_step} (candidates per step tried: {tried})"
    if result.text_fallback:
        line += (
            " · [yellow]text fallback: no chunk meeting the amount constraints matched the "
            "words; ranked by the constraints alone[/yellow]"
        )
    for note in result.amount_notes:
        line += f"\n  note: {printable(note)}"
    for matches in result.label_matches:
        meant = [m for m in matches.matches if m.by in ("modifier", "meaning") and m.keys]
        if meant:
            shown = ", ".join(
                f"{m.label!r} ({m.cosine:.2f})" if m.by == "meaning" else f"{m.label!r} by modifier"
                for m in meant
            )
            how = "by meaning" if matches.by_meaning else "by modifier"
            line += f"\n  note: {printable(repr(matches.name))} matched {how}: {printable(shown)}"
        elif not matches.matched and matches.note:
            line += f"\n  note: {printable(matches.note)}"
    if result.embedder_note:
        line += f"\n  note: {printable(result.embedder_note)}"
    return line


ROOM_BESIDE_IDS = 60
"""Columns the rank, breadcrumb, score and amounts need beside the document ids for the
table of one hit a row; a narrower terminal gets each hit on lines of its own."""


def _hits_table(result: SearchResult, width: int) -> Table:
    """The hits, best first: rank, document, breadcrumb, score and the first amounts each
    holds — a row each where the terminal is wide enough (``ROOM_BESIDE_IDS`` beside the
    longest id), else the document and score on one line with the breadcrumb and the
    amounts under them. A document id is never cut: it wraps where it cannot fit."""
    from rich.table import Column
    from rich.text import Text

    from osrag.cli.render import data_table, visible

    longest = max((len(visible(hit.doc_id)) for hit in result.hits), default=3)
    if width >= longest + ROOM_BESIDE_IDS:
        table = data_table(
            "#",
            Column("doc", no_wrap=True, overflow="fold", min_width=min(longest, width // 2)),
            "breadcrumb",
            "score",
            Column("amounts", no_wrap=True),
            box=None,
            pad_edge=False,
        )
        amounts = [_amounts(hit.money) for hit in result.hits]
        room = width - longest - len("#  ") - len("  score  ") - len("  ")
        across = _amounts_width(amounts, room * 2 // 5)
        for rank, (hit, held) in enumerate(zip(result.hits, amounts, strict=True), 1):
            packed = Text("\n".join(_packed(held, across)))
            table.add_row(str(rank), hit.doc_id, hit.breadcrumb, _score(hit), packed)
        return table
    table = data_table(
        "#", Column("doc · score, breadcrumb, amounts", overflow="fold"), box=None, pad_edge=False
    )
    for rank, hit in enumerate(result.hits, 1):
        lines = [Text(visible(hit.doc_id), style="bold"), Text(f" · {_score(hit)}")]
        below = [visible(hit.breadcrumb), *_packed(_amounts(hit.money), width - 3)]
        for line in filter(None, below):
            lines += [Text("\n"), Text(line)]
        table.add_row(str(rank), Text.assemble(*lines))
    return table


def _score(hit: SearchHit) -> str:
    return f"{hit.score or 0:.2f}"


def _amounts_width(amounts: list[list[str]], share: int) -> int:
    """The amounts column's width: every hit's amounts on one line where ``share`` holds
    them, else ``share`` (never narrower than the longest amount)."""
    widest = max((len(a) for held in amounts for a in held), default=0)
    natural = max((len(", ".join(held)) for held in amounts), default=0)
    return max(widest, min(natural, share))


def _packed(items: list[str], width: int) -> list[str]:
    """``items`` joined by commas into lines of at most ``width`` (an item longer than a
    line alone on its line): an amount is never split."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += f", {item}"
        else:
            lines.append(item)
    return lines


def _amounts(tokens: list[str]) -> list[str]:
    """The first four amounts a hit holds, as the currency writes them; ``…`` for more."""
    from osrag.models import Money

    shown = [Money.from_token(t).display() for t in tokens[:4]]
    return shown + (["…"] if len(tokens) > 4 else [])


def _abridge_vectors(text: str) -> str:
    """``"vector": [0.01, …384 numbers]`` instead of hundreds of lines of floats."""
    import re

    def short(match: re.Match[str]) -> str:
        numbers = match.group(1).split(",")
        return f'"vector": [{numbers[0].strip()}, … {len(numbers)} numbers]'

    return re.sub(r'"vector": \[([^\]]*)\]', short, text)
