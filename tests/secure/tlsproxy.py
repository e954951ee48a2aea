"""A TLS reverse proxy (nginx) in front of a plain-HTTP OpenSearch, for tests and humans.

Everything lives in one temporary folder made at start: a throw-away CA and
server certificate (``trustme``), a client certificate from a second CA that
only the mutual-TLS port trusts, an ``htpasswd`` file with one user, the nginx
configuration, its pid file, temp folders and logs. nginx runs in the
foreground as a child process (``daemon off; master_process off``), so it
needs no privileges and never touches ``/etc/nginx`` or ``/var/log/nginx``.

Three ports on 127.0.0.1, all fronting the same upstream:

* ``basic_url`` — TLS + HTTP basic auth (the common self-managed setup);
* ``mtls_url``  — TLS + a required client certificate, no password;
* ``api_key_url`` — TLS + ``Authorization: ApiKey <encoded>`` (Elasticsearch's usual
  credential: the base64 of ``id:api_key``); any other header is a 401.

The server certificate is valid for the IP ``127.0.0.1`` only, so
``https://localhost:<port>`` is a hostname mismatch on purpose.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import trustme

NGINX_CONF = """\
daemon off;
master_process off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;

events {{ worker_connections 256; }}

http {{
    access_log {root}/access.log;
    client_body_temp_path {root}/tmp/body;
    proxy_temp_path {root}/tmp/proxy;
    fastcgi_temp_path {root}/tmp/fastcgi;
    uwsgi_temp_path {root}/tmp/uwsgi;
    scgi_temp_path {root}/tmp/scgi;
    client_max_body_size 200m;

    ssl_certificate {root}/server.pem;
    ssl_certificate_key {root}/server.key;

    upstream opensearch {{ server {upstream}; keepalive 8; }}

    server {{
        listen 127.0.0.1:{basic_port} ssl;
        auth_basic "osrag test cluster";
        auth_basic_user_file {root}/htpasswd;
        location / {{
            proxy_pass http://opensearch;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Authorization "";
        }}
    }}

    server {{
        listen 127.0.0.1:{api_key_port} ssl;
        location / {{
            if ($http_authorization != "ApiKey {api_key}") {{
                return 401 '{{"error":"missing or wrong API key","status":401}}';
            }}
            proxy_pass http://opensearch;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Authorization "";
        }}
    }}

    server {{
        listen 127.0.0.1:{mtls_port} ssl;
        ssl_client_certificate {root}/client-ca.pem;
        ssl_verify_client on;
        location / {{
            proxy_pass http://opensearch;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }}
    }}
}}
"""


class ProxyError(RuntimeError):
    """nginx is missing or did not start; the message carries its error log."""


@dataclass(frozen=True)
class TLSProxy:
    """A running proxy: where it listens and the files a client needs."""

    root: Path
    basic_url: str
    mtls_url: str
    upstream_url: str
    ca_pem: Path  # the CA that signed the server certificate
    client_cert: Path  # certificate + nothing else (PEM)
    client_key: Path  # its private key (PEM, unencrypted)
    username: str
    password_file: Path  # the password, one line
    api_key_url: str
    api_key_id: str
    api_key_secret: str  # what Elasticsearch's create-API-key call returns as ``api_key``

    @property
    def password(self) -> str:
        return self.password_file.read_text().rstrip("\n")

    @property
    def api_key(self) -> str:
        """The encoded key (``encoded`` in Elasticsearch's answer): base64 of ``id:api_key``."""
        return base64.b64encode(f"{self.api_key_id}:{self.api_key_secret}".encode()).decode()


def nginx_binary() -> str | None:
    """The nginx executable on PATH or in /usr/sbin (Debian puts it there)."""
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ssha(password: str) -> str:
    """An htpasswd line value in nginx's ``{SSHA}`` scheme (salted SHA-1)."""
    salt = secrets.token_bytes(8)
    digest = hashlib.sha1(password.encode() + salt).digest()
    return "{SSHA}" + base64.b64encode(digest + salt).decode()


def _wait_listening(ports: list[int], process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 15
    pending = list(ports)
    while pending:
        if process.poll() is not None:
            raise ProxyError(f"nginx exited with {process.returncode}: {_tail(log)}")
        if time.monotonic() > deadline:
            raise ProxyError(f"nginx did not listen on {pending} within 15 s: {_tail(log)}")
        port = pending[0]
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            pending.pop(0)
            continue
        time.sleep(0.05)


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-2000:] if log.exists() else "(no error log)"


def _upstream_hostport(url: str) -> str:
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0]


@contextlib.contextmanager
def running_proxy(upstream_url: str, root: Path, username: str = "osrag") -> Iterator[TLSProxy]:
    """Generate the PKI and config under ``root``, run nginx, yield, stop it."""
    binary = nginx_binary()
    if binary is None:
        raise ProxyError("nginx is not installed (Debian: apt-get install nginx-light)")
    root.mkdir(parents=True, exist_ok=True)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (root / "tmp" / sub).mkdir(parents=True, exist_ok=True)

    server_ca = trustme.CA(organization_name="osrag test server CA")
    server_ca.cert_pem.write_to_path(str(root / "ca.pem"))
    leaf = server_ca.issue_cert("127.0.0.1", common_name="127.0.0.1")
    leaf.cert_chain_pems[0].write_to_path(str(root / "server.pem"))
    for extra in leaf.cert_chain_pems[1:]:
        extra.write_to_path(str(root / "server.pem"), append=True)
    leaf.private_key_pem.write_to_path(str(root / "server.key"))

    client_ca = trustme.CA(organization_name="osrag test client CA")
    client_ca.cert_pem.write_to_path(str(root / "client-ca.pem"))
    client = client_ca.issue_cert("osrag-client@example.test", common_name="osrag-client")
    client.cert_chain_pems[0].write_to_path(str(root / "client.pem"))
    client.private_key_pem.write_to_path(str(root / "client.key"))
    os.chmod(root / "client.key", 0o600)

    password = secrets.token_urlsafe(18)
    password_file = root / "password"
    password_file.write_text(password + "\n")
    os.chmod(password_file, 0o600)
    (root / "htpasswd").write_text(f"{username}:{ssha(password)}\n")

    api_key_id, api_key_secret = secrets.token_hex(10), secrets.token_urlsafe(16)
    encoded = base64.b64encode(f"{api_key_id}:{api_key_secret}".encode()).decode()

    basic_port, mtls_port, api_key_port = free_port(), free_port(), free_port()
    conf = root / "nginx.conf"
    conf.write_text(
        NGINX_CONF.format(
            root=root,
            upstream=_upstream_hostport(upstream_url),
            basic_port=basic_port,
            mtls_port=mtls_port,
            api_key_port=api_key_port,
            api_key=encoded,
        )
    )
    log = root / "error.log"
    process = subprocess.Popen(
        [binary, "-p", str(root), "-e", str(log), "-c", str(conf)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=(root / "nginx.stderr").open("wb"),
    )
    try:
        _wait_listening([basic_port, mtls_port, api_key_port], process, log)
        yield TLSProxy(
            root=root,
            basic_url=f"https://127.0.0.1:{basic_port}",
            mtls_url=f"https://127.0.0.1:{mtls_port}",
            upstream_url=upstream_url,
            ca_pem=root / "ca.pem",
            client_cert=root / "client.pem",
            client_key=root / "client.key",
            username=username,
            password_file=password_file,
            api_key_url=f"https://127.0.0.1:{api_key_port}",
            api_key_id=api_key_id,
            api_key_secret=api_key_secret,
        )
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
