"""The client-side TLS context both engines' clients use, built from the settings.

The CA file (``OSRAG_CA_CERTS``) or the system trust store (certifi if the
system has none), host names checked, TLS ≥ 1.2, and the client certificate
loaded up front so a missing file, a key that does not match, or an encrypted
key is a :class:`~osrag.errors.ConfigError` naming the file — never a
passphrase prompt or an error on the first request. ``OSRAG_VERIFY_CERTS=false``
turns verification off with one :class:`InsecureTLSWarning`.
"""

from __future__ import annotations

import ssl
import warnings
from pathlib import Path

from osrag.config import Settings, env_name
from osrag.errors import ConfigError


class InsecureTLSWarning(UserWarning):
    """TLS certificate verification is off (``OSRAG_VERIFY_CERTS=false``)."""


def tls_context(settings: Settings) -> ssl.SSLContext:
    """The client-side TLS context for ``settings`` (see the module docstring)."""
    if settings.ca_certs is not None:
        context = _context_trusting(settings.ca_certs)
    else:
        context = ssl.create_default_context()
        if context.cert_store_stats()["x509_ca"] == 0:
            import certifi  # a dependency of opensearch-py (via requests)

            context.load_verify_locations(cafile=certifi.where())
    if settings.client_cert is not None:
        _load_client_certificate(context, settings.client_cert, settings.client_key)
    if not settings.verify_certs:
        from urllib3.exceptions import InsecureRequestWarning

        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        # One clear warning from us instead of one per request from urllib3.
        warnings.filterwarnings("ignore", category=InsecureRequestWarning)
        warnings.warn(
            f"TLS certificate verification is off for {settings.effective_url} "
            f"({env_name('verify_certs')}=false): anyone on the network path can "
            f"impersonate the cluster; prefer {env_name('ca_certs')}",
            InsecureTLSWarning,
            stacklevel=3,
        )
    return context


def _context_trusting(ca_certs: Path) -> ssl.SSLContext:
    if not ca_certs.is_file():
        raise ConfigError(f"the CA file {ca_certs} ({env_name('ca_certs')}) does not exist")
    try:
        return ssl.create_default_context(cafile=str(ca_certs))
    except ssl.SSLError:
        raise ConfigError(
            f"the CA file {ca_certs} ({env_name('ca_certs')}) holds no PEM certificate"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the CA file {ca_certs}: {exc.strerror}") from None


def _load_client_certificate(context: ssl.SSLContext, cert: Path, key: Path | None) -> None:
    for path, setting in ((cert, "client_cert"), (key, "client_key")):
        if path is not None and not path.is_file():
            raise ConfigError(f"the {setting} file {path} ({env_name(setting)}) does not exist")
    key_file = key or cert

    def refuse_passphrase() -> str:
        raise ConfigError(
            f"the client key {key_file} is encrypted; osrag needs an unencrypted key file "
            "readable only by you (e.g. `openssl pkey -in KEY -out KEY.plain`)"
        )

    try:
        context.load_cert_chain(str(cert), str(key) if key else None, password=refuse_passphrase)
    except ssl.SSLError as exc:
        why = (
            "the key does not belong to the certificate"
            if exc.reason == "KEY_VALUES_MISMATCH"
            else "they are not a PEM certificate and its private key"
        )
        raise ConfigError(
            f"cannot use the client certificate {cert} with key {key_file}: {why}"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the client certificate {cert}: {exc.strerror}") from None
