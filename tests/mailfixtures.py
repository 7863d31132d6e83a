"""A real SMTP server for the tests: aiosmtpd's ``Controller`` on a free loopback port, keeping
every message it receives (envelope and parsed message). Plain by default; ``tls_files`` makes a
self-signed certificate for ``localhost`` and 127.0.0.1 (for STARTTLS or TLS from the start)."""

from __future__ import annotations

import datetime as dt
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from appfixtures import free_port


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage

    @property
    def body(self) -> str:
        """The text, with the wire's CRLF line ends read as LF."""
        return self.message.get_body(("plain",)).get_content().replace("\r\n", "\n")


class _Collect:
    def __init__(self, box: MailCatcher) -> None:
        self.box = box

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        parsed = message_from_bytes(envelope.original_content or envelope.content, policy=policy.default)
        with self.box.lock:
            self.box.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), parsed))  # type: ignore[arg-type]
        return "250 Message accepted for delivery"


class MailCatcher:
    """The messages one server received, in order; ``url`` is its CALPRESS_SMTP_URL."""

    def __init__(self) -> None:
        self.messages: list[Received] = []
        self.lock = threading.Lock()
        self.port = 0
        self.logins: list[tuple[str, str]] = []

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def wait(self, count: int = 1, timeout: float = 10) -> list[Received]:
        """The first ``count`` messages, waiting for them to arrive (a server process sends)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.messages) >= count:
                    return list(self.messages[:count])
            time.sleep(0.02)
        raise AssertionError(f"expected {count} messages, got {len(self.messages)}")


def _authenticator(box: MailCatcher, user: str, password: str) -> Any:
    def check(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
        login = auth_data.login.decode() if isinstance(auth_data.login, bytes) else str(auth_data.login)
        given = auth_data.password.decode() if isinstance(auth_data.password, bytes) else str(auth_data.password)
        box.logins.append((login, given))
        ok = (login, given) == (user, password)
        return AuthResult(success=ok, handled=ok)  # handled=False: aiosmtpd answers 535 itself

    return check


@contextmanager
def smtp_server(*, user: str = "", password: str = "", starttls: ssl.SSLContext | None = None,
                tls: ssl.SSLContext | None = None) -> Iterator[MailCatcher]:
    """A running server: plain, with STARTTLS (``starttls``: the server's context; required then)
    or TLS from the first byte (``tls``); with ``user`` it requires that login."""
    box = MailCatcher()
    box.port = free_port()
    kwargs: dict[str, Any] = {}
    if user:
        kwargs.update(authenticator=_authenticator(box, user, password), auth_required=True,
                      auth_require_tls=starttls is not None or tls is not None)
    if starttls is not None:
        kwargs.update(tls_context=starttls, require_starttls=True)
    if tls is not None:
        kwargs.update(ssl_context=tls)
    controller = Controller(_Collect(box), hostname="127.0.0.1", port=box.port, server_hostname="localhost", **kwargs)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


@dataclass
class TlsFiles:
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context


def make_tls_files(folder: Path) -> TlsFiles:
    """A self-signed certificate for ``localhost`` and 127.0.0.1 and its key, written to ``folder``."""
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                    x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    files = TlsFiles(folder / "smtp-cert.pem", folder / "smtp-key.pem")
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()))
    return files
