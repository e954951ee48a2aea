"""``mappings/chunks.json`` as a tantivy schema, and a chunk's ``_source`` as a tantivy document.

Rule: every field of the mapping becomes a tantivy field of the same name and
kind — ``keyword`` → raw (untokenised) text, fast; ``long``/``integer`` →
multi-valued i64, indexed and fast; ``date`` (``strict_date``) → the day's
number (days since 1970-01-01) as i64, indexed and fast — tantivy's own date
type stops at 1677–2262, OpenSearch's does not, and real text names years
like 4322; ``text`` → terms from the field's analyzer
(:mod:`osrag.engines.embedded.analyzers`), with frequencies and lengths for BM25.
Object properties become dotted fields (``span.start``); a ``keyword``
sub-field becomes ``breadcrumb.keyword``; ``enabled: false`` objects live in
``_source`` only. Two more fields: ``_id`` (the chunk id) and ``_source`` (the
whole document as JSON, returned by searches). A ``nested`` field (``facts``) is a
:class:`NestedSchema`: its objects are documents of a tantivy index of their own beside
the generation's (:mod:`~osrag.engines.embedded.nested`), each carrying its chunk's id
and ``_key``, with the same field kinds (``index: false`` properties are checked, not
indexed).

Invariant: a document the OpenSearch mapping would refuse is refused here too,
with the same kind of reason — ``dynamic: strict`` (an unknown field), a
``long`` with ``coerce: false`` that is not an integer, a date that is not
``YYYY-MM-DD``, an integer out of range, an object where a value belongs.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import pydantic_core
import tantivy

from osrag.engines.embedded.analyzers import Analyzer
from osrag.engines.mapping import chunk_index_body

Kind = Literal["keyword", "long", "integer", "date", "text"]

ID_FIELD = "_id"
SOURCE_FIELD = "_source"
KEY_FIELD = "_key"
"""A numeric handle on the chunk id (its first 8 bytes of SHA-256 as an i64), fast and
indexed: a page of hits reads its chunk ids from the ``_id`` column through it, with no
stored document opened (tantivy reads only numeric columns by address)."""
TERMS_TOKENIZER = "osrag_terms"
"""Text fields hold analysed terms joined by spaces; tantivy splits them on whitespace."""

_LONG = (-(2**63), 2**63 - 1)
_INTEGER_RANGE = (-(2**31), 2**31 - 1)
_STRICT_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class FieldSpec:
    name: str
    """The tantivy field (dotted for object properties and sub-fields)."""
    kind: Kind
    path: tuple[str, ...]
    """Where the value is in ``_source``."""
    coerce: bool = True
    ignore_above: int | None = None
    indexed: bool = True
    """False: ``index: false`` — checked as the mapping checks it, kept in ``_source`` only."""
    positions: bool = False
    """A text field indexed with term positions (phrase queries): the nested objects' text
    fields (short labels); the chunk's own text fields keep frequencies only."""


class Refused(ValueError):
    """The mapping refuses this document (the message is the reason, OpenSearch-style)."""


CHUNK_FIELD = "_chunk"
"""A nested object's chunk id (raw, fast): the term its chunk's objects are deleted by."""


@dataclass(frozen=True, eq=False)
class NestedSchema:
    """A ``nested`` field of the mapping: each of its objects is one document of the
    generation's sub-index for it, named by the full path of its fields (``facts.label``),
    with its chunk's ``_key`` and id (``_chunk``)."""

    path: str
    fields: dict[str, FieldSpec]
    """Every property and sub-field (``facts.label.raw``); ``FieldSpec.path`` is within
    one object."""
    declared: frozenset[str]
    """The object's properties (``dynamic: strict`` applies inside)."""

    def kind(self, field: str) -> Kind | None:
        spec = self.fields.get(field)
        return spec.kind if spec is not None and spec.indexed else None

    def tantivy_schema(self) -> tantivy.Schema:
        return _nested_tantivy_schema(self)

    def build_tantivy_schema(self) -> tantivy.Schema:
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field(KEY_FIELD, indexed=True, fast=True)
        builder.add_text_field(CHUNK_FIELD, stored=False, fast=True, tokenizer_name="raw")
        _add_fields(builder, self.fields.values())
        return builder.build()

    def field_names(self) -> list[str]:
        stored = {**_STORED, "text": "terms+positions"}
        return [f"{self.path}:nested"] + [
            f"{n}:{stored[s.kind]}" for n, s in self.fields.items() if s.indexed
        ]


_STORED = {"keyword": "raw", "long": "i64", "integer": "i64", "date": "i64-days"}


def _add_fields(builder: tantivy.SchemaBuilder, specs: Any) -> None:
    for spec in specs:
        if not spec.indexed:
            continue
        if spec.kind == "keyword":
            builder.add_text_field(spec.name, fast=True, tokenizer_name="raw")
        elif spec.kind in ("long", "integer"):
            builder.add_integer_field(spec.name, indexed=True, fast=True)
        elif spec.kind == "date":
            builder.add_integer_field(spec.name, indexed=True, fast=True)  # day numbers
        else:
            option = "position" if spec.positions else "freq"
            builder.add_text_field(spec.name, tokenizer_name=TERMS_TOKENIZER, index_option=option)


@cache
def _nested_tantivy_schema(schema: NestedSchema) -> tantivy.Schema:
    return schema.build_tantivy_schema()


@dataclass(frozen=True, eq=False)
class ChunkSchema:
    """The fields osrag's mapping declares, in tantivy terms."""

    fields: dict[str, FieldSpec]
    top_level: frozenset[str]
    objects: dict[str, frozenset[str]]
    """Object fields and their declared properties (``dynamic: strict`` applies inside)."""
    opaque: frozenset[str]
    """``enabled: false`` objects: stored in ``_source``, never indexed."""
    mapping_version: int
    nested: dict[str, NestedSchema]
    """``nested`` fields (``facts``), each a sub-index of its own."""

    def kind(self, field: str) -> Kind | None:
        spec = self.fields.get(field)
        return spec.kind if spec else None

    def tantivy_schema(self) -> tantivy.Schema:
        return _tantivy_schema(self)

    def build_tantivy_schema(self) -> tantivy.Schema:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field(ID_FIELD, stored=False, fast=True, tokenizer_name="raw")
        builder.add_integer_field(KEY_FIELD, indexed=True, fast=True)
        builder.add_bytes_field(SOURCE_FIELD, stored=True)
        _add_fields(builder, self.fields.values())
        return builder.build()

    def field_names(self) -> list[str]:
        """Every tantivy field with how it is stored (recorded with each generation)."""
        return sorted(
            [f"{ID_FIELD}:raw", f"{KEY_FIELD}:i64", f"{SOURCE_FIELD}:bytes"]
            + [f"{n}:{_STORED.get(s.kind, 'terms')}" for n, s in self.fields.items()]
            + [name for nested in self.nested.values() for name in nested.field_names()]
        )


@cache
def _tantivy_schema(schema: ChunkSchema) -> tantivy.Schema:
    return schema.build_tantivy_schema()


def chunk_key(chunk_id: str) -> int:
    """The ``_key`` of a chunk id (collisions are harmless: keys only narrow a lookup)."""
    return int.from_bytes(hashlib.sha256(chunk_id.encode()).digest()[:8], "big", signed=True)


def _kind(mapping: dict[str, Any], where: str) -> Kind:
    kind = mapping.get("type")
    if kind in ("keyword", "long", "integer", "date", "text"):
        return kind
    raise ValueError(f"the embedded index cannot mirror field {where} of type {kind!r}")


def _multi_fields(
    name: str, mapping: dict[str, Any], path: tuple[str, ...]
) -> dict[str, FieldSpec]:
    """The sub-fields of the field ``name`` (its mapping's ``fields``: the same value indexed
    once more, as a keyword beside a text), each read from the field's ``path``."""
    found: dict[str, FieldSpec] = {}
    for sub, sub_mapping in mapping.get("fields", {}).items():
        dotted = f"{name}.{sub}"
        found[dotted] = FieldSpec(
            dotted, _kind(sub_mapping, dotted), path, ignore_above=sub_mapping.get("ignore_above")
        )
    return found


def _nested(path: str, properties: dict[str, Any]) -> NestedSchema:
    fields: dict[str, FieldSpec] = {}
    for sub, mapping in properties.items():
        dotted = f"{path}.{sub}"
        kind = _kind(mapping, dotted)
        fields[dotted] = FieldSpec(
            dotted,
            kind,
            (sub,),
            coerce=mapping.get("coerce", True),
            indexed=mapping.get("index", True) is not False,
            positions=kind == "text",
        )
        fields.update(_multi_fields(dotted, mapping, (sub,)))
    return NestedSchema(path, fields, frozenset(properties))


@cache
def chunk_schema() -> ChunkSchema:
    """The schema of ``mappings/chunks.json`` (the single source of truth)."""
    mappings = chunk_index_body()["mappings"]
    fields: dict[str, FieldSpec] = {}
    objects: dict[str, frozenset[str]] = {}
    opaque: set[str] = set()
    nested: dict[str, NestedSchema] = {}
    for name, mapping in mappings["properties"].items():
        if mapping.get("type") == "nested":
            nested[name] = _nested(name, mapping["properties"])
            continue
        if "properties" in mapping:
            objects[name] = frozenset(mapping["properties"])
            for sub, sub_mapping in mapping["properties"].items():
                dotted = f"{name}.{sub}"
                fields[dotted] = FieldSpec(dotted, _kind(sub_mapping, dotted), (name, sub))
            continue
        if mapping.get("type") == "object" or mapping.get("enabled") is False:
            opaque.add(name)
            continue
        fields[name] = FieldSpec(
            name, _kind(mapping, name), (name,), coerce=mapping.get("coerce", True)
        )
        fields.update(_multi_fields(name, mapping, (name,)))
    return ChunkSchema(
        fields=fields,
        top_level=frozenset(mappings["properties"]),
        objects=objects,
        opaque=frozenset(opaque),
        mapping_version=int(mappings["_meta"]["osrag_mapping_version"]),
        nested=nested,
    )


# --------------------------------------------------------------------------- documents


def _values(value: Any) -> Iterator[Any]:
    """A field's values: arrays are flattened, nulls skipped (as OpenSearch does)."""
    if value is None:
        return
    if isinstance(value, list):
        for item in value:
            yield from _values(item)
    else:
        yield value


def _refuse(spec: FieldSpec, value: Any, why: str) -> Refused:
    shown = json.dumps(value, ensure_ascii=False, default=str)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return Refused(
        f"mapper_parsing_exception: failed to parse field [{spec.name}] of type "
        f"[{spec.kind}] ({why}: {shown})"
    )


def _integer(spec: FieldSpec, value: Any, bounds: tuple[int, int]) -> int:
    if isinstance(value, bool | dict):
        raise _refuse(spec, value, "not a number")
    number: int
    if isinstance(value, int):
        number = value
    elif not spec.coerce:
        raise _refuse(spec, value, "not an integer, and coerce is false")
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        number = int(value.strip())
    else:
        raise _refuse(spec, value, "not an integer")
    if not bounds[0] <= number <= bounds[1]:
        raise _refuse(spec, value, "out of range")
    return number


EPOCH = dt.date(1970, 1, 1)


def day_number(day: dt.date) -> int:
    """Days since 1970-01-01: how the embedded index stores and compares a ``date``."""
    return (day - EPOCH).days


def _date(spec: FieldSpec, value: Any) -> int:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return day_number(value)
    if isinstance(value, str) and _STRICT_DATE.fullmatch(value):
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            raise _refuse(spec, value, "not a calendar day") from None
        return day_number(day)
    raise _refuse(spec, value, "expected strict_date YYYY-MM-DD")


def _string(spec: FieldSpec, value: Any) -> str:
    if isinstance(value, dict):
        raise _refuse(spec, value, "an object where a value belongs")
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _lookup(source: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = source
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def check_strict(schema: ChunkSchema, source: dict[str, Any]) -> None:
    """``dynamic: strict``: refuse a field the mapping does not declare."""
    for name, value in source.items():
        if name not in schema.top_level:
            raise Refused(
                "strict_dynamic_mapping_exception: mapping set to strict, dynamic "
                f"introduction of [{name}] within [_doc] is not allowed"
            )
        if name in schema.objects and value is not None:
            if not isinstance(value, dict):
                raise Refused(
                    f"mapper_parsing_exception: object mapping for [{name}] tried to parse "
                    "field as object, but found a concrete value"
                )
            for sub in value:
                if sub not in schema.objects[name]:
                    raise Refused(
                        "strict_dynamic_mapping_exception: mapping set to strict, dynamic "
                        f"introduction of [{sub}] within [{name}] is not allowed"
                    )


def to_document(
    schema: ChunkSchema, chunk_id: str, source: dict[str, Any], analyzer: Analyzer
) -> tantivy.Document:
    """The tantivy document for one chunk's ``_source``; :class:`Refused` if the mapping would."""
    if not source.keys() <= schema.top_level or any(
        name in source and source[name] is not None for name in schema.objects
    ):
        check_strict(schema, source)
    values: dict[str, Any] = {ID_FIELD: chunk_id, KEY_FIELD: chunk_key(chunk_id)}
    texts: dict[str, list[str]] = {}
    _collect(schema.fields.values(), source, values, texts)
    for name, joined in _text_terms(texts, analyzer).items():
        if joined:
            values[name] = joined
    try:
        values[SOURCE_FIELD] = pydantic_core.to_json(source)
        return tantivy.Document.from_dict(values, schema.tantivy_schema())
    except (ValueError, OverflowError, TypeError, pydantic_core.PydanticSerializationError) as exc:
        raise Refused(f"mapper_parsing_exception: {exc}") from None


def _all(raw: list[Any], kind: type) -> bool:
    return all(type(v) is kind for v in raw)


def _collect(
    specs: Iterable[FieldSpec],
    source: dict[str, Any],
    values: dict[str, Any],
    texts: dict[str, list[str]],
) -> None:
    """Each indexed field's values, checked as the mapping checks them (fast paths first);
    a field that is not indexed is checked, and left out."""
    for spec in specs:
        path = spec.path
        raw = source.get(path[0]) if len(path) == 1 else _lookup(source, path)
        if raw is None or raw == []:
            continue
        if not spec.indexed:
            _check(spec, raw)
            continue
        kind = spec.kind
        if kind == "keyword":
            if type(raw) is str:
                found = [raw]
            elif type(raw) is list and _all(raw, str):
                found = raw
            else:
                found = [_string(spec, v) for v in _values(raw)]
            limit = spec.ignore_above
            if limit is not None:
                found = [v for v in found if len(v) <= limit]
            if found:
                values[spec.name] = found
        elif kind == "long" or kind == "integer":
            low, high = _LONG if kind == "long" else _INTEGER_RANGE
            if type(raw) is list and _all(raw, int) and low <= min(raw) and max(raw) <= high:
                values[spec.name] = raw
            elif type(raw) is int and low <= raw <= high:
                values[spec.name] = [raw]
            else:
                values[spec.name] = [_integer(spec, v, (low, high)) for v in _values(raw)]
        elif kind == "date":
            values[spec.name] = [_date(spec, v) for v in _values(raw)]
        elif type(raw) is str:
            texts[spec.name] = [raw]
        else:
            texts[spec.name] = [v if type(v) is str else _string(spec, v) for v in _values(raw)]


def _check(spec: FieldSpec, raw: Any) -> None:
    """A value of a field that is not indexed, checked as the mapping would."""
    for value in _values(raw):
        if spec.kind in ("long", "integer"):
            _integer(spec, value, _LONG if spec.kind == "long" else _INTEGER_RANGE)
        elif spec.kind == "date":
            _date(spec, value)
        else:
            _string(spec, value)


def nested_documents(
    schema: ChunkSchema, chunk_id: str, source: dict[str, Any], analyzer: Analyzer
) -> dict[str, list[tantivy.Document]]:
    """The documents of each nested field's sub-index for one chunk's ``_source`` (one
    per object, each with the chunk's ``_key`` and id); :class:`Refused` if the mapping
    would refuse an object (not an object, a property it does not declare, a bad value)."""
    out: dict[str, list[tantivy.Document]] = {}
    key = chunk_key(chunk_id)
    for path, nested in schema.nested.items():
        docs: list[tantivy.Document] = []
        for item in _values(source.get(path)):
            if not isinstance(item, dict):
                raise Refused(
                    f"mapper_parsing_exception: object mapping for [{path}] tried to parse "
                    "field as object, but found a concrete value"
                )
            unknown = set(item) - nested.declared
            if unknown:
                raise Refused(
                    "strict_dynamic_mapping_exception: mapping set to strict, dynamic "
                    f"introduction of [{sorted(unknown)[0]}] within [{path}] is not allowed"
                )
            values: dict[str, Any] = {KEY_FIELD: key, CHUNK_FIELD: chunk_id}
            texts: dict[str, list[str]] = {}
            _collect(nested.fields.values(), item, values, texts)
            for name, texts_of in texts.items():
                joined = " ".join(filter(None, map(analyzer.indexed, texts_of)))
                if joined:
                    values[name] = joined
            try:
                docs.append(tantivy.Document.from_dict(values, nested.tantivy_schema()))
            except (ValueError, OverflowError, TypeError) as exc:
                raise Refused(f"mapper_parsing_exception: {exc}") from None
        out[path] = docs
    return out


def _text_terms(texts: dict[str, list[str]], analyzer: Analyzer) -> dict[str, str]:
    """Analysed terms per text field. ``text`` is ``breadcrumb + "\\n" + body`` (a token
    never spans a line break), so its terms are theirs joined: analysed once, not twice."""
    terms: dict[str, str] = {}
    for name in sorted(texts, key=lambda n: n == "text"):  # ``text`` last
        values = texts[name]
        crumb, body = terms.get("breadcrumb"), terms.get("body")
        composed = (
            name == "text"
            and crumb is not None
            and body is not None
            and len(texts["breadcrumb"]) == len(texts["body"]) == 1
            and values == [f"{texts['breadcrumb'][0]}\n{texts['body'][0]}"]
        )
        if composed:
            terms[name] = " ".join(filter(None, (crumb, body)))
        else:
            terms[name] = " ".join(filter(None, map(analyzer.indexed, values)))
    return terms
