"""Settings shared by the CLI and the library.

One pydantic settings model. Values come from (highest first) explicit
arguments/flags, ``OSRAG_*`` environment variables, then defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_URL = "http://127.0.0.1:9200"
DEFAULT_ALIAS = "osrag-chunks"


class Settings(BaseSettings):
    """Where the cluster is, how to reach it, and where osrag keeps local state."""

    model_config = SettingsConfigDict(env_prefix="OSRAG_", extra="ignore")

    url: str | None = Field(default=None, description="OpenSearch URL (e.g. https://host:9200)")
    alias: str = Field(default=DEFAULT_ALIAS, description="the alias readers search")
    username: str | None = None
    password: SecretStr | None = None
    password_file: Path | None = None
    ca_certs: Path | None = None
    verify_certs: bool = True
    client_cert: Path | None = None
    client_key: Path | None = None
    aws_region: str | None = None
    aws_service: Literal["es", "aoss"] = "es"
    timeout: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    home: Path | None = Field(default=None, description="osrag's local state (OSRAG_HOME)")

    @property
    def effective_url(self) -> str:
        return self.url or DEFAULT_URL
