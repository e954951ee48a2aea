"""``osrag plan``: what a proposed configuration would rebuild, and cost (see
:mod:`osrag.ingestion.change_plan`); ``osrag ingest --dry-run`` prints the same plan."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from osrag.cli.common import (
    AclOpt,
    FollowSymlinksOpt,
    JsonOpt,
    out,
    session_flags,
)
from osrag.cli.ingest import NewGenerationOpt, PathArg, PruneOpt, build_flags, ingest_session

TenantOpt = Annotated[
    str | None,
    typer.Option("--tenant", help="The caller's tenant: the plan counts what it may see."),
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


@build_flags
@session_flags
def plan_command(
    path: PathArg,
    *,
    where: dict[str, Any],
    build: dict[str, Any],
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

    with ingest_session(
        path,
        where,
        build,
        prune=prune,
        new_generation=new_generation,
        follow_symlinks=follow_symlinks,
    ) as (settings, index, options):
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
    from osrag.cli.plan_view import render_plan

    render_plan(plan, show=show)
