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
- **Access values fail closed.** A tenant is a non-blank string and an ACL a
  non-empty list of non-blank strings, each stripped of surrounding spaces. An
  access key given with nothing (``tenant:``, ``tenant: ''``, ``acl: []``,
  ``acl:``, ``acl: [' ']``) is an error: an empty tenant would make the document
  public, an empty ACL would show it to every member of its tenant. A value that
  is not a string (``tenant: yes`` is YAML's ``true``, ``acl: [1001]``) is an
  error: quote it.
- **Date keys get the same care**, because a document whose date key is lost shows
  in every as-of search. A key with the words of ``effective_from`` or
  ``superseded_on`` in another case or spelling (``Effective_From``,
  ``effectiveFrom``, ``superseded-on``) *is* that key; a near miss
  (``effective_date``, ``effective``, ``superseded``, ``efective_from`` — a key
  whose first word is ``effective`` or ``superseded``/``supersede``, or that is
  spelt within a few letters of one) is an error that names the key it resembles;
  an empty date is an error.
- **Other values** are kept as they are, as plain JSON-like values, within bounds:
  at most :data:`MAX_DEPTH` levels of nesting and :data:`MAX_VALUES` values in
  all (YAML aliases can make a few lines expand to billions: ``a: &a [*a]`` contains
  itself), else an error naming the key.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from typing import Any

__all__ = [
    "ACCESS_KEYS",
    "DATE_KEYS",
    "MAX_DEPTH",
    "MAX_VALUES",
    "MetadataError",
    "access_like",
    "date_key",
    "key_line",
    "metadata",
    "property_key",
]

ACCESS_KEYS = ("tenant", "acl")
DATE_KEYS = ("effective_from", "superseded_on")
METADATA_KEYS = ("category", "tenant", "acl", "effective_from", "superseded_on")
MAX_DEPTH = 32
"""Levels of nesting a metadata value may have."""
MAX_VALUES = 10_000
"""Values (scalars, lists and mappings, aliases counted each time they are used) the
metadata of one document may hold."""
_DATE_FIRST_WORDS = frozenset({"effective", "superseded", "supersede"})

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
_KEY_WORD = re.compile(r"[a-z0-9]+")


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
    words = _KEY_WORD.findall(lowered)
    if any(word in _ACCESS_WORDS for word in words):
        return True
    joined = "".join(words)
    return joined.startswith(("tenant", "acl")) or joined.endswith(("tenant", "acl", "acls"))


def _words(key: str) -> list[str]:
    return _KEY_WORD.findall(_CAMEL.sub(r"\1 \2", key).lower())


def date_key(key: str) -> tuple[str | None, str | None]:
    """``(the date key that key is, the date key it nearly is)``: ``("effective_from", None)``
    for ``Effective_From`` or ``effectiveFrom``, ``(None, "effective_from")`` for
    ``effective_date``, ``(None, None)`` for an unrelated key (see the module rule)."""
    words = _words(key)
    joined = "_".join(words)
    if joined in DATE_KEYS:
        return joined, None
    if words and words[0] in _DATE_FIRST_WORDS:
        return None, DATE_KEYS[0] if words[0] == "effective" else DATE_KEYS[1]
    close = difflib.get_close_matches(joined, DATE_KEYS, n=1, cutoff=0.8)
    return None, close[0] if close else None


def property_key(name: str, value: str) -> str | None:
    """The key a file property (a DOCX custom property, an HTML ``<meta name>``) named
    ``name`` is read under, or None when it is not metadata. A metadata key in any case is
    that key; a name that looks like an access or a date key is read as it is written, to
    be refused or folded as in front matter. An empty value is read only for the access
    and date keys (and is then refused): for the others it means no value."""
    name = name.strip()
    lowered = name.lower()
    if lowered in ("id", "title", *METADATA_KEYS):
        key = lowered
    elif access_like(name) or any(date_key(name)):
        key = name
    else:
        return None
    if value or key not in ("id", "title", "category"):
        return key
    return None


def fold_keys(fields: dict[Any, Any]) -> dict[Any, Any]:
    """``fields`` with every variant of an access or date key renamed to it, and near misses
    refused (see the module rule)."""
    folded: dict[Any, Any] = {}
    origin: dict[str, str] = {}
    for key, value in fields.items():
        name = str(key)
        canonical = name.strip().casefold()
        if canonical not in ACCESS_KEYS:
            if access_like(name):
                raise MetadataError(
                    f"{name!r} looks like an access key but is not one (the access keys are "
                    "'tenant' and 'acl'): rename it, or the document would go in without its "
                    "access",
                    name,
                )
            date, near = date_key(name)
            if near is not None:
                raise MetadataError(
                    f"{name!r} looks like a date key but is not one: did you mean {near!r}? "
                    "(the date keys are 'effective_from' and 'superseded_on'; kept as plain "
                    "metadata it would show the document in every as-of search)",
                    name,
                )
            if date is None:
                folded[key] = value
                continue
            canonical = date
        if canonical in origin:
            raise MetadataError(
                f"keys {origin[canonical]!r} and {name!r} both set {canonical!r}", name
            )
        origin[canonical] = name
        folded[canonical] = value
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
    fields = fold_keys(fields)
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
    category = fields.get("category")
    if category is not None:
        if isinstance(category, bool) or not isinstance(category, (str, int)):
            raise MetadataError("'category' must be a string", "category")
        found["category"] = str(category)
    if "tenant" in fields:
        found["tenant"] = _tenant(fields["tenant"])
    if "acl" in fields:
        found["acl"] = _acl(fields["acl"])
    for key in DATE_KEYS:
        if key in fields:
            found[key] = _date(fields[key], key)
    budget = [MAX_VALUES]
    found["meta"] = {
        str(k): _plain(v, str(k), budget, 0, set()) for k, v in fields.items() if k not in skip
    }
    return (
        None if doc_id is None else str(doc_id),
        None if title is None else str(title),
        found,
    )


_EMPTY_TENANT = "an empty tenant would make the document public"
_EMPTY_ACL = "an empty ACL would show the document to every member of its tenant"


def _access_text(value: Any, key: str, why: str) -> str:
    """One access value: a non-blank string, stripped."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise MetadataError(f"{key!r} is empty ({why}): give a value, or remove the key", key)
    if not isinstance(value, str):
        shown = (
            {True: "true", False: "false"}.get(value, repr(value))
            if isinstance(value, bool)
            else repr(value)
        )
        raise MetadataError(
            f"{key!r} must be text, not {type(value).__name__} {shown} (YAML reads yes, no, "
            f"on, off, numbers and dates as such): quote it ({key}: '…')",
            key,
        )
    return value.strip()


def _tenant(value: Any) -> str:
    return _access_text(value, "tenant", _EMPTY_TENANT)


def _acl(value: Any) -> list[str]:
    if isinstance(value, str) or value is None:
        value = [value]
    if not isinstance(value, list):
        raise MetadataError(f"'acl' must be a list of strings, not {type(value).__name__}", "acl")
    if not value:
        raise MetadataError(
            f"'acl' is empty ({_EMPTY_ACL}): give its groups, or remove the key", "acl"
        )
    return [_access_text(item, "acl", _EMPTY_ACL) for item in value]


def _date(value: Any, key: str) -> dt.date:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise MetadataError(f"{key!r} is empty: give a date (YYYY-MM-DD), or remove the key", key)
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


def _plain(value: Any, key: str, budget: list[int], depth: int, path: set[int]) -> Any:
    """A YAML or JSON value as a JSON-friendly value (dates become ISO strings), within
    :data:`MAX_DEPTH` levels and the document's remaining ``budget`` of values; ``path``
    holds the containers being walked (a value met again inside itself is a cycle)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise MetadataError(
            f"the metadata holds more than {MAX_VALUES:,} values (at {key!r}; YAML aliases "
            "expanding?)",
            key,
        )
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            str(value)  # a number too long to write (beyond Python's digit limit) cannot be sent
        except ValueError:
            raise MetadataError(
                f"{key!r} is a number too long to store ({value.bit_length():,} bits): "
                "quote it to keep it as text",
                key,
            ) from None
        return value
    if not isinstance(value, (dict, list, tuple)):
        return value
    if depth >= MAX_DEPTH:
        raise MetadataError(f"{key!r} is nested deeper than {MAX_DEPTH} levels", key)
    if id(value) in path:
        raise MetadataError(f"{key!r} contains itself (a YAML alias inside its own anchor)", key)
    path.add(id(value))
    try:
        if isinstance(value, dict):
            return {str(k): _plain(v, key, budget, depth + 1, path) for k, v in value.items()}
        return [_plain(v, key, budget, depth + 1, path) for v in value]
    finally:
        path.discard(id(value))
