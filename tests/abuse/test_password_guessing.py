"""The password-guessing throttle (calpress/auth/throttle.py): off by default as in the reference;
when on, failed logins are counted per user name and per client address in the database, and
attempts are refused with 429 ``too_many_retries``, unchecked and uncounted, while either count
is full. Every scenario uses addresses of its own (documentation ranges)."""

from __future__ import annotations

import base64
import datetime as dt
import threading
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from appfixtures import RestClient, create_account

from calpress.app import Calpress
from calpress.auth import throttle
from calpress.cli import build_parser
from calpress.config import load_settings
from calpress.store.tables import login_failures

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
ME = "/cms/v2/users/me"
LOCKED = {"code": "too_many_retries", "message": "Too many failed login attempts. Please try again in 1 minute.", "data": {"status": 429}}


def basic(login: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}


def rest(client: RestClient, login: str, password: str, addr: str):
    return client.http.simulate_get(ME, headers=basic(login, password), remote_addr=addr)


def form(client: RestClient, login: str, password: str, addr: str):
    body = f"log={quote(login, safe='')}&pwd={quote(password, safe='')}"
    return client.http.simulate_post("/wp-login.php", body=body, headers=FORM, remote_addr=addr)


def stored(app: Calpress) -> dict[str, int]:
    with app.site.read() as conn:
        return dict(conn.execute(sa.select(login_failures.c.key, login_failures.c.count)).all())


def build(settings, **overrides) -> Calpress:
    return Calpress(settings.with_overrides(**overrides), upgrade=False)


@pytest.fixture()
def throttled(settings):
    """An app whose throttle is on: 3 failures lock for 60 seconds."""
    app = build(settings, login_max_failures=3, login_lockout=60)
    yield app
    app.site.close()


@pytest.fixture()
def tclient(throttled) -> RestClient:
    return RestClient(throttled)


@pytest.fixture()
def clock(monkeypatch):
    """The throttle's time, moved on by hand: ``clock.now += dt.timedelta(seconds=61)``."""

    class Clock:
        now = dt.datetime(2026, 3, 1, 12, 0, 0)

    monkeypatch.setattr(throttle, "utcnow", lambda: Clock.now)
    return Clock


# -- off by default -------------------------------------------------------------------------------


def test_the_throttle_is_off_by_default_and_touches_no_table(app, client, make_account, monkeypatch):
    assert app.settings.login_max_failures == 0 and app.settings.login_lockout == 900
    alice = make_account("alice")

    def untouched(*args, **kwargs):
        raise AssertionError("the throttle used the database while off")

    for name in ("lockout_left", "record_failure", "clear", "purge"):
        monkeypatch.setattr(throttle, name, untouched)
    for _ in range(10):
        assert rest(client, "alice", "wrong wrong wrong", "192.0.2.1").json["code"] == "incorrect_password"
        assert rest(client, "ghost", "wrong", "192.0.2.1").json["code"] == "invalid_username"
        assert form(client, "alice", "wrong", "192.0.2.1").status_code == 200
    assert rest(client, "alice", alice.app_password, "192.0.2.1").status_code == 200
    assert form(client, "alice", alice.password, "192.0.2.1").status_code == 302
    assert stored(app) == {}


# -- on -------------------------------------------------------------------------------------------


def test_after_too_many_failures_even_the_right_password_is_refused(tclient, throttled):
    alice = create_account(throttled, "alice", "subscriber")
    for _ in range(3):
        wrong = rest(tclient, "alice", "wrong wrong wrong", "198.51.100.1")
        assert (wrong.status_code, wrong.json["code"]) == (401, "incorrect_password")
    refused = rest(tclient, "alice", alice.app_password, "198.51.100.1")
    assert refused.status_code == 429 and refused.json == LOCKED
    again = rest(tclient, "alice", "wrong wrong wrong", "198.51.100.1")
    assert again.status_code == 429
    # Refused attempts are not counted.
    assert stored(throttled) == {"user:alice": 3, "addr:198.51.100.1": 3}


def test_a_full_address_refuses_every_user_and_other_addresses_are_unaffected(tclient, throttled):
    create_account(throttled, "alice", "subscriber")
    bob = create_account(throttled, "bob", "subscriber")
    carol = create_account(throttled, "carol", "subscriber")
    for _ in range(3):
        assert rest(tclient, "alice", "wrong", "198.51.100.2").status_code == 401
    assert rest(tclient, "bob", bob.app_password, "198.51.100.2").json == LOCKED  # the address is full
    assert rest(tclient, "alice", "wrong", "198.51.100.3").json == LOCKED  # so is alice's count
    assert rest(tclient, "carol", carol.app_password, "198.51.100.3").status_code == 200
    assert rest(tclient, "bob", bob.app_password, "198.51.100.4").status_code == 200


def test_unknown_user_names_and_email_addresses_count(tclient, throttled):
    alice = create_account(throttled, "alice", "subscriber")
    assert rest(tclient, "ghost1", "x", "198.51.100.5").json["code"] == "invalid_username"
    assert rest(tclient, "Ghost@Example.test", "x", "198.51.100.5").json["code"] == "invalid_email"
    assert rest(tclient, "ghost2", "x", "198.51.100.5").json["code"] == "invalid_username"
    assert rest(tclient, "alice", alice.app_password, "198.51.100.5").json == LOCKED
    # One unknown name guessed from several addresses is locked too (the name as sent, any case).
    for addr in ("198.51.100.6", "198.51.100.7", "198.51.100.8"):
        assert rest(tclient, " GHOST3 ", "x", addr).json["code"] == "invalid_username"
    assert rest(tclient, "ghost3", "x", "198.51.100.9").json == LOCKED
    counts = stored(throttled)
    assert counts["user:ghost@example.test"] == 1 and counts["user:ghost3"] == 3 and counts["addr:198.51.100.5"] == 3


def test_the_lockout_ends_when_its_window_has_passed(tclient, throttled, clock):
    alice = create_account(throttled, "alice", "subscriber")
    for _ in range(3):
        assert rest(tclient, "alice", "wrong", "198.51.100.10").status_code == 401
    clock.now += dt.timedelta(seconds=59)
    assert rest(tclient, "alice", alice.app_password, "198.51.100.10").json == LOCKED
    clock.now += dt.timedelta(seconds=1)
    # A failure after the window starts a new one, counted from 1.
    assert rest(tclient, "alice", "wrong", "198.51.100.10").json["code"] == "incorrect_password"
    assert stored(throttled) == {"user:alice": 1, "addr:198.51.100.10": 1}
    with throttled.site.read() as conn:
        starts = set(conn.execute(sa.select(login_failures.c.window_start_utc)).scalars())
    assert starts == {clock.now}
    assert rest(tclient, "alice", alice.app_password, "198.51.100.10").status_code == 200


def test_a_success_clears_the_users_count_but_not_the_addresss(tclient, throttled):
    alice = create_account(throttled, "alice", "subscriber")
    create_account(throttled, "mallory", "subscriber")
    for _ in range(2):
        assert rest(tclient, "alice", "wrong", "198.51.100.11").status_code == 401
    assert rest(tclient, "alice", alice.app_password, "198.51.100.11").status_code == 200
    assert stored(throttled) == {"addr:198.51.100.11": 2}
    # Logging into one's own account does not reset the address: one more guess fills it.
    assert rest(tclient, "mallory", "wrong", "198.51.100.11").status_code == 401
    assert rest(tclient, "alice", alice.app_password, "198.51.100.11").json == LOCKED
    assert rest(tclient, "alice", alice.app_password, "198.51.100.12").status_code == 200


def test_disabled_application_passwords_are_not_a_failure(settings):
    app = build(settings, login_max_failures=3, login_lockout=60, environment="production")
    try:
        client = RestClient(app)
        alice = create_account(app, "alice", "subscriber")
        for password in ("wrong", alice.app_password, "wrong", alice.app_password):
            assert rest(client, "alice", password, "198.51.100.13").json["code"] == "application_passwords_disabled"
        assert stored(app) == {}
    finally:
        app.site.close()


def test_the_login_form_is_throttled_and_answers_429(tclient, throttled):
    alice = create_account(throttled, "alice", "subscriber")
    for _ in range(2):
        page = form(tclient, "alice", "wrong", "203.0.113.1")
        assert page.status_code == 200 and "is incorrect" in page.text
    assert rest(tclient, "alice", "wrong", "203.0.113.1").status_code == 401  # one count for both ways in
    refused = form(tclient, "alice", alice.password, "203.0.113.1")
    assert refused.status_code == 429
    assert '<div class="error" id="login_error"><strong>Error:</strong> Too many failed login attempts. Please try again in 1 minute.</div>' in refused.text
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert "set-cookie" not in refused.headers
    assert stored(throttled) == {"user:alice": 3, "addr:203.0.113.1": 3}
    # Unknown names count on the form too, and a success there clears the user's count only.
    for _ in range(3):
        assert "is not registered" in form(tclient, "ghost", "wrong", "203.0.113.2").text
    assert form(tclient, "ghost", "wrong", "203.0.113.3").status_code == 429
    bob = create_account(throttled, "bob", "subscriber")
    assert form(tclient, "bob", bob.password, "203.0.113.2").status_code == 429
    assert form(tclient, "bob", "wrong", "203.0.113.4").status_code == 200
    assert form(tclient, "bob", bob.password, "203.0.113.4").status_code == 302
    counts = stored(throttled)
    assert "user:bob" not in counts and counts["addr:203.0.113.4"] == 1


def test_concurrent_failures_are_all_counted(settings):
    app = build(settings, login_max_failures=1000, login_lockout=60)
    guard = app.authenticator.throttle
    threads, rounds = 6, 10
    start = threading.Barrier(threads)
    errors: list[BaseException] = []

    def guess() -> None:
        try:
            start.wait(timeout=30)
            for _ in range(rounds):
                attempt = guard.check("alice", "203.0.113.5")
                assert attempt.retry_after == 0
                guard.failed(attempt)
        except BaseException as err:  # reported below
            errors.append(err)

    try:
        running = [threading.Thread(target=guess) for _ in range(threads)]
        for thread in running:
            thread.start()
        for thread in running:
            thread.join(timeout=120)
        assert errors == []
        assert stored(app) == {"user:alice": threads * rounds, "addr:203.0.113.5": threads * rounds}
    finally:
        app.site.close()


def test_rows_of_long_past_windows_are_deleted(tclient, throttled, clock):
    create_account(throttled, "alice", "subscriber")  # Basic credentials count once some application password exists
    for _ in range(3):
        rest(tclient, "ghost", "x", "203.0.113.6")
    clock.now += dt.timedelta(seconds=121)
    throttled.authenticator.throttle._next_purge = 0.0
    rest(tclient, "ghost2", "x", "203.0.113.7")
    assert stored(throttled) == {"user:ghost2": 1, "addr:203.0.113.7": 1}


# -- keys, messages, settings ---------------------------------------------------------------------


def test_long_keys_are_hashed_within_the_column(tclient, throttled):
    create_account(throttled, "alice", "subscriber")
    long_name = "g" * 1000
    assert rest(tclient, long_name, "x", "203.0.113.8").json["code"] == "invalid_username"
    key = throttle.user_key(long_name)
    assert len(key) <= 200 and key == throttle.user_key(long_name.upper()) != throttle.user_key("g" * 999)
    assert stored(throttled)[key] == 1


def test_the_message_gives_the_minutes_left_rounded_up():
    assert throttle.retry_message(1) == "Too many failed login attempts. Please try again in 1 minute."
    assert throttle.retry_message(60) == "Too many failed login attempts. Please try again in 1 minute."
    assert throttle.retry_message(61) == "Too many failed login attempts. Please try again in 2 minutes."
    assert throttle.retry_message(900) == "Too many failed login attempts. Please try again in 15 minutes."


def test_the_settings_are_read_checked_and_documented(tmp_path):
    env = {"CALPRESS_DATA_DIR": str(tmp_path), "CALPRESS_LOGIN_MAX_FAILURES": "5", "CALPRESS_LOGIN_LOCKOUT": "300"}
    settings = load_settings(environ=env)
    assert (settings.login_max_failures, settings.login_lockout) == (5, 300)
    with pytest.raises(ValueError, match="CALPRESS_LOGIN_MAX_FAILURES"):
        load_settings(environ={**env, "CALPRESS_LOGIN_MAX_FAILURES": "-1"})
    with pytest.raises(ValueError, match="CALPRESS_LOGIN_LOCKOUT"):
        load_settings(environ={**env, "CALPRESS_LOGIN_LOCKOUT": "-5"})
    with pytest.raises(ValueError, match="CALPRESS_LOGIN_LOCKOUT"):
        load_settings(environ={**env, "CALPRESS_LOGIN_LOCKOUT": "0"})
    help_text = build_parser().format_help()
    assert "CALPRESS_LOGIN_MAX_FAILURES" in help_text and "CALPRESS_LOGIN_LOCKOUT" in help_text
