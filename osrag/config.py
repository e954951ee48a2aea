"""Settings shared by the CLI and the library: one model, four sources, secrets masked.

Rule: each setting takes its value from the first source that sets it, in this
order — **flags** (keyword arguments to :func:`load_settings`, which every CLI
command calls) > **environment** (``OSRAG_<NAME>``) > **file** > **defaults**.
The file is the one named by ``--config`` / ``OSRAG_CONFIG``; otherwise the
nearest ``osrag.toml`` — or ``pyproject.toml`` with a ``[tool.osrag]`` table —
in the working directory or one of its parents (in the same directory
``osrag.toml`` wins). Relative paths in a file are relative to that file.

Invariants:

* the password and the API key are :class:`~pydantic.SecretStr`; ``repr``, ``str``,
  :meth:`Settings.masked`, :meth:`Settings.report` and every error message
  built here show it as ``****`` or not at all (validation errors never echo
  input: ``hide_input_in_errors``);
* a URL never keeps credentials: ``https://user:pass@host`` is split into
  ``username`` / ``password`` before anything else sees it;
* settings that cannot work together (a password without a user, basic auth
  *and* SigV4, an API key *and* basic auth, a Cloud ID *and* a URL, a CA file
  for an ``http://`` URL, …) raise
  :class:`~osrag.errors.ConfigError` naming the settings — never a guess.

``Settings()`` reads the same sources; :func:`load_settings` also records where
each value came from (:meth:`Settings.origin`), which ``osrag config show`` prints.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

# The file's constants stay importable from here, where they were first defined.
from osrag.config_sources import CONFIG_FILE_NAME as CONFIG_FILE_NAME
from osrag.config_sources import (
    ENV_PREFIX,
    ConfigFileSource,
    cloud_url,
    env_name,
    file_label,
    file_settings,
    find_config_file,
    read_config_file,
)
from osrag.config_sources import PATH_FIELDS as PATH_FIELDS
from osrag.errors import ConfigError
from osrag.lexicon.profiles import Profile, load_profile, read_profile
from osrag.loaders.limits import DEFAULT_READ, LIMIT_FIELDS, ReadOptions
from osrag.schema.extraction import ExtractionConfig

DEFAULT_URL = "http://127.0.0.1:9200"
DEFAULT_ALIAS = "osrag-chunks"
PYPROJECT_TABLE = ("tool", "osrag")
MASK = "****"

#: Settings whose value is a secret: shown as ``****``, never in clear.
SECRET_FIELDS = frozenset({"password", "api_key"})
#: Settings that say how a corpus is read (:class:`~osrag.loaders.limits.ReadOptions`).
READ_FIELDS = ("follow_symlinks", "require_tenant", *LIMIT_FIELDS)
EMBED_DEADLINE = 4 * 3600.0
"""The default seconds all the embedding of one ingest may take (4 hours): the
``embed_deadline`` setting."""
LABEL_MEANING_THRESHOLD = 0.7
"""The default cosine a label must reach to match a named quantity by meaning: the
``label_meaning_threshold`` setting (:mod:`osrag.search.meaning`; chosen on the development
sets, ``docs/amounts.md``)."""

#: The engines ``backend`` names (``auto``: the embedded index without a URL, else the
#: engine that answers at the URL).
BACKENDS = ("auto", "opensearch", "elasticsearch", "embedded")
Backend = Literal["auto", "opensearch", "elasticsearch", "embedded"]


def _named(*fields: str) -> str:
    return " and ".join(f"{f} ({env_name(f)})" for f in fields)


class EffectiveValue(BaseModel):
    """One row of ``osrag config show``: a masked value and where it came from."""

    value: str | bool | int | float | None
    source: str = Field(description="flag | env OSRAG_X | file <path> | default")


class ConfigReport(BaseModel):
    """The effective configuration, secrets masked (the ``--json`` of ``config show``)."""

    config_file: str | None
    values: dict[str, EffectiveValue]
    engine: str = Field(
        default="",
        description="the engine the commands will use with these settings, and why "
        "(:func:`osrag.engines.engine_in_use`)",
    )


class Settings(BaseSettings):
    """Where the cluster is, how to reach it, and where osrag keeps local state."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="ignore", hide_input_in_errors=True
    )

    url: str | None = Field(
        default=None, description="OpenSearch or Elasticsearch URL (e.g. https://host:9200)"
    )
    backend: Backend = Field(
        default="auto",
        description="auto (a URL: the engine that answers), opensearch, elasticsearch, embedded",
    )
    alias: str = Field(default=DEFAULT_ALIAS, description="the alias readers search")
    username: str | None = Field(default=None, description="HTTP basic auth user")
    password: SecretStr | None = Field(default=None, description="HTTP basic auth password")
    password_file: Path | None = Field(default=None, description="file holding the password")
    api_key: SecretStr | None = Field(
        default=None, description="Elasticsearch API key (Authorization: ApiKey …)"
    )
    api_key_file: Path | None = Field(default=None, description="file holding the API key")
    cloud_id: str | None = Field(default=None, description="Elastic Cloud deployment ID")
    ca_certs: Path | None = Field(default=None, description="PEM file of CAs to trust")
    verify_certs: bool = Field(default=True, description="verify the server certificate")
    client_cert: Path | None = Field(default=None, description="PEM client certificate")
    client_key: Path | None = Field(default=None, description="PEM key of the client certificate")
    aws_region: str | None = Field(default=None, description="sign requests with SigV4")
    aws_service: Literal["es", "aoss"] = Field(
        default="es", description="es (managed domain) or aoss (Serverless)"
    )
    timeout: float = Field(default=30.0, gt=0, description="seconds per request")
    max_retries: int = Field(default=3, ge=0, description="retries on connection errors")
    search_type: Literal["query_then_fetch", "dfs_query_then_fetch"] | None = Field(
        default=None,
        description="how a sharded generation scores: dfs_query_then_fetch (statistics of "
        "every shard; the default) or query_then_fetch (each shard's own)",
    )
    home: Path | None = Field(default=None, description="osrag's local state (OSRAG_HOME)")
    embedder: str | None = Field(
        default=None,
        description="the embedder of new generations (`osrag ingest --embedder`; e.g. default)",
    )
    embed_deadline: float = Field(
        default=EMBED_DEADLINE,
        gt=0,
        description="seconds all the embedding of one ingest may take (then it stops; what "
        "it wrote is kept, its vectors cached)",
    )
    embed_price: float | None = Field(
        default=None,
        ge=0,
        description="what embedding costs per million tokens (a service's price; `osrag "
        "plan` multiplies it by the tokens to embed)",
    )
    label_meaning_threshold: float | None = Field(
        default=LABEL_MEANING_THRESHOLD,
        ge=0,
        le=1,
        description="the cosine a label of the index must reach to match a question's named "
        "quantity by meaning, where no label holds its keys (off: by keys alone)",
    )
    config: Path | None = Field(default=None, description="configuration file to read")
    profiles: list[Path | dict[str, Any]] = Field(
        default_factory=list,
        description="a team's own family profiles, read with the built-in ones: TOML files "
        "(relative to the configuration file) or [[profiles]] tables (osrag.lexicon.profiles)",
    )
    follow_symlinks: bool = Field(
        default=False,
        description="read symlinked files whose target is outside the corpus folder "
        "(regular files only)",
    )
    require_tenant: bool = Field(
        default=False, description="refuse every document of a corpus that has no tenant"
    )
    max_file_bytes: int = Field(
        default=DEFAULT_READ.max_file_bytes, gt=0, description="bytes read from one file"
    )
    max_docx_unzipped_bytes: int = Field(
        default=DEFAULT_READ.max_docx_unzipped_bytes,
        gt=0,
        description="bytes the parts of one .docx may inflate to",
    )
    max_docx_xml_bytes: int = Field(
        default=DEFAULT_READ.max_docx_xml_bytes,
        gt=0,
        description="bytes of one .docx's word/document.xml",
    )
    max_pdf_pages: int = Field(
        default=DEFAULT_READ.max_pdf_pages, gt=0, description="pages of one PDF"
    )
    max_html_bytes: int = Field(
        default=DEFAULT_READ.max_html_bytes, gt=0, description="bytes of one HTML page"
    )
    max_text_chars: int = Field(
        default=DEFAULT_READ.max_text_chars,
        gt=0,
        description="characters of text extracted from one PDF, Word or HTML file",
    )

    _origins: dict[str, str] = PrivateAttr(default_factory=dict)
    _config_file: str | None = PrivateAttr(default=None)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # flags (init kwargs) > environment > configuration file > defaults
        return (init_settings, env_settings, ConfigFileSource(settings_cls))

    # ----------------------------------------------------------------- validation

    @model_validator(mode="before")
    @classmethod
    def _credentials_out_of_url(cls, data: Any) -> Any:
        """``https://user:pass@host`` → url ``https://host`` + username + password."""
        if not isinstance(data, dict) or not isinstance(data.get("url"), str):
            return data
        parts = urlsplit(data["url"])
        if "@" not in parts.netloc:
            return data
        userinfo, _, hostport = parts.netloc.rpartition("@")
        user, has_password, password = userinfo.partition(":")
        data = dict(data, url=urlunsplit(parts._replace(netloc=hostport)))
        if user:
            if data.get("username") not in (None, unquote(user)):
                raise ConfigError(
                    f"the URL names user {unquote(user)!r} but username ({env_name('username')}) "
                    f"is {data['username']!r}: set the user in one place"
                )
            data["username"] = unquote(user)
        if has_password:
            if data.get("password") is not None or data.get("password_file") is not None:
                raise ConfigError(
                    "the URL carries a password and password or password_file is also set: "
                    "set the password in one place (better: OSRAG_PASSWORD_FILE, not the URL)"
                )
            data["password"] = unquote(password)
        return data

    @field_validator("label_meaning_threshold", mode="before")
    @classmethod
    def _off(cls, value: Any) -> Any:
        """``off`` (or ``none``): labels match by keys alone."""
        if isinstance(value, str) and value.strip().lower() in ("off", "none", ""):
            return None
        return value

    @field_validator("url")
    @classmethod
    def _http_or_https(cls, url: str | None) -> str | None:
        if url is None:
            return None
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must look like http://host:9200 or https://host:9200")
        try:
            parts.port  # noqa: B018 — raises ValueError on a bad port
        except ValueError:
            raise ValueError("has a port that is not a number from 0 to 65535") from None
        return url.rstrip("/")

    @model_validator(mode="after")
    def _settings_fit_together(self) -> Settings:
        if self.password is not None and self.password_file is not None:
            raise ConfigError(f"{_named('password', 'password_file')} are both set: use one")
        has_password = self.password is not None or self.password_file is not None
        if has_password and not self.username:
            raise ConfigError(f"a password is set but no user: set {_named('username')}")
        if self.username and not has_password:
            raise ConfigError(
                f"username {self.username!r} is set but no password: "
                f"set {_named('password_file')} or {env_name('password')}"
            )
        if self.api_key is not None and self.api_key_file is not None:
            raise ConfigError(f"{_named('api_key', 'api_key_file')} are both set: use one")
        has_api_key = self.api_key is not None or self.api_key_file is not None
        if has_api_key and self.username:
            raise ConfigError(
                f"both an API key ({env_name('api_key')}) and basic auth "
                f"({env_name('username')}) are set: a request carries one Authorization "
                "header, choose one"
            )
        if has_api_key and self.aws_region:
            raise ConfigError(
                f"both an API key ({env_name('api_key')}) and SigV4 "
                f"({env_name('aws_region')}) are set: a request carries one Authorization "
                "header, choose one"
            )
        if self.cloud_id is not None:
            if self.url is not None:
                raise ConfigError(
                    f"{_named('url', 'cloud_id')} are both set: a Cloud ID names the "
                    "deployment's URL, set one"
                )
            if self.aws_region:
                raise ConfigError(
                    f"{_named('cloud_id')} names an Elastic Cloud deployment, which does not "
                    f"take SigV4 ({env_name('aws_region')}): unset one"
                )
            if self.backend == "opensearch":
                raise ConfigError(
                    f"{_named('cloud_id')} names an Elastic Cloud deployment (Elasticsearch), "
                    f"but backend is {self.backend!r}: set backend to elasticsearch or auto"
                )
            cloud_url(self.cloud_id)  # a Cloud ID that cannot be read is an error now
        if self.client_key is not None and self.client_cert is None:
            raise ConfigError(f"{_named('client_key')} is set without {_named('client_cert')}")
        if self.aws_region and self.username:
            raise ConfigError(
                f"both basic auth ({env_name('username')}) and SigV4 "
                f"({env_name('aws_region')}) are set: a request carries one Authorization "
                "header, choose one"
            )
        if self.aws_service == "aoss" and not self.aws_region:
            raise ConfigError(
                f"{env_name('aws_service')}=aoss signs requests with SigV4: "
                f"set {_named('aws_region')} too"
            )
        if not self.uses_tls:
            tls_only = [f for f in ("ca_certs", "client_cert", "client_key") if getattr(self, f)]
            if tls_only:
                raise ConfigError(
                    f"{_named(*tls_only)} only apply to TLS, but the URL "
                    f"{self.effective_url} is plain http:// (did you mean https://?)"
                )
        return self

    # ----------------------------------------------------------------- derived

    def family_profiles(self) -> tuple[Profile, ...]:
        """The :attr:`profiles` setting read: each file or table a
        :class:`~osrag.lexicon.profiles.Profile`; a problem is a
        :class:`~osrag.errors.ConfigError` naming the file (or the setting's place) and
        the field."""
        source = self.origin("profiles")
        where = source.removeprefix("file ") if source.startswith("file ") else source
        found: list[Profile] = []
        for i, item in enumerate(self.profiles):
            if isinstance(item, dict):
                found.append(read_profile(item, f"{where}: profiles[{i}]"))
            else:
                found.append(load_profile(item))
        return tuple(found)

    def extraction(self) -> ExtractionConfig:
        """The extraction settings of an ingest: the family profiles of :attr:`profiles`
        with the built-in ones."""
        return ExtractionConfig(profiles=self.family_profiles())

    def read_options(self, **overrides: Any) -> ReadOptions:
        """How a corpus is read under these settings (``overrides``: flags set on a command)."""
        fields = {name: getattr(self, name) for name in READ_FIELDS}
        fields.update({k: v for k, v in overrides.items() if v is not None})
        return ReadOptions(**fields)

    @property
    def effective_url(self) -> str:
        if self.url is None and self.cloud_id is not None:
            return cloud_url(self.cloud_id)
        return self.url or DEFAULT_URL

    @property
    def has_cluster(self) -> bool:
        """A cluster is named (a URL or a Cloud ID): ``auto`` means that cluster's engine."""
        return self.url is not None or self.cloud_id is not None

    @property
    def uses_tls(self) -> bool:
        return self.effective_url.startswith("https://")

    @property
    def uses_sigv4(self) -> bool:
        """Requests are signed with AWS SigV4 (``OSRAG_AWS_REGION`` is set)."""
        return bool(self.aws_region)

    @property
    def is_serverless(self) -> bool:
        """The target is Amazon OpenSearch Serverless (``aoss``): ingest must omit
        shard/replica/refresh settings, never call ``_refresh`` or
        ``_delete_by_query``, and delete stale chunks by id (docs/connecting.md:
        "Amazon OpenSearch Serverless")."""
        return self.uses_sigv4 and self.aws_service == "aoss"

    def basic_auth(self) -> tuple[str, SecretStr] | None:
        """``(user, password)`` for HTTP basic auth, reading the password file if one is set."""
        if not self.username:
            return None
        if self.password is not None:
            return self.username, self.password
        assert self.password_file is not None  # guaranteed by _settings_fit_together
        path = self.password_file
        try:
            secret = path.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as exc:
            raise ConfigError(f"cannot read the password file {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"the password file {path} is not UTF-8 text") from None
        if not secret:
            raise ConfigError(f"the password file {path} is empty")
        return self.username, SecretStr(secret)

    def api_key_header(self) -> SecretStr | None:
        """The API key as ``Authorization: ApiKey <value>`` sends it, reading the key file
        if one is set. An ``id:api_key`` pair (what the create-API-key call returns as two
        fields) is base64-encoded; an already encoded key is sent as it is."""
        if self.api_key is not None:
            key, where = self.api_key.get_secret_value(), env_name("api_key")
        elif self.api_key_file is not None:
            path, where = self.api_key_file, f"the API key file {self.api_key_file}"
            try:
                key = path.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ConfigError(f"cannot read {where}: {exc.strerror}") from None
            except UnicodeDecodeError:
                raise ConfigError(f"{where} is not UTF-8 text") from None
        else:
            return None
        key = key.strip()
        if not key:
            raise ConfigError(f"{where} is empty")
        if any(c.isspace() for c in key):
            raise ConfigError(f"{where} holds white space inside the key: is it an API key?")
        if ":" in key:
            key = base64.b64encode(key.encode()).decode()
        return SecretStr(key)

    # ----------------------------------------------------------------- display

    def masked(self) -> dict[str, str | bool | int | float | None]:
        """Every setting as a plain value, secrets replaced by ``****``."""
        shown: dict[str, str | bool | int | float | None] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if value is None:
                shown[name] = None
            elif name in SECRET_FIELDS:
                shown[name] = MASK
            elif isinstance(value, Path):
                shown[name] = str(value)
            elif name == "profiles":
                shown[name] = ", ".join(_profile_shown(item) for item in value) or None
            else:
                shown[name] = value
        named = self.has_cluster or self.backend in ("opensearch", "elasticsearch")
        shown["url"] = self.effective_url if named else None  # the URL a command would use
        return shown

    def origin(self, name: str) -> str:
        """Where ``name`` came from: ``flag``, ``env OSRAG_X``, ``file <path>`` or ``default``.

        Known for settings made by :func:`load_settings`; ``Settings()`` built
        directly reports ``default`` for values it cannot trace.
        """
        if name not in type(self).model_fields:
            raise KeyError(name)
        return self._origins.get(name, "default")

    @property
    def config_file(self) -> str | None:
        """The configuration file that was read, if any (set by :func:`load_settings`)."""
        return self._config_file

    def report(self) -> ConfigReport:
        values = self.masked()
        return ConfigReport(
            config_file=self._config_file,
            values={
                name: EffectiveValue(value=value, source=self.origin(name))
                for name, value in values.items()
            },
        )


def _profile_shown(item: Path | dict[str, Any]) -> str:
    """A profile of the setting as ``config show`` lists it: its file, or its table's name."""
    if isinstance(item, dict):
        return f"[[profiles]] {item.get('name', '?')}"
    return str(item)


# --------------------------------------------------------------------- loading


def load_settings(**flags: Any) -> Settings:
    """The effective settings: ``flags`` > environment > file > defaults.

    ``flags`` are setting names (``url=``, ``ca_certs=``, ``config=`` …) as the
    CLI parsed them; ``None`` means "flag not given". The result remembers
    where each value came from (:meth:`Settings.origin`). Bad values raise
    :class:`ConfigError` naming the setting and its source, never its value.
    """
    unknown = sorted(set(flags) - set(Settings.model_fields))
    if unknown:
        raise TypeError(f"load_settings() got unknown settings: {', '.join(unknown)}")
    given = {name: value for name, value in flags.items() if value is not None}
    from_env = EnvSettingsSource(Settings)()

    origins: dict[str, str] = {}
    merged: dict[str, Any] = {}
    for name, value in given.items():
        merged[name], origins[name] = value, "flag"
    for name, value in from_env.items():
        if name not in merged:
            merged[name], origins[name] = value, f"env {env_name(name)}"

    config_path = merged.get("config")
    path = Path(config_path) if config_path else find_config_file()
    if path is not None:
        label = file_label(path.resolve())
        for name, value in read_config_file(path, file_settings(Settings)).items():
            if name not in merged:
                merged[name], origins[name] = value, label

    if isinstance(merged.get("url"), str) and "@" in urlsplit(merged["url"]).netloc:
        userinfo = urlsplit(merged["url"]).netloc.rpartition("@")[0]
        origins.setdefault("username", f"{origins['url']} (userinfo)")
        if ":" in userinfo:
            origins.setdefault("password", f"{origins['url']} (userinfo)")

    try:
        settings = Settings(**merged)
    except ValidationError as exc:
        problems = "; ".join(
            f"{_where(error['loc'], origins)}: {error['msg']}" for error in exc.errors()
        )
        raise ConfigError(f"invalid configuration: {problems}") from None
    settings._origins = origins
    settings._config_file = str(path.resolve()) if path is not None else None
    return settings


def _where(loc: tuple[int | str, ...], origins: dict[str, str]) -> str:
    name = str(loc[0]) if loc else "settings"
    source = origins.get(name)
    return f"{name} ({source})" if source else name
