"""A loopback HTTP proxy in front of a real engine that pushes back like a busy cluster.

Every request is forwarded unchanged except ``_bulk`` ones: of those, every
``reject_every``-th is answered 429 as a whole (``es_rejected_execution_exception``,
nothing forwarded; the same body at most once), and in the others the first
``throttle_items`` items' answers are turned into 429s (the items *were* written: a
resend rewrites them, as happens when a node answers after a coordinating timeout) —
each item at most once, so a client that backs off and resends converges. Counts of
what it did are kept.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

REJECTED = {
    "type": "es_rejected_execution_exception",
    "reason": "rejected execution of coordinating operation (test proxy)",
}


@dataclass
class Pushback:
    reject_every: int = 3
    throttle_items: int = 5
    bulks: int = 0
    rejected_requests: int = 0
    throttled_items: int = 0
    seen: set[str] = field(default_factory=set)
    rejected_bodies: set[str] = field(default_factory=set)
    """Digests of the request bodies answered 429 as a whole: each is refused once. With
    writer threads sending at once, "every n-th request" could otherwise refuse the
    same resent request more times in a row than the client's retries allow."""


def _handler(upstream: str, pushback: Pushback, lock: threading.Lock) -> type:
    target = urlsplit(upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _forward(self, body: bytes) -> tuple[int, bytes, str]:
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
            conn.request(self.command, self.path, body=body or None, headers=headers)
            answer = conn.getresponse()
            data = answer.read()
            kind = answer.getheader("content-type", "application/json")
            conn.close()
            return answer.status, data, kind

        def _reply(self, status: int, data: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            if "_bulk" not in urlsplit(self.path).path:
                self._reply(*self._forward(body))
                return
            digest = hashlib.sha256(body).hexdigest()
            with lock:
                pushback.bulks += 1
                reject = (
                    pushback.reject_every
                    and pushback.bulks % pushback.reject_every == 0
                    and digest not in pushback.rejected_bodies
                )
                if reject:
                    pushback.rejected_requests += 1
                    pushback.rejected_bodies.add(digest)
            if reject:
                data = json.dumps({"error": REJECTED, "status": 429}).encode()
                self._reply(429, data)
                return
            status, data, kind = self._forward(body)
            answer = json.loads(data)
            items = answer.get("items") or []
            throttled = 0
            with lock:
                for item in items:
                    detail = next(iter(item.values()))
                    key = str(detail.get("_id"))
                    if throttled >= pushback.throttle_items or key in pushback.seen:
                        continue
                    pushback.seen.add(key)
                    detail["status"], detail["error"] = 429, REJECTED
                    throttled += 1
            if throttled:
                answer["errors"] = True
                with lock:
                    pushback.throttled_items += throttled
            self._reply(status, json.dumps(answer).encode(), kind)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

    return Handler


@contextmanager
def pushing_back(upstream: str, pushback: Pushback) -> Iterator[str]:
    """Run the proxy; yields its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(upstream, pushback, threading.Lock()))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
