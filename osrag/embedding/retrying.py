"""One request loop for the HTTP embedders: send a POST, read the answer within bounds, retry.

:func:`post_with_retries` sends a request up to ``1 + retries`` times and hands
back the last answer or transport error; the caller turns that into its own
message. What bounds it (:class:`RetryPolicy`):

- **the whole request** — connecting, waiting for the answer and reading all of it —
  takes at most ``timeout`` seconds: a server that trickles its answer a byte at a time
  is cut off then, not after each byte's own read timeout;
- **the answer** is read as a stream and refused past ``max_bytes`` (after decoding),
  so a 100 MB answer costs about ``max_bytes`` of memory, not its size several times
  over;
- **one batch** — every try and every wait between tries — ends within ``deadline``
  seconds: a retry whose wait would pass it is not made;
- **the caller's allowance** (:class:`Allowance`, optional and shared by every batch
  of, say, one ingest): a deadline of its own, and a retry budget — retries are
  throttled to ``floor`` plus ``ratio`` of the successful requests (gRPC's retry
  throttling), so an endpoint that keeps failing is not asked again and again.

What is worth another try is the caller's: the statuses, and whether a read error (a
timeout, a dropped answer) is — a service that is merely slow gets no extra load from
retrying it. The wait between tries is :func:`retry_delay`: the server's
``Retry-After`` when it sends a usable one, else an exponential back-off with jitter.
"""

from __future__ import annotations

import contextlib
import math
import random
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

MAX_ANSWER_BYTES = 32 * 1024 * 1024
"""The default limit on one answer's bytes: 32 MiB holds 256 vectors of 4,096 dimensions
written as JSON decimals (≈ 25 bytes a number), several times what a batch needs."""
DEADLINE = 120.0
"""The default seconds one batch may take, every try and wait included."""
_READ = 64 * 1024


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

    A ``Retry-After`` of seconds or of an HTTP date wins, capped at ``max_wait`` and
    never negative; one that is not a finite number or a date (``nan``, ``inf``,
    garbage) is ignored. Without one, ``base × 2**attempt`` plus ``jitter`` (a fraction
    of it, drawn by the caller), capped. Always a finite number in ``[0, max_wait]``. Pure.
    """
    cap = max_wait if math.isfinite(max_wait) and max_wait >= 0 else 0.0
    if retry_after:
        text = retry_after.strip()
        seconds: float | None
        try:
            seconds = float(text)
        except ValueError:
            seconds = _seconds_until(text, time.time() if now is None else now)
        if seconds is not None and math.isfinite(seconds):
            return min(max(seconds, 0.0), cap)
    try:
        backoff = base * (2 ** min(attempt, 60)) * (1.0 + jitter)
    except OverflowError:
        backoff = cap
    return min(max(backoff, 0.0), cap) if math.isfinite(backoff) else cap


def _seconds_until(text: str, now: float) -> float | None:
    try:
        return parsedate_to_datetime(text).timestamp() - now
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures are tried again, how often, and what bounds a request and a batch."""

    retries: int
    statuses: frozenset[int]
    retry_reads: bool
    """Whether a read error (timeout, connection dropped mid-answer) is tried again."""
    backoff: float = 0.5
    max_wait: float = 30.0
    jitter: float = 0.0
    """The largest random fraction added to each back-off, to spread out clients."""
    timeout: float = 30.0
    """Seconds for one whole request: connect, wait, read every byte of the answer."""
    deadline: float = DEADLINE
    """Seconds for one batch: every try and every wait between tries."""
    max_bytes: int = MAX_ANSWER_BYTES
    """Bytes of one answer (decoded) at most."""


@dataclass
class Allowance:
    """What a caller allows an endpoint over many batches (e.g. one ingest): a deadline
    (``time.monotonic()`` value, or None) and a retry budget — ``floor`` retries, earned
    back at ``ratio`` of a retry for every request that succeeded, never more than
    ``floor`` in hand. Thread-safe."""

    ends_at: float | None = None
    floor: float = 10.0
    ratio: float = 0.1
    _tokens: float = field(default=-1.0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self._tokens < 0:
            self._tokens = self.floor

    def left(self) -> float | None:
        """Seconds until the deadline (None: no deadline)."""
        return None if self.ends_at is None else self.ends_at - time.monotonic()

    def succeeded(self) -> None:
        with self._lock:
            self._tokens = min(self._tokens + self.ratio, self.floor)

    def take_retry(self) -> bool:
        """Spend one retry; False when the budget is spent (the retry is not made)."""
        with self._lock:
            if self._tokens < 1.0:
                return False
            self._tokens -= 1.0
            return True

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


class AnswerTooLarge(Exception):
    """The answer passed ``max_bytes``."""


class RequestTimedOut(Exception):
    """The whole request took longer than it was given."""


@dataclass(frozen=True)
class Answer:
    """A complete answer: its status, headers and (decoded) body."""

    status: int
    headers: Mapping[str, str]
    data: bytes


@dataclass(frozen=True)
class Outcome:
    """The last try: an answer (any status) or the transport error, how many tries ran,
    and why no further try was made when one would otherwise have been."""

    response: Answer | None
    """The answer of the last try; None when it failed in transport (``error``)."""
    error: Exception | None
    attempts: int
    stopped: str = ""
    """``"the batch deadline (120 s)"``, ``"the retry budget"``… ("" when not stopped)."""
    seconds: float = 0.0


def post_with_retries(
    http: Any,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    policy: RetryPolicy,
    allowance: Allowance | None = None,
) -> Outcome:
    """POST ``body`` until a 2xx, an answer not worth retrying, or a bound is reached (see
    the module docstring). ``http`` is a urllib3 ``PoolManager`` that does not retry."""
    import urllib3

    started = time.monotonic()
    batch_ends = started + policy.deadline
    outcome = Outcome(None, None, 0)
    for attempt in range(policy.retries + 1):
        left, bound = _time_left(batch_ends, allowance, policy)
        if left <= 0:
            return _stopped(outcome, bound, started)
        retry_after = None
        try:
            answer = _send(http, url, body, headers, min(policy.timeout, left), policy.max_bytes)
        except AnswerTooLarge as exc:
            return Outcome(None, exc, attempt + 1, seconds=time.monotonic() - started)
        except (urllib3.exceptions.HTTPError, RequestTimedOut, OSError) as exc:
            outcome = Outcome(None, _timed(exc, min(policy.timeout, left)), attempt + 1)
            if _is_read_error(exc) and not policy.retry_reads:
                break
        else:
            outcome = Outcome(answer, None, attempt + 1)
            if answer.status < 300:
                if allowance is not None:
                    allowance.succeeded()
                break
            if answer.status not in policy.statuses:
                break
            retry_after = answer.headers.get("Retry-After")
        if attempt == policy.retries:
            break
        wait = retry_delay(
            attempt,
            retry_after,
            base=policy.backoff,
            max_wait=policy.max_wait,
            jitter=random.random() * policy.jitter,
        )
        left, bound = _time_left(batch_ends, allowance, policy)
        if wait >= left:
            return _stopped(outcome, bound, started)
        if allowance is not None and not allowance.take_retry():
            return _stopped(outcome, "the retry budget of this embedder", started)
        time.sleep(wait)
    return Outcome(
        outcome.response, outcome.error, outcome.attempts, "", time.monotonic() - started
    )


def _time_left(
    batch_ends: float, allowance: Allowance | None, policy: RetryPolicy
) -> tuple[float, str]:
    """Seconds left before the nearer deadline, and which one it is."""
    left, bound = batch_ends - time.monotonic(), f"the batch deadline ({policy.deadline:g} s)"
    own = allowance.left() if allowance is not None else None
    if own is not None and own < left:
        left, bound = own, "the embed_deadline of this ingest"
    return left, bound


def _stopped(outcome: Outcome, bound: str, started: float) -> Outcome:
    return Outcome(
        outcome.response, outcome.error, outcome.attempts, bound, time.monotonic() - started
    )


def _timed(exc: Exception, seconds: float) -> Exception:
    import urllib3

    if isinstance(exc, urllib3.exceptions.ReadTimeoutError):
        return RequestTimedOut(f"did not answer within {round(seconds, 1):g} s")
    return exc


def _send(
    http: Any, url: str, body: bytes, headers: Mapping[str, str], seconds: float, max_bytes: int
) -> Answer:
    """One POST whose answer is read in full within ``seconds`` and ``max_bytes``."""
    import urllib3

    ends = time.monotonic() + seconds
    response = http.request(
        "POST",
        url,
        body=body,
        headers=dict(headers),
        preload_content=False,
        timeout=urllib3.Timeout(connect=min(seconds, 10.0), read=seconds),
    )
    done = False
    try:
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > max_bytes:
            raise AnswerTooLarge(f"an answer of {int(declared):,} bytes")
        parts: list[bytes] = []
        size = 0
        while True:
            left = ends - time.monotonic()
            if left <= 0:
                raise RequestTimedOut(
                    f"did not send its whole answer within {round(seconds, 1):g} s"
                )
            _limit_socket(response, left)
            part = response.read1(_READ)
            if not part:
                break
            size += len(part)
            if size > max_bytes:
                raise AnswerTooLarge(f"an answer of more than {max_bytes:,} bytes")
            parts.append(part)
        done = True
        return Answer(response.status, response.headers, b"".join(parts))
    except urllib3.exceptions.ReadTimeoutError:
        raise RequestTimedOut(
            f"did not send its whole answer within {round(seconds, 1):g} s"
        ) from None
    finally:
        if done:
            response.release_conn()
        else:  # never hand a half-read connection back to the pool, nor drain it
            response.close()
            response.release_conn()


def _limit_socket(response: Any, seconds: float) -> None:
    """Make the next read wait at most ``seconds`` (the request's time left)."""
    connection = getattr(response, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.settimeout(max(seconds, 0.001))


def _is_read_error(exc: Exception) -> bool:
    import urllib3

    errors = urllib3.exceptions
    return isinstance(exc, (errors.ReadTimeoutError, errors.ProtocolError, RequestTimedOut))
