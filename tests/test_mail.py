"""calpress.mail against a real SMTP server (aiosmtpd on loopback): the URL forms, the sender,
the message as received, authentication, STARTTLS and TLS with a certificate made here, and
every failure turned into a MailError that names no password."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from appfixtures import free_port
from mailfixtures import make_tls_files, smtp_server

from calpress import mail
from calpress.config import load_settings


@pytest.fixture()
def mailbox():
    with smtp_server() as box:
        yield box


def settings(url: str = "", **more: str) -> SimpleNamespace:
    return SimpleNamespace(smtp_url=url, mail_from=more.get("mail_from", ""), site_url=more.get("site_url", ""))


# -- the URL --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://127.0.0.1:2525", ("127.0.0.1", 2525, "none", "", "")),
        ("smtp://mail.example.org", ("mail.example.org", 25, "none", "", "")),
        ("smtp://user:pass@mail.example.org:587?starttls=1", ("mail.example.org", 587, "starttls", "user", "pass")),
        ("smtp://mail.example.org?starttls=true", ("mail.example.org", 587, "starttls", "", "")),
        ("smtps://mail.example.org", ("mail.example.org", 465, "tls", "", "")),
        ("smtps://ana%40example.org:p%3Ass%2Fw%40rd@mail.example.org:2465",
         ("mail.example.org", 2465, "tls", "ana@example.org", "p:ss/w@rd")),
        ("SMTP://[::1]:2525", ("::1", 2525, "none", "", "")),
        ("smtp://u:p@localhost:2525", ("localhost", 2525, "none", "u", "p")),  # plain is fine on this machine
    ],
)
def test_smtp_urls(url, expected):
    server = mail.parse_url(url)
    assert (server.host, server.port, server.security, server.username, server.password) == expected
    assert server.timeout == mail.DEFAULT_TIMEOUT
    assert "pass" not in repr(server) and "p:ss" not in repr(server)  # the password never shows


def test_smtp_url_options_and_description():
    server = mail.parse_url("smtp://relay:secret@mail.example.org?starttls=1&timeout=3.5&cafile=/etc/ca.pem")
    assert (server.timeout, server.cafile) == (3.5, "/etc/ca.pem")
    assert server.describe() == "smtp://relay@mail.example.org:587 (STARTTLS)"
    assert mail.parse_url("smtps://[::1]").describe() == "smtps://[::1]:465"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://mail.example.org", "must start with smtp:// or smtps://"),
        ("mail.example.org:25", "must start with smtp:// or smtps://"),
        ("smtp://", "names no host"),
        ("smtp://mail.example.org:99999", "invalid port"),
        ("smtp://mail.example.org/inbox", "takes no path"),
        ("smtp://mail.example.org?starttls=maybe", "starttls must be 1 or 0"),
        ("smtp://mail.example.org?timeout=soon", "timeout must be a number"),
        ("smtp://mail.example.org?timeout=0", "between 0 and 300"),
        ("smtp://mail.example.org?tls=1", "unknown option 'tls'"),
        ("smtps://mail.example.org?starttls=1", "TLS already"),
        ("smtp://user:secret@mail.example.org", "would send its password unencrypted"),
    ],
)
def test_bad_smtp_urls(url, message):
    with pytest.raises(mail.MailError, match=message) as caught:
        mail.parse_url(url)
    assert "secret" not in str(caught.value)


def test_settings_read_the_variables(tmp_path):
    loaded = load_settings({"data_dir": str(tmp_path)}, environ={
        "CALPRESS_SMTP_URL": "smtp://127.0.0.1:2525", "CALPRESS_MAIL_FROM": "Events <events@example.org>"},
        store_secret=False)
    assert (loaded.smtp_url, loaded.mail_from) == ("smtp://127.0.0.1:2525", "Events <events@example.org>")
    assert mail.is_configured(loaded)
    assert not mail.is_configured(load_settings({"data_dir": str(tmp_path)}, environ={}, store_secret=False))


def test_default_sender_is_the_references():
    assert mail.sender(settings(), "https://www.events.example.org/blog") == "WordPress <wordpress@events.example.org>"
    assert mail.sender(settings(site_url="http://Example.test:8080")) == "WordPress <wordpress@example.test>"
    assert mail.sender(settings()) == "WordPress <wordpress@localhost>"
    assert mail.sender(settings(mail_from="Events <events@example.org>"), "https://x.example") == "Events <events@example.org>"


def test_headers_cannot_be_injected():
    message = mail.build_message("a@example.org", "b@example.org", "Hello\r\nBcc: victim@example.org", "Body")
    assert message["Subject"] == "Hello Bcc: victim@example.org" and message["Bcc"] is None
    for bad in ("b@example.org\r\nBcc: x@example.org", "not an address", ""):
        with pytest.raises(mail.MailError, match="Invalid recipient address"):
            mail.build_message("a@example.org", bad, "Subject", "Body")


# -- sending --------------------------------------------------------------------------------------


def test_send_delivers_to_a_real_server(mailbox):
    mail.send(settings(mailbox.url), "ana@example.org", "[Site] Hello", "Line one\nLine two: café\n",
              home="https://www.events.example.org")
    (received,) = mailbox.wait(1)
    assert received.mail_from == "wordpress@events.example.org"
    assert received.rcpt_tos == ["ana@example.org"]
    assert received.message["From"] == "WordPress <wordpress@events.example.org>"
    assert received.message["To"] == "ana@example.org"
    assert received.message["Subject"] == "[Site] Hello"
    assert received.message["Message-ID"].endswith("@events.example.org>") and received.message["Date"]
    assert received.body == "Line one\nLine two: café\n"


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")  # on loopback, on purpose
def test_send_logs_in(tmp_path):
    with smtp_server(user="relay", password="s3cret") as box:
        url = f"smtp://relay:s3cret@127.0.0.1:{box.port}"
        mail.send(settings(url, mail_from="events@example.org"), "ana@example.org", "Hi", "Body")
        assert box.wait(1)[0].mail_from == "events@example.org"
        assert box.logins == [("relay", "s3cret")]
        with pytest.raises(mail.MailError, match="refused the user name or password") as caught:
            mail.send(settings(f"smtp://relay:wrong@127.0.0.1:{box.port}"), "ana@example.org", "Hi", "Body")
        assert "wrong" not in str(caught.value) and "relay@127.0.0.1" in str(caught.value)
        assert len(box.messages) == 1


def test_starttls_with_a_private_ca(tmp_path):
    files = make_tls_files(tmp_path)
    with smtp_server(user="relay", password="s3cret", starttls=files.server_context()) as box:
        url = f"smtp://relay:s3cret@localhost:{box.port}?starttls=1&cafile={files.cert}"
        mail.send(settings(url), "ana@example.org", "Over STARTTLS", "Body")
        assert box.wait(1)[0].message["Subject"] == "Over STARTTLS"
        # Without the CA the certificate is not trusted: nothing is sent, and the password never left.
        with pytest.raises(mail.MailError, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            mail.send(settings(f"smtp://relay:s3cret@localhost:{box.port}?starttls=1"), "ana@example.org", "No", "Body")
        # A server requiring STARTTLS refuses a plain client before any mail.
        with pytest.raises(mail.MailError, match="530|STARTTLS"):
            mail.send(settings(f"smtp://localhost:{box.port}"), "ana@example.org", "No", "Body")
        assert len(box.messages) == 1 and box.logins == [("relay", "s3cret")]


def test_tls_from_the_first_byte(tmp_path):
    files = make_tls_files(tmp_path)
    with smtp_server(tls=files.server_context()) as box:
        mail.send(settings(f"smtps://localhost:{box.port}?cafile={files.cert}"), "ana@example.org", "Over TLS", "Body")
        assert box.wait(1)[0].message["Subject"] == "Over TLS"
        with pytest.raises(mail.MailError, match="certificate verify failed|CERTIFICATE_VERIFY_FAILED"):
            mail.send(settings(f"smtps://localhost:{box.port}"), "ana@example.org", "No", "Body")


def test_failures_are_mail_errors(tmp_path):
    with pytest.raises(mail.MailError, match="not set up"):
        mail.send(settings(""), "ana@example.org", "Hi", "Body")
    port = free_port()  # nobody listens
    with pytest.raises(mail.MailError, match=f"Could not send mail through smtp://127.0.0.1:{port}"):
        mail.send(settings(f"smtp://127.0.0.1:{port}?timeout=2"), "ana@example.org", "Hi", "Body")
    with pytest.raises(mail.MailError, match="Could not read the CA file"):
        mail.send(settings(f"smtps://127.0.0.1:{port}?cafile={tmp_path / 'missing.pem'}"), "ana@example.org", "Hi", "B")
    with pytest.raises(mail.MailError, match="Invalid recipient"):
        mail.send(settings(f"smtp://127.0.0.1:{port}"), "nobody", "Hi", "Body")
