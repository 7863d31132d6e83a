"""Outbound mail: the one place calpress sends e-mail (the password reset link), over SMTP.

``CALPRESS_SMTP_URL`` says where to (:func:`parse_url`); empty, mail is not set up
(:func:`is_configured`) and callers fall back on the log. ``CALPRESS_MAIL_FROM`` is the sender;
empty, ``WordPress <wordpress@<site host>>`` as the reference's wp_mail (a leading ``www.``
dropped). Mail goes straight to the configured server, not through calpress.net's guard: that
guard is for addresses that visitors and imported data name; this one only the operator sets.

:func:`send` turns every failure (refused connection, timeout, TLS, authentication, a refused
recipient, a bad URL) into :class:`MailError`, whose message names the server but never the
password. smtplib and ssl load on first use.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

log = logging.getLogger("calpress.mail")

DEFAULT_TIMEOUT = 10.0  # seconds for the connection and each SMTP command
DEFAULT_PORTS = {"smtp": 25, "smtps": 465}
_FLAGS_TRUE = ("1", "true", "yes", "on")
_FLAGS_FALSE = ("0", "false", "no", "off", "")
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


class MailError(Exception):
    """Mail could not be sent (or the SMTP URL is wrong); the message is safe to show and log."""


@dataclass(frozen=True)
class SmtpServer:
    """Where mail goes, as :func:`parse_url` read it. ``security``: ``none``, ``starttls`` or
    ``tls`` (TLS from the first byte, smtps://)."""

    host: str
    port: int
    security: str = "none"
    username: str = ""
    password: str = field(default="", repr=False)
    timeout: float = DEFAULT_TIMEOUT
    cafile: str = ""

    def describe(self) -> str:
        """The server for messages and logs: scheme, user, host and port, never the password."""
        scheme = "smtps" if self.security == "tls" else "smtp"
        user = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        tail = " (STARTTLS)" if self.security == "starttls" else ""
        return f"{scheme}://{user}{host}:{self.port}{tail}"


def parse_url(url: str) -> SmtpServer:
    """``smtp://[user[:password]@]host[:port][?starttls=1]`` (port 25, or 587 with STARTTLS) or
    ``smtps://[user[:password]@]host[:port]`` (port 465). The user and password are
    percent-decoded; query options: ``starttls``, ``timeout`` (seconds) and ``cafile`` (a CA
    file to trust besides the system's, for a private relay). A password is only sent
    encrypted: on a plain connection it is refused unless the server is on this machine.
    Raises MailError."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise MailError("CALPRESS_SMTP_URL must start with smtp:// or smtps://")
    try:
        host, port = parts.hostname or "", parts.port
    except ValueError:
        raise MailError("CALPRESS_SMTP_URL has an invalid port") from None
    if not host:
        raise MailError("CALPRESS_SMTP_URL names no host")
    if parts.path not in ("", "/"):
        raise MailError("CALPRESS_SMTP_URL takes no path")
    options: dict[str, Any] = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key == "starttls":
            if value.lower() not in _FLAGS_TRUE + _FLAGS_FALSE:
                raise MailError("CALPRESS_SMTP_URL: starttls must be 1 or 0")
            options["starttls"] = value.lower() in _FLAGS_TRUE
        elif key == "timeout":
            try:
                options["timeout"] = float(value)
            except ValueError:
                raise MailError("CALPRESS_SMTP_URL: timeout must be a number of seconds") from None
            if not 0 < options["timeout"] <= 300:
                raise MailError("CALPRESS_SMTP_URL: timeout must be between 0 and 300 seconds")
        elif key == "cafile":
            options["cafile"] = value
        else:
            raise MailError(f"CALPRESS_SMTP_URL: unknown option {key!r} (starttls, timeout, cafile)")
    if scheme == "smtps":
        if options.get("starttls"):
            raise MailError("CALPRESS_SMTP_URL: smtps:// is TLS already; starttls is for smtp://")
        security = "tls"
    else:
        security = "starttls" if options.get("starttls") else "none"
    username = unquote(parts.username or "")
    password = unquote(parts.password or "")
    if password and security == "none" and host.lower() not in LOOPBACK_HOSTS and not host.startswith("127."):
        raise MailError("CALPRESS_SMTP_URL would send its password unencrypted: use smtps:// or ?starttls=1")
    if port is None:
        port = 587 if security == "starttls" else DEFAULT_PORTS[scheme]
    return SmtpServer(host, port, security, username, password, options.get("timeout", DEFAULT_TIMEOUT),
                      options.get("cafile", ""))


def is_configured(settings: Any) -> bool:
    """Whether mail can be sent: an SMTP URL is set."""
    return bool(str(getattr(settings, "smtp_url", "") or "").strip())


def sender(settings: Any, home: str = "") -> str:
    """The From address: ``CALPRESS_MAIL_FROM``, else ``WordPress <wordpress@host>`` with the host
    of ``home`` (the site's address), else of the site URL setting, else ``localhost``."""
    configured = str(getattr(settings, "mail_from", "") or "").strip()
    if configured:
        return configured
    host = (urlsplit(home or str(getattr(settings, "site_url", "") or "")).hostname or "localhost").lower()
    host = host.removeprefix("www.")
    return f"WordPress <wordpress@{host}>"


def build_message(from_address: str, to: str, subject: str, body: str) -> EmailMessage:
    """A plain-text UTF-8 message. Line breaks in the subject become spaces (no header can be
    added through it); a recipient or sender that is not one plain address is refused."""
    for label, value in (("recipient", to), ("sender", from_address)):
        if "\r" in value or "\n" in value or "@" not in parseaddr(value)[1]:
            raise MailError(f"Invalid {label} address.")
    message = EmailMessage()
    message["From"] = from_address
    message["To"] = to
    message["Subject"] = " ".join(subject.split())
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = make_msgid(domain=parseaddr(from_address)[1].rpartition("@")[2] or "localhost")
    message.set_content(body, charset="utf-8")
    return message


def send(settings: Any, to: str, subject: str, body: str, *, home: str = "") -> None:
    """Send one plain-text message to ``to`` through the SMTP server of ``settings``, from
    :func:`sender` (``home``: the site's address, for the default sender). Raises MailError,
    also when mail is not set up."""
    if not is_configured(settings):
        raise MailError("Mail is not set up on this site (CALPRESS_SMTP_URL is empty).")
    server = parse_url(settings.smtp_url)
    message = build_message(sender(settings, home), to, subject, body)
    deliver(server, message)


def deliver(server: SmtpServer, message: EmailMessage) -> None:
    """Hand ``message`` to ``server`` (its From and To are the envelope). Raises MailError."""
    import smtplib
    import ssl

    from . import lane

    lane.leave()  # the server may take its time: the worker's other writes go on meanwhile

    envelope_from = parseaddr(str(message["From"]))[1]
    recipients = [parseaddr(str(message["To"]))[1]]
    try:
        context = ssl.create_default_context(cafile=server.cafile or None)
        if server.cafile:
            context.load_default_certs()
    except (OSError, ssl.SSLError) as err:
        raise MailError(f"Could not read the CA file of CALPRESS_SMTP_URL: {err}") from None
    where = server.describe()
    try:
        if server.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(server.host, server.port, timeout=server.timeout, context=context)
        else:
            client = smtplib.SMTP(server.host, server.port, timeout=server.timeout)
        with client:
            client.ehlo()
            if server.security == "starttls":
                client.starttls(context=context)
                client.ehlo()
            if server.username:
                client.login(server.username, server.password)
            refused = client.send_message(message, from_addr=envelope_from, to_addrs=recipients)
        if refused:
            raise MailError(f"The mail server {where} refused the recipient.")
    except MailError:
        raise
    except smtplib.SMTPAuthenticationError as err:
        raise MailError(f"The mail server {where} refused the user name or password ({err.smtp_code}).") from None
    except smtplib.SMTPRecipientsRefused:
        raise MailError(f"The mail server {where} refused the recipient.") from None
    except smtplib.SMTPResponseException as err:
        reply = err.smtp_error.decode("utf-8", "replace") if isinstance(err.smtp_error, bytes) else str(err.smtp_error)
        raise MailError(f"The mail server {where} answered {err.smtp_code}: {reply}") from None
    except smtplib.SMTPNotSupportedError as err:
        raise MailError(f"The mail server {where} does not support this: {err}") from None
    except (smtplib.SMTPException, OSError) as err:
        reason = str(err) or type(err).__name__
        raise MailError(f"Could not send mail through {where}: {reason}") from None
