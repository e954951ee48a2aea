"""What every command shares: the consoles, the options declared once, the engine session."""

from __future__ import annotations

import contextlib
import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from osrag.cli.render import SafeConsole
from osrag.cli.render import printable as printable  # the escape every command uses

out = SafeConsole()
err = SafeConsole(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])

ConfigFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--config", help="Configuration file (default: nearest osrag.toml or pyproject.toml)."
    ),
]
UrlOpt = Annotated[str | None, typer.Option("--url", help="OpenSearch or Elasticsearch URL.")]
AliasOpt = Annotated[
    str | None, typer.Option("--alias", help="The alias readers search (default: osrag-chunks).")
]
BackendOpt = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="auto (default: a URL → the engine that answers there; none → embedded), "
        "opensearch, elasticsearch or embedded (OSRAG_BACKEND).",
    ),
]
AclOpt = Annotated[
    list[str] | None, typer.Option("--acl", help="A group of the caller (repeatable).")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (the library's own model).")]
FollowSymlinksOpt = Annotated[
    bool | None,
    typer.Option(
        "--follow-symlinks/--no-follow-symlinks",
        help="Read symlinked files whose target is outside the corpus folder (regular files "
        "only; default: off, the follow_symlinks setting).",
        show_default=False,
    ),
]

CONNECTION: dict[str, Any] = {
    "config": ConfigFileOpt,
    "url": UrlOpt,
    "backend": BackendOpt,
    "cloud_id": Annotated[
        str | None, typer.Option("--cloud-id", help="Elastic Cloud deployment ID (not with --url).")
    ],
    "username": Annotated[str | None, typer.Option("--username", help="Basic auth user.")],
    "password_file": Annotated[
        Path | None,
        typer.Option("--password-file", help="File holding the password (no --password flag)."),
    ],
    "api_key_file": Annotated[
        Path | None,
        typer.Option(
            "--api-key-file", help="File holding an Elasticsearch API key (no --api-key flag)."
        ),
    ],
    "ca_certs": Annotated[
        Path | None, typer.Option("--ca-certs", help="PEM file of CAs to trust.")
    ],
    "verify_certs": Annotated[
        bool | None,
        typer.Option("--verify-certs/--no-verify-certs", help="Verify the server certificate."),
    ],
    "client_cert": Annotated[
        Path | None, typer.Option("--client-cert", help="PEM client certificate.")
    ],
    "client_key": Annotated[Path | None, typer.Option("--client-key", help="Its private key.")],
    "aws_region": Annotated[
        str | None, typer.Option("--aws-region", help="Sign requests with AWS SigV4.")
    ],
    "aws_service": Annotated[
        str | None, typer.Option("--aws-service", help="es (managed domain) or aoss (Serverless).")
    ],
    "timeout": Annotated[float | None, typer.Option("--timeout", help="Seconds per request.")],
    "max_retries": Annotated[
        int | None, typer.Option("--max-retries", help="Retries per request.")
    ],
}
"""Every connection flag, declared once; :func:`connection_flags` adds them to a command."""


def connection_flags(command: F) -> F:
    """Give ``command`` every flag of :data:`CONNECTION`; it receives them as one dict,
    ``connection`` (``None`` where a flag was not given), ready for ``load_settings``."""
    return flag_group("connection", CONNECTION, at_end=True)(command)


def flag_group(
    name: str,
    flags: Mapping[str, Any],
    defaults: Mapping[str, Any] | None = None,
    *,
    at_end: bool = False,
) -> Callable[[F], F]:
    """Give a command the flags of ``flags`` (parameter name → annotated type), declared
    once for every command that takes them; it receives them as one dict, its keyword-only
    parameter ``name`` (``defaults``, else ``None``, where a flag was not given). The flags
    stand where ``name`` stands in the command's signature (``at_end``: after its own),
    which is their order in ``--help``."""
    defaults = defaults or {}

    def decorate(command: F) -> F:
        signature = inspect.signature(command)
        hints = typing.get_type_hints(command, include_extras=True)
        added = [
            inspect.Parameter(
                flag, inspect.Parameter.KEYWORD_ONLY, default=defaults.get(flag), annotation=kind
            )
            for flag, kind in flags.items()
        ]
        parameters: list[inspect.Parameter] = []
        for p in signature.parameters.values():
            if p.name == name:
                parameters += [] if at_end else added
            else:
                parameters.append(p.replace(annotation=hints.get(p.name, p.annotation)))
        if at_end:
            parameters += added

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            group = {flag: kwargs.pop(flag, defaults.get(flag)) for flag in flags}
            return command(*args, **{name: group}, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {
            k: v for k, v in command.__annotations__.items() if k != name
        } | dict(flags)
        return wrapper  # type: ignore[return-value]

    return decorate


def uses_cluster(settings: Any) -> bool:
    """Whether the settings name a cluster the command will talk to: ``opensearch`` or
    ``elasticsearch``, or ``auto`` with a URL or Cloud ID (as
    :func:`~osrag.engines.choose_backend` decides); not the embedded index."""
    return settings.backend in ("opensearch", "elasticsearch") or (
        settings.backend == "auto" and settings.has_cluster
    )


def cluster_guard(settings: Any) -> contextlib.AbstractContextManager[None]:
    """:func:`~osrag.engines.rest.errors.cluster_errors` where a cluster is used;
    nothing on the embedded index, which has no cluster to fail — so a command on it
    does not import the cluster clients (opensearch-py, aiohttp: ~0.3 s)."""
    if not uses_cluster(settings):
        return contextlib.nullcontext()
    from osrag.engines.rest.errors import cluster_errors

    return cluster_errors(settings)


SESSION: dict[str, Any] = {
    "url": UrlOpt,
    "config": ConfigFileOpt,
    "alias": AliasOpt,
    "backend": BackendOpt,
}
"""The flags of a command that works on an alias: where its engine is, and which alias;
:data:`session_flags` adds them to a command, which passes them on to :func:`session`."""
session_flags = flag_group("where", SESSION)


def session(
    *, url: str | None, config: Path | None, alias: str | None, backend: str | None
) -> tuple[Any, Any, str]:
    """Settings, engine and alias for a command (flags > env > file > defaults)."""
    from osrag.config import load_settings
    from osrag.engines import choose_backend, open_index

    settings = load_settings(config=config, url=url, alias=alias, backend=backend)
    with cluster_guard(settings):  # auto asks the cluster which engine it is
        choice = choose_backend(settings)
        if choice.notice:
            err.print(choice.notice, highlight=False, soft_wrap=True)
        index = open_index(settings, choice=choice)
    return settings, index, settings.alias


def print_model(model: Any) -> None:
    """``--json``: the pydantic model (or a list of one model) as the library returns it."""
    from pydantic import BaseModel, TypeAdapter

    if isinstance(model, BaseModel):
        out.print_json(model.model_dump_json())
        return
    items = list(model)
    kind = type(items[0]) if items else BaseModel
    out.print_json(TypeAdapter(list[kind]).dump_json(items).decode())  # type: ignore[valid-type]
