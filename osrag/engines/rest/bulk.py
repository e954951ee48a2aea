"""``_bulk`` with back-off that can tell back-pressure from a refusal.

The client helpers (``streaming_bulk`` in opensearch-py and elasticsearch-py)
retry every item answered 429. But a 429 is also how an engine answers a write
to an index under the disk flood-stage block (``cluster_block_exception``,
``TOO_MANY_REQUESTS/12/…read-only-allow-delete``): retrying that for minutes
only hides it. So the helper is asked to send each action once, and this
module decides:

* an item refused by an **index block** (any ``cluster_block_exception``)
  stops the write at once with one :class:`~osrag.errors.ClusterError` naming
  the index and the block — nothing already stored is touched;
* an item answered 429 otherwise (the write queue is full) is sent again after
  an exponential back-off (``initial_backoff`` doubling up to ``max_backoff``),
  at most ``retries`` times; a whole request answered 429 is sent again the same
  way. Rewriting an item is harmless: every action names its ``_id``.
* every other item is reported as it was answered.

The counts of throttled items and retry rounds are returned, so an ingest can
say how hard the cluster pushed back.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from osrag.engines.rest.refusals import block_error
from osrag.errors import ClusterError

StreamingBulk = Callable[..., Iterable[tuple[bool, dict[str, Any]]]]


@dataclass(frozen=True)
class ItemResult:
    """One action as the engine answered it."""

    op_type: str
    id: str
    status: int
    error: Any


@dataclass
class BulkStats:
    throttled: int = 0
    """Items (or whole requests' items) answered 429 and sent again."""
    retries: int = 0
    """Back-off rounds."""


def _is_block(error: Any) -> bool:
    return isinstance(error, dict) and error.get("type") == "cluster_block_exception"


def send(
    streaming_bulk: StreamingBulk,
    client: Any,
    actions: list[dict[str, Any]],
    stats: BulkStats,
    *,
    is_throttled_request: Callable[[BaseException], bool],
    retries: int = 6,
    initial_backoff: float = 1.0,
    max_backoff: float = 30.0,
    sleep: Callable[[float], None] = time.sleep,
    **helper_options: Any,
) -> Iterator[ItemResult]:
    """Send ``actions`` (``_op_type``, ``_index``, ``_id``, …) and yield each final answer."""
    expand = _expand_of(streaming_bulk)
    pending = actions
    delay = initial_backoff
    for round_number in range(retries + 1):
        last_round = round_number == retries
        again: list[dict[str, Any]] = []
        answered: set[tuple[str, str]] = set()
        by_key = {(a.get("_op_type", "index"), str(a["_id"])): a for a in pending}
        answers: Any = None
        try:
            answers = streaming_bulk(
                client,
                pending,
                raise_on_error=False,
                raise_on_exception=True,
                max_retries=0,
                expand_action_callback=expand,
                **helper_options,
            )
            for _ok, item in answers:
                op_type, detail = next(iter(item.items()))
                status = int(detail.get("status", 0))
                error = detail.get("error")
                if _is_block(error):
                    raise block_error(str(detail.get("_index", "?")), error)
                key = (op_type, str(detail.get("_id")))
                answered.add(key)
                action = by_key.get(key)
                if status == 429 and action is not None and not last_round:
                    again.append(action)
                    continue
                yield ItemResult(op_type, key[1], status, error)
        except ClusterError:
            raise
        except Exception as exc:
            if last_round or not is_throttled_request(exc):
                raise
            # a whole request was refused: what was not answered yet goes again
            again += [a for k, a in by_key.items() if k not in answered]
        finally:
            # a helper left half-read (a block raised above) is closed here, in this
            # thread, not by the garbage collector at some later moment in another
            close = getattr(answers, "close", None)
            if close is not None:
                close()
        if not again:
            return
        stats.throttled += len(again)
        stats.retries += 1
        sleep(delay)
        delay = min(delay * 2, max_backoff)
        pending = again


def dumps(source: dict[str, Any]) -> str:
    """Serialise once on the hot path (orjson writes dates as ISO days)."""
    return orjson.dumps(source, option=orjson.OPT_NON_STR_KEYS).decode()


Expand = Callable[[dict[str, Any]], tuple[Any, Any]]


@functools.cache
def _expand_of(streaming_bulk: StreamingBulk) -> Expand:
    """The helper's own ``expand_action`` (its default), its header written by orjson."""
    return header_written(
        inspect.signature(streaming_bulk).parameters["expand_action_callback"].default
    )


def header_written(expand: Expand) -> Expand:
    """The helper's ``expand`` (an action → its header line and its source) with the header
    written by orjson: the client's JSON writer builds an encoder at every call, several
    times the cost of the header. A string passes through either client's writer as it is;
    orjson writes what the client's writer would (compact, non-ASCII as is; an action it
    cannot write, such as an id holding a lone surrogate, is left to the client)."""

    def expand_written(data: dict[str, Any]) -> tuple[Any, Any]:
        header, source = expand(data)
        try:
            return orjson.dumps(header).decode(), source
        except orjson.JSONEncodeError:
            return header, source

    return expand_written
