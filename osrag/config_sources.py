"""Where settings come from besides flags: environment names, the configuration file, Cloud IDs.

:func:`find_config_file` finds the file, :func:`read_config_file` reads it
(an ``osrag.toml`` or a ``pyproject.toml``'s ``[tool.osrag]`` table) and
:class:`ConfigFileSource` hands it to pydantic-settings; :func:`cloud_url` turns
an Elastic Cloud ID into the URL it names. The rule that orders the sources is
in :mod:`osrag.config`.
"""

from __future__ import annotations

import binascii
import tomllib
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from osrag.errors import ConfigError
from osrag.lexicon.profiles import toml_document

ENV_PREFIX = "OSRAG_"
CONFIG_FILE_NAME = "osrag.toml"
#: Settings that are filesystem paths (resolved against the config file's folder).
PATH_FIELDS = frozenset(
    {"config", "password_file", "api_key_file", "ca_certs", "client_cert", "client_key", "home"}
)


def env_name(field: str) -> str:
    """The environment variable that sets ``field`` (``ca_certs`` → ``OSRAG_CA_CERTS``)."""
    return f"{ENV_PREFIX}{field.upper()}"


def file_settings(settings_cls: type[BaseSettings]) -> frozenset[str]:
    """The settings a configuration file may set: all but ``config`` (the file itself)."""
    return frozenset(settings_cls.model_fields) - {"config"}


# --------------------------------------------------------------------- Elastic Cloud


def cloud_url(cloud_id: str) -> str:
    """The Elasticsearch URL an Elastic Cloud ID names.

    A Cloud ID is ``<label>:<base64 of host$es-uuid$kibana-uuid>``, the host
    optionally with ``:port`` (default 443); the cluster is
    ``https://<es-uuid>.<host>:<port>``. elastic_transport has the same parser
    (``client_utils.parse_cloud_id``), but it is installed only with the
    elasticsearch extra, and settings must be validated (``osrag config show``)
    without it; ``tests/secure`` checks both agree.
    """
    _, _, encoded = cloud_id.partition(":")
    try:
        parts = binascii.a2b_base64(encoded.encode("ascii")).decode("ascii").split("$")
    except (binascii.Error, UnicodeError):
        parts = []
    host, has_port, port = parts[0].rpartition(":") if parts else ("", "", "")
    if not has_port:
        host, port = port, "443"
    if len(parts) < 2 or not host or not parts[1] or not port.isdigit():
        raise ConfigError(
            f"{env_name('cloud_id')} is not an Elastic Cloud ID (expected <name>:<base64>, "
            "as shown on the deployment's page)"
        )
    return f"https://{parts[1]}.{host}:{int(port)}"


# --------------------------------------------------------------------- the file


def find_config_file(start: Path | None = None) -> Path | None:
    """The nearest ``osrag.toml``, or ``pyproject.toml`` with ``[tool.osrag]``, upwards."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE_NAME
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and _has_osrag_table(pyproject):
            return pyproject
    return None


def _has_osrag_table(pyproject: Path) -> bool:
    try:
        document = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False  # someone else's broken pyproject.toml is not ours to report
    return isinstance(document.get("tool"), dict) and "osrag" in document["tool"]


def file_label(path: Path) -> str:
    """How a file source is named in ``config show``."""
    return f"file {path} (tool.osrag)" if path.name == "pyproject.toml" else f"file {path}"


def read_config_file(path: Path, known: frozenset[str]) -> dict[str, Any]:
    """The settings in ``path`` (an ``osrag.toml``, or a ``pyproject.toml``'s ``[tool.osrag]``).

    Unknown keys, invalid TOML and a missing file are :class:`ConfigError` naming
    the file; relative paths are resolved against the file's folder. ``known`` are the
    setting names a file may set.
    """
    document = toml_document(path, f"configuration file {path}")
    is_pyproject = path.name == "pyproject.toml"
    where = f"{path} (tool.osrag)" if is_pyproject else str(path)
    if is_pyproject:
        table = document.get("tool", {}).get("osrag")
        if not isinstance(table, dict):
            raise ConfigError(f"{path} has no tool.osrag table")
        document = table

    unknown = sorted(set(document) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown setting {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(sorted(known))})"
        )
    if is_pyproject:
        for secret, instead in (("password", "password_file"), ("api_key", "api_key_file")):
            if secret in document:
                raise ConfigError(
                    f"{where}: a{'n' if secret[0] == 'a' else ''} {secret} in pyproject.toml "
                    f"would be committed with the project; use {instead} or "
                    f"{env_name(secret)} instead"
                )
    values = dict(document)
    for name in PATH_FIELDS & set(values):
        if isinstance(values[name], str):
            values[name] = _relative_to(path, values[name])
    if isinstance(values.get("profiles"), list):  # a profile file, or a profile's table
        values["profiles"] = [
            _relative_to(path, item) if isinstance(item, str) else item
            for item in values["profiles"]
        ]
    return values


def _relative_to(config: Path, value: str) -> Path:
    """``value`` as a path, resolved against the configuration file's folder."""
    candidate = Path(value).expanduser()
    return candidate if candidate.is_absolute() else config.parent / candidate


class ConfigFileSource(PydanticBaseSettingsSource):
    """pydantic-settings source for the configuration file (lowest before defaults).

    The file is ``path`` if given, else the ``config`` setting chosen by a
    higher source (flag or ``OSRAG_CONFIG``), else :func:`find_config_file`.
    """

    def __init__(self, settings_cls: type[BaseSettings], path: Path | None = None) -> None:
        super().__init__(settings_cls)
        self.path = path

    def resolve_path(self) -> Path | None:
        chosen = self.path or self.current_state.get("config")
        return Path(chosen) if chosen else find_config_file()

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        # Unused: __call__ returns the whole table at once.
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = self.resolve_path()
        return read_config_file(path, file_settings(self.settings_cls)) if path else {}
