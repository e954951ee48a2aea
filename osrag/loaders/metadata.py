"""Front matter, ``.jsonl`` fields and file properties → a document's metadata, failing closed.

Rule:

- ``id`` (or ``_id``), ``title``, ``category``, ``tenant``, ``acl`` (a list; a
  string is one entry), ``effective_from``, ``superseded_on`` are the document's
  fields; every other key is kept under ``meta``.
- **Access keys fail closed.** A key that is ``tenant`` or ``acl`` in another case
  or with surrounding spaces (``Tenant``, ``TENANT``, ``ACL``, ``" acl "``) *is*
  that key. A key that looks like an access key but is not one (``acls``,
  ``tenants``, ``tenant_id``, ``groups``, ``allowed_groups``, ``access``,
  ``permissions``, ``readers``, ``visibility``, …) is an error naming the key
  and its line: kept under ``meta`` it would let the document go in public by a
  typo. Two keys that are the same access key (``tenant`` and ``Tenant``) are an
  error too.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

__all__ = ["ACCESS_KEYS", "MetadataError", "access_like", "key_line", "metadata"]

ACCESS_KEYS = ("tenant", "acl")
METADATA_KEYS = ("category", "tenant", "acl", "effective_from", "superseded_on")

_ACCESS_WORDS = frozenset(
    {
        "tenant",
        "tenants",
        "acl",
        "acls",
        "group",
        "groups",
        "access",
        "permission",
        "permissions",
        "readers",
        "visibility",
    }
)
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


class MetadataError(ValueError):
    """A metadata value or key that cannot be accepted; ``key`` names it (for its line)."""

    def __init__(self, reason: str, key: str | None = None) -> None:
        super().__init__(reason)
        self.key = key


def access_like(key: str) -> bool:
    """Whether ``key`` reads as an access key without being exactly ``tenant`` or ``acl``
    (its words, split at ``_``, ``-``, spaces and camelCase, include one of the access
    words, or the key starts or ends with ``tenant`` / ``acl``)."""
    lowered = _CAMEL.sub(r"\1 \2", key).lower()
    words = _WORD.findall(lowered)
    if any(word in _ACCESS_WORDS for word in words):
        return True
    joined = "".join(words)
    return joined.startswith(("tenant", "acl")) or joined.endswith(("tenant", "acl", "acls"))


def fold_access_keys(fields: dict[Any, Any]) -> dict[Any, Any]:
    """``fields`` with every variant of an access key renamed to it (see the module rule)."""
    folded: dict[Any, Any] = {}
    origin: dict[str, str] = {}
    for key, value in fields.items():
        name = str(key)
        canonical = name.strip().casefold()
        if canonical in ACCESS_KEYS:
            if canonical in origin:
                raise MetadataError(
                    f"keys {origin[canonical]!r} and {name!r} both set {canonical!r}", name
                )
            origin[canonical] = name
            folded[canonical] = value
        elif access_like(name):
            raise MetadataError(
                f"{name!r} looks like an access key but is not one (the access keys are "
                "'tenant' and 'acl'): rename it, or the document would go in without its access",
                name,
            )
        else:
            folded[key] = value
    return folded


def key_line(text: str, end: int, key: str | None) -> int:
    """The line (1-based) of the front-matter key ``key`` in ``text[:end]`` (1 if not found)."""
    if key:
        pattern = r"^['\"]?[ \t]*" + re.escape(key.strip()) + r"[ \t]*['\"]?[ \t]*:"
        m = re.compile(pattern, re.M).search(text, 0, end)
        if m is not None:
            return text.count("\n", 0, m.start()) + 1
    return 1


def metadata(fields: dict[Any, Any]) -> tuple[str | None, str | None, dict[str, Any]]:
    """``(id, title, metadata)`` from front matter, a ``.jsonl`` record or file properties."""
    fields = fold_access_keys(fields)
    doc_id = fields.get("id", fields.get("_id"))
    title = fields.get("title")
    if doc_id is not None and not isinstance(doc_id, (str, int)):
        raise MetadataError("'id' must be a string or a number", "id")
    found: dict[str, Any] = {}
    skip = {"id", "_id", "title", "text", *METADATA_KEYS}
    if title is not None and not isinstance(title, (str, int, float)):
        # e.g. a template's ``title: {PAGE TITLE}`` (YAML reads a mapping): not a
        # title, but not worth losing the document over; kept under ``meta``
        title = None
        skip.discard("title")
    for key in ("category", "tenant"):
        value = fields.get(key)
        if value is not None:
            if not isinstance(value, (str, int)):
                raise MetadataError(f"{key!r} must be a string", key)
            found[key] = str(value)
    acl = fields.get("acl")
    if acl is not None:
        if isinstance(acl, str):
            acl = [acl]
        if not isinstance(acl, list) or not all(isinstance(x, (str, int)) for x in acl):
            raise MetadataError("'acl' must be a list of strings", "acl")
        found["acl"] = [str(x) for x in acl]
    for key in ("effective_from", "superseded_on"):
        value = fields.get(key)
        if value is not None:
            found[key] = _date(value, key)
    found["meta"] = {k: _plain(v) for k, v in fields.items() if k not in skip}
    return (
        None if doc_id is None else str(doc_id),
        None if title is None else str(title),
        found,
    )


def _date(value: Any, key: str) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise MetadataError(f"{key!r} must be a date (YYYY-MM-DD), got {value!r}", key)


def _plain(value: Any) -> Any:
    """YAML values as JSON-friendly values (dates become ISO strings)."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
