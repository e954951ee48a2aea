"""What every command shares: the consoles, the options declared once, the engine session."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
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
    signature = inspect.signature(command)
    hints = typing.get_type_hints(command, include_extras=True)
    own = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name != "connection"
    ]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=kind)
        for name, kind in CONNECTION.items()
    ]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        connection = {name: kwargs.pop(name, None) for name in CONNECTION}
        return command(*args, connection=connection, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=own + added)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {
        k: v for k, v in command.__annotations__.items() if k != "connection"
    } | dict(CONNECTION)
    return wrapper  # type: ignore[return-value]


def session(
    url: str | None, config: Path | None, alias: str | None, backend: str | None
) -> tuple[Any, Any, str]:
    """Settings, engine and alias for a command (flags > env > file > defaults)."""
    from osrag.config import load_settings
    from osrag.engines import choose_backend, open_index
    from osrag.engines.rest.errors import cluster_errors

    settings = load_settings(config=config, url=url, alias=alias, backend=backend)
    with cluster_errors(settings):  # auto asks the cluster which engine it is
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
