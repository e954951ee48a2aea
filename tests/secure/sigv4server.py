"""A loopback HTTP server that records requests and checks their AWS SigV4 signature.

There is no AWS here, so this stands in for an Amazon OpenSearch endpoint: it
answers ``GET /`` like OpenSearch and ``{}`` to anything else, and for every
request records the headers and whether the ``Authorization`` header is a
correct SigV4 signature *recomputed here from the AWS specification* with the
secret key the test gave the client (stdlib ``hmac``/``hashlib`` only — not
botocore, so the check is independent of the code that signed).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote, urlsplit

# Fixed fake AWS credentials (shaped like AWS's documentation examples, not real ones).
AWS_ACCESS_KEY_ID = "AKIAOSRAGTESTEXAMPLE"
AWS_SECRET_ACCESS_KEY = "osragTestSecret/K7MDENG+bPxRfiCYEXAMPLEKEY"
AWS_SESSION_TOKEN = "osragTestSessionToken//////////wEaCXVzLWVhc3QtMSJHMEUCIQ"

AUTH_SHAPE = re.compile(
    r"^AWS4-HMAC-SHA256 "
    r"Credential=(?P<key>[A-Z0-9]+)/(?P<date>\d{8})/(?P<region>[a-z0-9-]+)/"
    r"(?P<service>[a-z0-9]+)/aws4_request, "
    r"SignedHeaders=(?P<signed>[a-z0-9;-]+), "
    r"Signature=(?P<signature>[0-9a-f]{64})$"
)
AMZ_DATE_SHAPE = re.compile(r"^\d{8}T\d{6}Z$")


@dataclass
class SignedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    auth: dict[str, str] = field(default_factory=dict)  # the parsed Authorization header
    problems: list[str] = field(default_factory=list)  # empty when the signature is right


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def _canonical_query(query: str) -> str:
    pairs = []
    for part in query.split("&") if query else []:
        key, _, value = part.partition("=")
        pairs.append((quote(key, safe="-_.~%"), quote(value, safe="-_.~%")))
    return "&".join(f"{k}={v}" for k, v in sorted(pairs))


def verify(request: SignedRequest, secret_key: str) -> list[str]:
    """What is wrong with the SigV4 signature of ``request`` (empty list: nothing)."""
    problems = []
    authorization = request.headers.get("authorization", "")
    match = AUTH_SHAPE.match(authorization)
    if not match:
        return [f"Authorization header is not SigV4-shaped: {authorization[:60]!r}"]
    request.auth = match.groupdict()
    amz_date = request.headers.get("x-amz-date", "")
    if not AMZ_DATE_SHAPE.match(amz_date):
        problems.append(f"x-amz-date {amz_date!r} is not YYYYMMDDTHHMMSSZ")
    elif amz_date[:8] != match["date"]:
        problems.append("credential scope date differs from x-amz-date")
    payload_hash = hashlib.sha256(request.body).hexdigest()
    if request.headers.get("x-amz-content-sha256", payload_hash) != payload_hash:
        problems.append("x-amz-content-sha256 is not the SHA-256 of the body")

    signed = match["signed"].split(";")
    if "host" not in signed or "x-amz-date" not in signed:
        problems.append(f"SignedHeaders {signed} must include host and x-amz-date")
    missing = [name for name in signed if name not in request.headers]
    if missing:
        return [*problems, f"signed headers not sent: {missing}"]
    split = urlsplit(request.path)
    canonical_request = "\n".join(
        [
            request.method,
            quote(split.path or "/", safe="/~"),  # non-S3: the sent (encoded) path, encoded again
            _canonical_query(split.query),
            "".join(f"{n}:{' '.join(request.headers[n].split())}\n" for n in signed),
            ";".join(signed),
            request.headers.get("x-amz-content-sha256", payload_hash),
        ]
    )
    scope = f"{match['date']}/{match['region']}/{match['service']}/aws4_request"
    string_to_sign = "\n".join(
        [
            "AWS4-HMAC-SHA256",
            amz_date,
            scope,
            hashlib.sha256(canonical_request.encode()).hexdigest(),
        ]
    )
    key = _hmac(("AWS4" + secret_key).encode(), match["date"])
    for part in (match["region"], match["service"], "aws4_request"):
        key = _hmac(key, part)
    expected = hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, match["signature"]):
        problems.append("signature does not match the one computed with the secret key")
    return problems


class _Handler(BaseHTTPRequestHandler):
    server: _RecordingServer

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        record = SignedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        record.problems = verify(record, self.server.secret_key)
        self.server.requests.append(record)
        if urlsplit(self.path).path == "/":
            answer = {
                "name": "sigv4-stand-in",
                "cluster_name": "sigv4-stand-in",
                "version": {"number": "2.19.0", "distribution": "opensearch"},
                "tagline": "The OpenSearch Project: https://opensearch.org/",
            }
        else:
            answer = {}
        payload = json.dumps(answer).encode()
        status = 200 if self.command != "HEAD" else 404
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


class _RecordingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, secret_key: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.secret_key = secret_key
        self.requests: list[SignedRequest] = []


@dataclass
class SigV4Server:
    url: str
    requests: list[SignedRequest]


@contextmanager
def running_sigv4_server(secret_key: str) -> Iterator[SigV4Server]:
    server = _RecordingServer(secret_key)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield SigV4Server(url=f"http://{host}:{port}", requests=server.requests)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
