"""One retry loop for the HTTP embedders: send a POST, wait, send it again.

:func:`post_with_retries` sends a request up to ``1 + retries`` times and
hands back the last answer or transport error; the caller turns that into its
own message. What is worth another try is the caller's :class:`RetryPolicy`:
the statuses, and whether a read error (a timeout, a dropped answer) is — a
service that is merely slow gets no extra load from retrying it. The wait
between tries is :func:`retry_delay`: the server's ``Retry-After`` when it
sends one, else an exponential back-off, with the caller's jitter.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any


def retry_delay(
    attempt: int,
    retry_after: str | None,
    *,
    base: float = 0.5,
    max_wait: float = 30.0,
    now: float | None = None,
    jitter: float = 0.0,
) -> float:
    """Seconds to wait before retry number ``attempt`` (0 for the first retry).

    A ``Retry-After`` of seconds or of an HTTP date wins (capped at
    ``max_wait``, never negative); without one, ``base × 2**attempt`` plus
    ``jitter`` (a fraction of it, drawn by the caller), capped. Pure.
    """
    if retry_after:
        text = retry_after.strip()
        try:
            return min(max(float(text), 0.0), max_wait)
        except ValueError:
            pass
        try:
            when = parsedate_to_datetime(text).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            when = None
        if when is not None:
            return min(max(when - (time.time() if now is None else now), 0.0), max_wait)
    return min(base * (2**attempt) * (1.0 + jitter), max_wait)


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures are tried again, how often, and how long to wait between tries."""

    retries: int
    statuses: frozenset[int]
    retry_reads: bool
    """Whether a read error (timeout, connection dropped mid-answer) is tried again."""
    backoff: float = 0.5
    max_wait: float = 30.0
    jitter: float = 0.0
    """The largest random fraction added to each back-off, to spread out clients."""


@dataclass(frozen=True)
class Outcome:
    """The last try: an answer (any status) or the transport error, and how many tries ran."""

    response: Any
    """The urllib3 response of the last try; None when it failed in transport (``error``)."""
    error: Exception | None
    attempts: int


def post_with_retries(
    http: Any, url: str, body: bytes, headers: Mapping[str, str], policy: RetryPolicy
) -> Outcome:
    """POST ``body`` until a 2xx, an answer not worth retrying, or ``policy.retries`` run out.

    ``http`` is a urllib3 ``PoolManager`` that does not retry by itself.
    """
    import urllib3

    outcome = Outcome(None, None, 0)
    for attempt in range(policy.retries + 1):
        retry_after = None
        try:
            response = http.request("POST", url, body=body, headers=dict(headers))
        except urllib3.exceptions.HTTPError as exc:
            outcome = Outcome(None, exc, attempt + 1)
            if _is_read_error(exc) and not policy.retry_reads:
                break
        else:
            outcome = Outcome(response, None, attempt + 1)
            if response.status < 300 or response.status not in policy.statuses:
                break
            retry_after = response.headers.get("Retry-After")
        if attempt < policy.retries:
            time.sleep(
                retry_delay(
                    attempt,
                    retry_after,
                    base=policy.backoff,
                    max_wait=policy.max_wait,
                    jitter=random.random() * policy.jitter,
                )
            )
    return outcome


def _is_read_error(exc: Exception) -> bool:
    import urllib3

    errors = urllib3.exceptions
    return isinstance(exc, (errors.ReadTimeoutError, errors.ProtocolError))
