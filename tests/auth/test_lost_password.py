"""Lost password (wp-login.php ``lostpassword``, ``rp``, ``resetpass``) with a real SMTP server
(aiosmtpd on loopback): the mail as received, its link followed with the test client, the key's
rules (hashed, 24 hours, once, voided by a new request or a password change), the same answer
for unknown accounts, the throttle, login sessions ended, no SMTP (the log), a failing server;
and the whole way through a real ``calpress serve`` process."""

from __future__ import annotations

import json
import logging
import re
import time
from urllib.parse import urlencode, urlsplit

import httpx
import pytest
from appfixtures import serving
from mailfixtures import smtp_server

from calpress.auth import password_reset, sessions, users
from calpress.pages.auth import RESETPASS_COOKIE

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
LINK = re.compile(r"^(http://example\.test/wp-login\.php\?action=rp&key=([A-Za-z0-9]{20})&login=([^\s]+))$", re.M)


@pytest.fixture()
def mailbox():
    with smtp_server() as box:
        yield box


@pytest.fixture()
def smtp_url(mailbox) -> str:
    return mailbox.url


@pytest.fixture()
def settings(settings, smtp_url):
    """The app's settings with mail through the test's SMTP server (``smtp_url``: "" for none)."""
    return settings.with_overrides(smtp_url=smtp_url)


@pytest.fixture()
def ana(make_account):
    return make_account("ana", "editor")


def post(client, path, fields, *, cookies=None, remote_addr="127.0.0.1"):
    return client.http.simulate_post(path, body=urlencode(fields), headers=FORM, cookies=cookies or {},
                                     remote_addr=remote_addr)


def ask(client, login, **kwargs):
    response = post(client, "/wp-login.php?action=lostpassword", {"user_login": login}, **kwargs)
    assert response.status_code == 303 and response.headers["location"] == "/wp-login.php?checkemail=confirm", response.text
    return response


def link_of(received):
    found = LINK.search(received.body)
    assert found, received.body
    return found.group(1), found.group(2)


def follow(client, link):
    """The mail's link: a redirect that moves the key into the reset cookie; returns that cookie."""
    parts = urlsplit(link)
    response = client.http.simulate_get(parts.path, query_string=parts.query)
    assert response.status_code == 302 and response.headers["location"] == "/wp-login.php?action=rp"
    cookie = response.cookies[RESETPASS_COOKIE]
    assert cookie.path == "/wp-login.php" and cookie.http_only
    return {RESETPASS_COOKIE: cookie.value}


def log_in(client, login, password):
    response = post(client, "/wp-login.php", {"log": login, "pwd": password})
    if response.status_code != 302:
        return None
    return response.cookies[sessions.LOGIN_COOKIE].value


def stored_reset(app, user_id):
    with app.site.read() as conn:
        return users.get_user(conn, user_id).meta.get(password_reset.META_KEY)


# -- the whole way --------------------------------------------------------------------------------


def test_the_mail_and_its_link_reset_the_password(client, app, ana, mailbox):
    page = client.http.simulate_get("/wp-login.php", params={"action": "lostpassword"})
    assert page.status_code == 200 and "Lost Password" in page.text
    assert 'name="user_login"' in page.text and '<label for="user_login">Username or Email Address</label>' in page.text
    assert "Mail is not set up" not in page.text
    assert 'href="/wp-login.php?action=lostpassword">Lost your password?' in client.http.simulate_get("/wp-login.php").text

    ask(client, "ana")
    confirm = client.http.simulate_get("/wp-login.php", params={"checkemail": "confirm"})
    assert "Check your email for the confirmation link, then visit the" in confirm.text

    (received,) = mailbox.wait(1)
    assert received.rcpt_tos == ["ana@example.test"]
    assert received.mail_from == "wordpress@example.test"
    assert received.message["From"] == "WordPress <wordpress@example.test>"
    assert received.message["To"] == "ana@example.test"
    assert received.message["Subject"] == "[calpress] Password Reset"
    link, key = link_of(received)
    assert received.body == (
        "Someone has requested a password reset for the following account:\n\nSite Name: calpress\n\nUsername: ana\n\n"
        "If this was a mistake, ignore this email and nothing will happen.\n\n"
        "To reset your password, visit the following address:\n\n"
        f"{link}\n\nThis password reset request originated from the IP address 127.0.0.1.\n")
    assert link == f"http://example.test/wp-login.php?action=rp&key={key}&login=ana"
    # Stored hashed, with its time: never the key itself.
    stored = stored_reset(app, ana.id)
    assert set(stored) == {"created", "hash"} and abs(stored["created"] - time.time()) < 60
    with app.site.read() as conn:
        assert key not in json.dumps(users.get_user(conn, ana.id).meta)

    cookies = follow(client, link)
    form = client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=cookies)
    assert form.status_code == 200 and "Reset Password" in form.text
    assert f'name="rp_key" value="{key}"' in form.text
    assert '<label for="pass1">New password</label>' in form.text and '<label for="pass2">Confirm new password</label>' in form.text
    assert "Hint: The password should be at least twelve characters long." in form.text
    nonce = re.search(r"'nonce-([^']+)'", form.headers["content-security-policy"]).group(1)
    assert f'<script nonce="{nonce}">' in form.text and "Strength: " in form.text  # the meter runs under the CSP
    assert form.headers["x-frame-options"] == "SAMEORIGIN"

    done = post(client, "/wp-login.php?action=resetpass", {"pass1": "a brand new secret", "pass2": "a brand new secret",
                                                             "rp_key": key}, cookies=cookies)
    assert done.status_code == 200 and "Your password has been reset." in done.text
    assert 'href="/wp-login.php">Log in</a>' in done.text
    assert done.cookies[RESETPASS_COOKIE].value == ""  # dropped
    assert stored_reset(app, ana.id) is None
    assert log_in(client, "ana", ana.password) is None
    assert log_in(client, "ana", "a brand new secret")


def test_by_email_address_too(client, ana, mailbox):
    ask(client, "ANA@example.test")
    assert mailbox.wait(1)[0].rcpt_tos == ["ana@example.test"]


def test_unknown_accounts_get_the_same_answer_and_no_mail(client, ana, mailbox):
    known = ask(client, "ana")
    for login in ("ghost", "ghost@example.test", "<script>alert(1)</script>"):
        unknown = ask(client, login)
        assert (unknown.status_code, unknown.headers["location"], unknown.text) == (
            known.status_code, known.headers["location"], known.text)
    assert len(mailbox.messages) == 1
    empty = post(client, "/wp-login.php?action=lostpassword", {"user_login": "  "})
    assert empty.status_code == 200 and "Please enter a username or email address." in empty.text


# -- the key's rules ------------------------------------------------------------------------------


def test_an_expired_key_is_refused(client, app, ana, mailbox):
    ask(client, "ana")
    link, key = link_of(mailbox.wait(1)[0])

    def age(seconds):
        with app.site.write() as conn:
            user = users.get_user(conn, ana.id)
            meta = dict(user.meta)
            meta[password_reset.META_KEY] = {**meta[password_reset.META_KEY], "created": int(time.time()) - seconds}
            users.update_user(conn, ana.id, {"meta": meta})

    age(24 * 3600 - 60)  # a minute left
    cookies = follow(client, link)
    assert client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=cookies).status_code == 200
    age(24 * 3600 + 1)
    page = client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=cookies)
    assert page.status_code == 302 and page.headers["location"] == "/wp-login.php?action=lostpassword&error=expiredkey"
    assert page.cookies[RESETPASS_COOKIE].value == ""
    refused = post(client, "/wp-login.php?action=resetpass", {"pass1": "new secret", "pass2": "new secret", "rp_key": key},
                   cookies=cookies)
    assert refused.headers["location"] == "/wp-login.php?action=lostpassword&error=expiredkey"
    shown = client.http.simulate_get("/wp-login.php", params={"action": "lostpassword", "error": "expiredkey"})
    assert "<strong>Error:</strong> Your password reset link has expired. Please request a new link below." in shown.text
    assert log_in(client, "ana", ana.password)  # nothing changed


def test_a_key_works_once(client, ana, mailbox):
    ask(client, "ana")
    link, key = link_of(mailbox.wait(1)[0])
    cookies = follow(client, link)
    fields = {"pass1": "first new secret", "pass2": "first new secret", "rp_key": key}
    assert "Your password has been reset." in post(client, "/wp-login.php?action=resetpass", fields, cookies=cookies).text
    again = post(client, "/wp-login.php?action=resetpass", {**fields, "pass1": "second", "pass2": "second"}, cookies=cookies)
    assert again.status_code == 302 and again.headers["location"] == "/wp-login.php?action=lostpassword&error=invalidkey"
    page = client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=follow(client, link))
    assert page.headers["location"] == "/wp-login.php?action=lostpassword&error=invalidkey"
    shown = client.http.simulate_get("/wp-login.php", params={"action": "lostpassword", "error": "invalidkey"})
    assert "Your password reset link appears to be invalid. Please request a new link below." in shown.text
    assert log_in(client, "ana", "first new secret") and not log_in(client, "ana", "second")


def test_wrong_keys_logins_and_forged_forms_are_refused(client, ana, mailbox):
    ask(client, "ana")
    link, key = link_of(mailbox.wait(1)[0])
    wrong = key[:-1] + ("A" if key[-1] != "A" else "B")
    for bad in (link.replace(key, wrong), link.replace("login=ana", "login=ghost"), link.replace(f"key={key}", "key=")):
        page = client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=follow(client, bad))
        assert page.headers["location"] == "/wp-login.php?action=lostpassword&error=invalidkey"
    # No cookie at all, and a form whose rp_key is not the cookie's.
    assert client.http.simulate_get("/wp-login.php", params={"action": "rp"}).headers["location"].endswith("error=invalidkey")
    forged = post(client, "/wp-login.php?action=resetpass", {"pass1": "x y z", "pass2": "x y z", "rp_key": wrong},
                  cookies=follow(client, link))
    assert forged.headers["location"].endswith("error=invalidkey")
    # Only known error codes are shown.
    assert "Error" not in client.http.simulate_get("/wp-login.php", params={"action": "lostpassword", "error": "<b>x</b>"}).text
    assert log_in(client, "ana", ana.password)


def test_a_new_request_or_a_password_change_voids_the_key(client, app, ana, mailbox):
    ask(client, "ana")
    first_link, _ = link_of(mailbox.wait(1)[0])
    ask(client, "ana")
    second_link, second_key = link_of(mailbox.wait(2)[1])
    refused = client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=follow(client, first_link))
    assert refused.headers["location"].endswith("error=invalidkey")
    cookies = follow(client, second_link)
    assert client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=cookies).status_code == 200
    with app.site.write() as conn:  # changed elsewhere (the profile, the REST API, the command line)
        users.update_user(conn, ana.id, {"password": "changed elsewhere"})
    assert client.http.simulate_get("/wp-login.php", params={"action": "rp"}, cookies=cookies).headers[
        "location"].endswith("error=invalidkey")


def test_the_new_passwords_must_match_and_not_be_blank(client, ana, mailbox):
    ask(client, "ana")
    link, key = link_of(mailbox.wait(1)[0])
    cookies = follow(client, link)
    for fields, message in (
        ({"pass1": "one secret", "pass2": "another secret"}, "<strong>Error:</strong> The passwords do not match."),
        ({"pass1": "   ", "pass2": "   "}, "The password cannot be a space or all spaces."),
        ({"pass1": "", "pass2": ""}, "<strong>Error:</strong> Please enter a password."),
    ):
        page = post(client, "/wp-login.php?action=resetpass", {**fields, "rp_key": key}, cookies=cookies)
        assert page.status_code == 200 and message in page.text and 'id="resetpassform"' in page.text
    assert log_in(client, "ana", ana.password)  # unchanged, and the key still works:
    page = post(client, "/wp-login.php?action=resetpass", {"pass1": " padded secret ", "pass2": "padded secret",
                                                           "rp_key": key}, cookies=cookies)
    assert "Your password has been reset." in page.text
    assert log_in(client, "ana", "padded secret")  # trimmed, as the reference


def test_the_accounts_login_sessions_end(client, app, ana, make_account, mailbox):
    cookie = log_in(client, "ana", ana.password)
    other = make_account("bob", "author")
    other_cookie = log_in(client, "bob", other.password)

    def nonce_page(value):
        return client.http.simulate_get("/wp-admin/admin-ajax.php", params={"action": "rest-nonce"},
                                        cookies={sessions.LOGIN_COOKIE: value})

    assert nonce_page(cookie).status_code == 200
    # The cookie signs a fragment of the password hash (auth/sessions.py): a new hash voids it.
    with app.site.read() as conn:
        before = users.get_user(conn, ana.id).password_hash
    assert sessions.verify_login_cookie(app.settings.secret_key, cookie, before)
    ask(client, "ana")
    link, key = link_of(mailbox.wait(1)[0])
    post(client, "/wp-login.php?action=resetpass", {"pass1": "new secret!", "pass2": "new secret!", "rp_key": key},
         cookies=follow(client, link))
    with app.site.read() as conn:
        after = users.get_user(conn, ana.id).password_hash
    assert after != before and sessions.verify_login_cookie(app.settings.secret_key, cookie, after) is None
    assert nonce_page(cookie).status_code == 400  # logged out
    assert client.http.simulate_get("/wp-admin/", cookies={sessions.LOGIN_COOKIE: cookie}).status_code in (302, 303)
    assert nonce_page(other_cookie).status_code == 200  # another account's session goes on


# -- throttling -----------------------------------------------------------------------------------


def test_at_most_three_mails_an_hour_per_account(client, app, ana, mailbox):
    for _ in range(4):
        ask(client, "ana")
    assert len(mailbox.messages) == 3
    # An hour later the account may get mail again.
    with app.site.write() as conn:
        user = users.get_user(conn, ana.id)
        meta = {**user.meta, password_reset.SENT_KEY: [t - 3600 for t in user.meta[password_reset.SENT_KEY]]}
        users.update_user(conn, ana.id, {"meta": meta})
    ask(client, "ana")
    assert len(mailbox.messages) == 4


def test_at_most_ten_requests_an_hour_per_address(client, ana, make_account, mailbox):
    for n in range(password_reset.ADDRESS_REQUESTS):
        ask(client, f"ghost{n}", remote_addr="10.0.0.9")
    ask(client, "ana", remote_addr="10.0.0.9")  # the same answer, and nothing sent
    assert mailbox.messages == []
    ask(client, "ana", remote_addr="10.0.0.10")
    assert len(mailbox.wait(1)) == 1


def test_address_counts_of_past_hours_are_purged(client, app, monkeypatch):
    import datetime as dt

    import sqlalchemy as sa

    from calpress.auth import throttle
    from calpress.store.tables import login_failures

    def keys():
        with app.site.read() as conn:
            return sorted(conn.execute(sa.select(login_failures.c.key)).scalars())

    ask(client, "ghost", remote_addr="10.0.0.7")
    assert keys() == ["reset-addr:10.0.0.7"]
    later = throttle.utcnow() + dt.timedelta(seconds=password_reset.WINDOW + 1)
    monkeypatch.setattr(throttle, "utcnow", lambda: later)
    monkeypatch.setattr(password_reset, "_next_purge", 0.0)
    ask(client, "ghost", remote_addr="10.0.0.8")
    assert keys() == ["reset-addr:10.0.0.8"]


# -- without mail, and when mail fails ------------------------------------------------------------


@pytest.mark.parametrize("smtp_url", [""])
def test_without_smtp_the_link_goes_to_the_log(client, ana, caplog):
    page = client.http.simulate_get("/wp-login.php", params={"action": "lostpassword"})
    assert "Mail is not set up on this site, so the reset link cannot be emailed to you." in page.text
    caplog.set_level(logging.WARNING, logger="calpress.mail")
    ask(client, "ghost")
    assert [r for r in caplog.records if r.name == "calpress.mail"] == []
    ask(client, "ana")
    (record,) = [r for r in caplog.records if r.name == "calpress.mail"]
    assert record.levelno == logging.WARNING and "Mail is not set up" in record.getMessage()
    link = LINK.search(record.getMessage().split(": ", 1)[1].strip()).group(1)
    confirm = client.http.simulate_get("/wp-login.php", params={"checkemail": "confirm"})
    assert "Mail is not set up on this site, so no email was sent." in confirm.text
    # The administrator hands the link on; it works as a mailed one.
    key = re.search(r"key=(\w+)", link).group(1)
    page = post(client, "/wp-login.php?action=resetpass", {"pass1": "from the log", "pass2": "from the log", "rp_key": key},
                cookies=follow(client, link))
    assert "Your password has been reset." in page.text


@pytest.mark.parametrize("smtp_url", ["smtp://127.0.0.1:1?timeout=2"])  # nobody listens on port 1
def test_a_failing_mail_server_is_reported_not_a_500(client, ana, caplog):
    caplog.set_level(logging.ERROR, logger="calpress.mail")
    page = post(client, "/wp-login.php?action=lostpassword", {"user_login": "ana"})
    assert page.status_code == 200
    assert "<strong>Error:</strong> The email could not be sent." in page.text and 'value="ana"' in page.text
    assert any("could not be sent" in r.getMessage() for r in caplog.records if r.name == "calpress.mail")


# -- a real server --------------------------------------------------------------------------------


def test_through_a_real_server(db_url, tmp_path, mailbox):
    with serving(db_url, tmp_path, smtp_url=mailbox.url, mail_from="Events <events@example.org>") as server:
        server.cli("user", "create", "ana", "ana@example.test", "--role=author", "--user_pass=old secret")
        with httpx.Client(base_url=server.url, timeout=20) as browser:
            sent = browser.post("/wp-login.php?action=lostpassword", data={"user_login": "ana"})
            assert sent.status_code == 303 and sent.headers["location"] == "/wp-login.php?checkemail=confirm"
            (received,) = mailbox.wait(1)
            assert received.rcpt_tos == ["ana@example.test"] and received.mail_from == "events@example.org"
            assert received.message["Subject"] == "[calpress] Password Reset"
            link = re.search(r"^http://\S+$", received.body, re.M).group(0)
            assert link.startswith(f"{server.url}/wp-login.php?action=rp&key=")
            moved = browser.get(link)  # the cookie jar keeps the reset cookie
            assert moved.status_code == 302 and moved.headers["location"] == "/wp-login.php?action=rp"
            form = browser.get("/wp-login.php?action=rp")
            key = re.search(r'name="rp_key" value="(\w+)"', form.text).group(1)
            done = browser.post("/wp-login.php?action=resetpass", data={"pass1": "new secret", "pass2": "new secret",
                                                                       "rp_key": key})
            assert "Your password has been reset." in done.text
            assert browser.post("/wp-login.php", data={"log": "ana", "pwd": "old secret"}).status_code == 200
            assert browser.post("/wp-login.php", data={"log": "ana", "pwd": "new secret"}).status_code == 302
