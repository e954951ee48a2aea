"""Query sets and judgments, read the way the tools a search team already uses read them.

Query sets (the format is told from the content):

* **JSON Lines** — one object a line: ``{"id", "query", "relevant"}``; ``relevant`` is
  a list of document ids (grade 1) or an object of grades; optional ``tenant``,
  ``acl``, ``note``, and the holder gold of quantity precision: ``holders`` (the
  documents that hold the asked quantity meeting the constraint) and ``unjudged`` (the
  documents the gold cannot judge), lists of document ids
  (:mod:`osrag.evaluation.quantity`). BEIR's ``queries.jsonl`` (``{"_id", "text"}``) is
  the same format without ``relevant``: its judgments come from a qrels file, and
  without one it is an error, never "0 judged queries".
* **TREC topics** — ``<top> <num> Number: 401 <title> … <desc> Description: …
  <narr> Narrative: … </top>``, tags closed or not (as NIST distributes them, and as
  Anserini reads them). The query text is the title (default), the description, or
  both (``title+description``); runs of white space become one space.

Qrels:

* **TREC** — ``qid iter docno rel``, four columns separated by white space. The second
  column is ignored, as trec_eval ignores it; ``rel`` is an integer, relevant when > 0
  (negative grades are allowed and are not relevant).
* **BEIR** — ``qrels/*.tsv`` with a header naming ``query-id``, ``corpus-id`` and
  ``score`` (other columns are ignored, e.g. Cranfield's ``cleverdon_code``); three
  columns without a header are read as ``query-id corpus-id score``.

Holders files (``--holders``) are qrels in either format: grade > 0 holds the quantity,
0 does not, < 0 cannot be judged; a query absent from the file has no holder gold.

Rules: a line repeated exactly is counted and reported; the same (query, document)
judged twice with different grades is an error naming both lines (trec_eval would
keep one of them silently). Every error names the file and the line.

Read here rather than with a library: ``pytrec_eval.parse_qrel`` reads TREC qrels but
brings numpy and scipy (a development dependency here) and cannot say which line is
wrong; ir_datasets reads topics but brings its whole dataset machinery. The formats
are the few rules above.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from osrag.errors import ConfigError, InputError

QrelsFormat = Literal["auto", "trec", "beir"]
TopicField = Literal["title", "description", "title+description"]
TOPIC_FIELDS: tuple[str, ...] = ("title", "description", "title+description")

Grades = dict[str, int]
"""Document id → grade (> 0 is relevant)."""


class LabelledQuery(BaseModel):
    id: str
    query: str
    relevant: Grades = Field(default_factory=dict)
    """Document id → grade (> 0 is relevant)."""
    tenant: str | None = None
    acl: list[str] | None = None
    note: str | None = None
    holders: list[str] | None = None
    """The documents holding the asked quantity meeting the constraint (None: no gold)."""
    unjudged: list[str] = Field(default_factory=list)
    """Documents the holder gold cannot judge: left out of quantity precision."""

    @property
    def judged(self) -> bool:
        """At least one relevant document: the query counts in the means."""
        return any(grade > 0 for grade in self.relevant.values())


@dataclass
class Qrels:
    """A qrels file as read: judgments per query, and what was noticed on the way."""

    path: str
    format: Literal["trec", "beir"]
    judgments: dict[str, Grades]
    lines: int = 0
    repeated_lines: int = 0

    def documents(self) -> set[str]:
        return {doc for grades in self.judgments.values() for doc in grades}


@dataclass
class QuerySet:
    """Queries with their judgments, and warnings with counts (never a silent zero)."""

    path: str
    format: Literal["jsonl", "beir", "trec-topics"]
    queries: list[LabelledQuery]
    qrels: Qrels | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def judged(self) -> list[LabelledQuery]:
        return [q for q in self.queries if q.judged]


# --------------------------------------------------------------------------- qrels

_HEADER_NAMES = {
    "query": ("query-id", "query_id", "qid", "topic", "query"),
    "doc": ("corpus-id", "corpus_id", "doc-id", "doc_id", "docid", "docno"),
    "grade": ("score", "rel", "relevance", "grade", "label"),
}
_GRADE = re.compile(r"[+-]?\d+")


def _is_header(parts: list[str]) -> bool:
    names = {name for names in _HEADER_NAMES.values() for name in names}
    return any(part.lower() in names for part in parts)


def _header_columns(parts: list[str], where: str) -> tuple[int, int, int]:
    lowered = [p.lower() for p in parts]
    found: list[int] = []
    for role, names in _HEADER_NAMES.items():
        index = next((i for i, name in enumerate(lowered) if name in names), None)
        if index is None:
            raise InputError(
                f"{where}: the header {' '.join(parts)!r} names no {role} column "
                f"(one of {', '.join(names)})"
            )
        found.append(index)
    query, doc, grade = found
    return query, doc, grade


def load_qrels(path: Path, fmt: QrelsFormat = "auto") -> Qrels:
    """Read TREC or BEIR qrels (see the module docstring)."""
    if fmt not in ("auto", "trec", "beir"):
        raise ConfigError(f"qrels format {fmt!r}: expected auto, trec or beir")
    lines = numbered_lines(path)
    judgments: dict[str, Grades] = {}
    first_line: dict[tuple[str, str], int] = {}
    columns: tuple[int, int, int] | None = None
    kind: Literal["trec", "beir"] | None = None if fmt == "auto" else fmt
    count = repeated = 0
    for line_no, line in lines:
        parts = line.split()
        if not parts:
            continue
        where = f"{path}:{line_no}"
        if count == 0 and columns is None and kind != "trec" and _is_header(parts):
            columns, kind = _header_columns(parts, where), "beir"
            continue
        if columns is None:
            if kind is None:
                kind = "trec" if len(parts) == 4 else "beir"
            width = 4 if kind == "trec" else 3
            if len(parts) != width:
                expected = "qid iter docno rel" if kind == "trec" else "query-id corpus-id score"
                raise InputError(
                    f"{where}: expected {width} columns ({expected}), found {len(parts)}"
                    + (" — the qrels file mixes column counts" if count else "")
                )
            query, doc, grade_text = (
                (parts[0], parts[2], parts[3]) if kind == "trec" else (parts[0], parts[1], parts[2])
            )
        else:
            if len(parts) <= max(columns):
                wanted = max(columns) + 1
                raise InputError(f"{where}: expected {wanted} columns, found {len(parts)}")
            query, doc, grade_text = (parts[i] for i in columns)
        if not _GRADE.fullmatch(grade_text):
            raise InputError(f"{where}: the grade {grade_text!r} is not an integer")
        grade = int(grade_text)
        count += 1
        grades = judgments.setdefault(query, {})
        key = (query, doc)
        if key in first_line:
            if grades[doc] != grade:
                raise InputError(
                    f"{where}: query {query!r} judges document {doc!r} {grade}, but line "
                    f"{first_line[key]} judged it {grades[doc]}"
                )
            repeated += 1
            continue
        first_line[key] = line_no
        grades[doc] = grade
    if not judgments:
        raise InputError(f"{path}: no judgments")
    return Qrels(str(path), kind or "trec", judgments, count, repeated)


def read_qrels(path: Path, fmt: QrelsFormat = "auto") -> dict[str, Grades]:
    """Query id → document id → grade (see :func:`load_qrels`)."""
    return load_qrels(path, fmt).judgments


def numbered_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of a UTF-8 text file (a BOM dropped), numbered from 1; a clear error naming
    the file when it is missing or unreadable."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read ({exc})") from None
    return list(enumerate(text.splitlines(), 1))


def json_objects(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Each non-blank line of a JSON Lines file as an object, with its line number and
    ``path:line`` (a line that is not a JSON object is an :class:`InputError` naming it)."""
    for line_no, line in numbered_lines(path):
        if not line.strip():
            continue
        where = f"{path}:{line_no}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise InputError(f"{where}: each line must be a JSON object")
        yield line_no, where, record


# --------------------------------------------------------------------------- TREC topics

_TOP = re.compile(r"<top>(.*?)(?:</top>|(?=<top>)|\Z)", re.S | re.I)
_TAG = re.compile(r"<(/?)(num|title|desc|narr)>", re.I)
_FIELD_PREFIXES = {
    "num": re.compile(r"^\s*number\s*:\s*", re.I),
    "title": re.compile(r"^\s*topic\s*:\s*", re.I),
    "desc": re.compile(r"^\s*description\s*:\s*", re.I),
    "narr": re.compile(r"^\s*narrative\s*:\s*", re.I),
}


def parse_topics(text: str, source: str = "topics") -> list[tuple[int, dict[str, str]]]:
    """``(line of <top>, {"num", "title", "desc", "narr"})`` for every ``<top>`` block.

    A field runs from its tag to the next tag (opening or closing); prefixes such as
    ``Number:`` and ``Description:`` are removed and white space is collapsed.
    """
    topics: list[tuple[int, dict[str, str]]] = []
    for block in _TOP.finditer(text):
        line = text.count("\n", 0, block.start()) + 1
        body = block.group(1)
        fields: dict[str, str] = {}
        tags = list(_TAG.finditer(body))
        for i, tag in enumerate(tags):
            if tag.group(1):  # a closing tag ends a field, it starts none
                continue
            end = tags[i + 1].start() if i + 1 < len(tags) else len(body)
            name = tag.group(2).lower()
            value = _FIELD_PREFIXES[name].sub("", body[tag.end() : end])
            fields[name] = " ".join(value.split())
        if "num" not in fields or not fields["num"]:
            raise InputError(f"{source}:{line}: a <top> without a <num>")
        topics.append((line, fields))
    return topics


def read_topics(path: Path, topic_field: TopicField = "title") -> list[LabelledQuery]:
    """TREC topics as queries (no judgments: those come from qrels)."""
    if topic_field not in TOPIC_FIELDS:
        raise ConfigError(f"topic field {topic_field!r}: expected {', '.join(TOPIC_FIELDS)}")
    text = "\n".join(line for _no, line in numbered_lines(path))
    queries: list[LabelledQuery] = []
    seen: dict[str, int] = {}
    for line, fields in parse_topics(text, str(path)):
        qid = fields["num"]
        if qid in seen:
            raise InputError(f"{path}:{line}: topic {qid!r} again (first at line {seen[qid]})")
        seen[qid] = line
        wanted = {"title": ["title"], "description": ["desc"]}.get(topic_field, ["title", "desc"])
        parts = [fields.get(name, "") for name in wanted]
        query = " ".join(part for part in parts if part)
        if not query:
            names = " and ".join(f"<{name}>" for name in wanted)
            raise InputError(f"{path}:{line}: topic {qid!r} has no text in {names}")
        queries.append(LabelledQuery(id=qid, query=query))
    if not queries:
        raise InputError(f"{path}: no <top> topics")
    return queries


# --------------------------------------------------------------------------- JSON Lines


def _grades(raw: Any, where: str) -> Grades:
    if isinstance(raw, list):
        return {str(doc): 1 for doc in raw}
    if isinstance(raw, dict):
        grades: Grades = {}
        for doc, grade in raw.items():
            if isinstance(grade, bool) or not isinstance(grade, int):
                raise InputError(f"{where}: grades in `relevant` must be integers, not {grade!r}")
            grades[str(doc)] = grade
        return grades
    raise InputError(f"{where}: `relevant` must be a list of doc ids or an object of grades")


def _ids(record: dict[str, Any], name: str, where: str) -> list[str] | None:
    """A list of document ids (``holders``, ``unjudged``), or None when absent."""
    raw = record.get(name)
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(d, str) for d in raw):
        raise InputError(f"{where}: `{name}` must be a list of document ids")
    return list(raw)


def _jsonl_queries(path: Path) -> tuple[list[LabelledQuery], int]:
    """The queries, and how many lines carried ``relevant``."""
    queries: list[LabelledQuery] = []
    labelled = 0
    seen: dict[str, int] = {}
    for line_no, where, record in json_objects(path):
        qid = record.get("id", record.get("_id"))
        text = record.get("query", record.get("text"))
        if qid is None or isinstance(qid, dict | list) or not isinstance(text, str):
            raise InputError(f"{where}: needs `id` (or `_id`) and `query` (or `text`)")
        qid = str(qid)
        if qid in seen:
            raise InputError(f"{where}: query id {qid!r} again (first at line {seen[qid]})")
        seen[qid] = line_no
        relevant: Grades = {}
        if "relevant" in record:
            labelled += 1
            relevant = _grades(record["relevant"], where)
        acl = record.get("acl")
        queries.append(
            LabelledQuery(
                id=qid,
                query=text,
                relevant=relevant,
                tenant=record.get("tenant"),
                acl=[str(group) for group in acl] if isinstance(acl, list) else None,
                note=record.get("note"),
                holders=_ids(record, "holders", where) if "holders" in record else None,
                unjudged=_ids(record, "unjudged", where) or [],
            )
        )
    if not queries:
        raise InputError(f"{path}: no queries")
    return queries, labelled


def _looks_like_topics(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            head = handle.read(4096).lstrip()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc})") from None
    return head[:5].lower() == "<top>"


def _sample(ids: Iterable[str], limit: int = 5) -> str:
    ids = list(ids)
    shown = ", ".join(ids[:limit])
    return shown + (f", … ({len(ids) - limit} more)" if len(ids) > limit else "")


def load_query_set(
    path: Path,
    qrels: Path | None = None,
    *,
    qrels_format: QrelsFormat = "auto",
    topic_field: TopicField = "title",
    holders: Path | None = None,
) -> QuerySet:
    """Queries and judgments from ``path`` (JSON Lines, BEIR or TREC topics) and ``qrels``;
    the holder gold of quantity precision from the queries or from ``holders``.

    Raises :class:`ConfigError` when judgments are needed and no qrels file was given,
    :class:`InputError` for unreadable input or when no query has a relevant document.
    Queries without a relevant document, and judgments for queries not in the set, are
    warnings with counts.
    """
    warnings: list[str] = []
    labelled = 0
    if _looks_like_topics(path):
        queries, fmt = read_topics(path, topic_field), "trec-topics"
    else:
        queries, labelled = _jsonl_queries(path)
        fmt = "jsonl" if labelled else "beir"
    judged_by: Qrels | None = None
    if qrels is not None:
        judged_by = load_qrels(qrels, qrels_format)
        if labelled:
            warnings.append(
                f"{labelled} queries in {path} carry `relevant`; the judgments of {qrels} "
                "replace them"
            )
        for q in queries:
            q.relevant = dict(judged_by.judgments.get(q.id, {}))
        unknown = sorted(set(judged_by.judgments) - {q.id for q in queries})
        if unknown:
            warnings.append(
                f"{qrels} judges {len(unknown)} queries that are not in {path} "
                f"(ids {_sample(unknown)}): check that both files number queries alike"
            )
        if judged_by.repeated_lines:
            warnings.append(f"{qrels}: {judged_by.repeated_lines} repeated lines counted once")
    elif fmt == "trec-topics":
        raise ConfigError(f"{path} holds TREC topics, which carry no judgments: pass --qrels FILE")
    elif not labelled:
        raise ConfigError(
            f"{path} holds queries without judgments (no `relevant`; BEIR's queries.jsonl is "
            "like this): pass --qrels FILE"
        )
    if holders is not None:
        warnings += _read_holders(holders, queries, path, qrels_format)
    unjudged = [q.id for q in queries if not q.judged]
    if len(unjudged) == len(queries):
        where = f" in {qrels}" if qrels is not None else ""
        raise InputError(
            f"none of the {len(queries)} queries of {path} has a relevant document judged{where}"
            + (": do the query ids match the qrels?" if qrels is not None else "")
        )
    if unjudged:
        warnings.append(
            f"{len(unjudged)} of {len(queries)} queries have no relevant document judged and "
            f"are left out of the means (ids {_sample(unjudged)})"
        )
    return QuerySet(str(path), fmt, queries, judged_by, warnings)  # type: ignore[arg-type]


def _read_holders(
    path: Path, queries: list[LabelledQuery], source: Path, fmt: QrelsFormat
) -> list[str]:
    """Set each query's holder gold from a holders qrels file (grade > 0 holds, < 0 cannot be
    judged); warnings with counts."""
    judged = load_qrels(path, fmt)
    warnings = []
    carried = sum(1 for q in queries if q.holders is not None)
    if carried:
        warnings.append(
            f"{carried} queries in {source} carry `holders`; those of {path} replace them"
        )
    for q in queries:
        grades = judged.judgments.get(q.id)
        q.holders = None if grades is None else sorted(d for d, g in grades.items() if g > 0)
        q.unjudged = [] if grades is None else sorted(d for d, g in grades.items() if g < 0)
    unknown = sorted(set(judged.judgments) - {q.id for q in queries})
    if unknown:
        warnings.append(
            f"{path} gives holders for {len(unknown)} queries that are not in {source} "
            f"(ids {_sample(unknown)})"
        )
    return warnings


def read_queries(
    path: Path,
    qrels_path: Path | None = None,
    *,
    qrels_format: QrelsFormat = "auto",
    topic_field: TopicField = "title",
) -> list[LabelledQuery]:
    """The queries of :func:`load_query_set` (warnings dropped; use that to see them)."""
    return load_query_set(
        path, qrels_path, qrels_format=qrels_format, topic_field=topic_field
    ).queries
