"""Trusted reverse proxies (calpress/proxies.py, the setting ``trusted_proxies``): from a listed
peer only, ``Forwarded`` or ``X-Forwarded-For``/``-Proto``/``-Host`` give the client's address
(the login throttle's key, a comment's author IP, the logs), the scheme (links, Secure cookies,
the HTTPS rule of application passwords) and the host (links, when no site address is set).
From anybody else the headers change nothing. The chain is read from the right, skipping
listed proxies; garbage never fails a request."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
import sqlalchemy as sa
from appfixtures import RestClient, create_account, serving
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from calpress.app import Calpress
from calpress.config import load_settings
from calpress.proxies import PEER_KEY, TrustedProxies, forwarded_elements, parse_address, parse_networks
from calpress.store.tables import login_failures

PROXIES = "127.0.0.1, 10.0.0.0/8, ::1"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def applied(headers: dict[str, str], peer: str = "10.0.0.2", proxies: str = PROXIES) -> dict[str, str]:
    """What ``apply`` leaves of an environ from ``peer`` with ``headers``: address, scheme, host."""
    environ = {"REMOTE_ADDR": peer, "wsgi.url_scheme": "http", "HTTP_HOST": "internal:8080"}
    environ.update({"HTTP_" + name.upper().replace("-", "_"): value for name, value in headers.items()})
    TrustedProxies(proxies).apply(environ)
    assert environ[PEER_KEY] == peer
    return {"addr": environ["REMOTE_ADDR"], "scheme": environ["wsgi.url_scheme"], "host": environ["HTTP_HOST"]}


UNCHANGED = {"addr": "10.0.0.2", "scheme": "http", "host": "internal:8080"}


# -- reading the headers --------------------------------------------------------------------------


def test_the_setting_is_checked_and_normalised():
    assert [str(n) for n in parse_networks(" 127.0.0.1 ,10.1.2.3/8,, [::1], 2001:db8::/32")] == [
        "127.0.0.1/32", "10.0.0.0/8", "::1/128", "2001:db8::/32"]
    for bad in ("localhost", "10.0.0.0/33", "1.2.3.4.5", "*"):
        with pytest.raises(ValueError, match="CALPRESS_TRUSTED_PROXIES"):
            parse_networks(bad)
    loaded = load_settings({"data_dir": "/tmp/unused", "secret_key": "k"}, environ={"CALPRESS_TRUSTED_PROXIES": "10.1.0.0/16, ::1"})
    assert loaded.trusted_proxies == "10.1.0.0/16,::1/128"
    with pytest.raises(ValueError, match="CALPRESS_TRUSTED_PROXIES"):
        load_settings({"data_dir": "/tmp/unused", "secret_key": "k"}, environ={"CALPRESS_TRUSTED_PROXIES": "proxy.internal"})
    assert load_settings({"data_dir": "/tmp/unused", "secret_key": "k"}, environ={}).trusted_proxies == ""


def test_node_names_in_every_form_proxies_write():
    assert str(parse_address("192.0.2.60")) == "192.0.2.60"
    assert str(parse_address("192.0.2.60:4711")) == "192.0.2.60"
    assert str(parse_address("[2001:db8:cafe::17]:4711")) == "2001:db8:cafe::17"
    assert str(parse_address("[2001:DB8:CAFE::17]")) == "2001:db8:cafe::17"
    assert str(parse_address("2001:db8::1")) == "2001:db8::1"
    assert str(parse_address("::ffff:192.0.2.9")) == "192.0.2.9"
    for garbage in ("", "unknown", "_hidden", "_SEVKISEK", "[2001:db8::1", "[::1]x", "1.2.3.4:port", "1.2.3.4:99999999",
                    "999.1.1.1", "a" * 100, "1.2.3.4\x00", "<script>"):
        assert parse_address(garbage) is None, garbage


def test_forwarded_elements_follow_rfc_7239():
    assert forwarded_elements('for=192.0.2.60;proto=http;by=203.0.113.43, for="[2001:db8:cafe::17]:4711"') == [
        {"for": "192.0.2.60", "proto": "http", "by": "203.0.113.43"}, {"for": "[2001:db8:cafe::17]:4711"}]
    assert forwarded_elements('For="\\"quoted\\"" ; HOST=example.com') == [{"for": '"quoted"', "host": "example.com"}]
    # A broken element is an empty one (where the walk stops); its neighbours are still read.
    assert forwarded_elements("for=1.2.3.4;for=5.6.7.8, for=192.0.2.1") == [{}, {"for": "192.0.2.1"}]
    assert forwarded_elements("garbage, for=192.0.2.1") == [{}, {"for": "192.0.2.1"}]
    assert forwarded_elements('for="unterminated, for=192.0.2.1') == [{}, {"for": "192.0.2.1"}]


def test_from_an_untrusted_peer_nothing_changes():
    spoof = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example",
             "Forwarded": "for=203.0.113.9;proto=https;host=evil.example"}
    assert applied(spoof, peer="192.0.2.50") == {**UNCHANGED, "addr": "192.0.2.50"}
    assert applied(spoof, peer="10.0.0.2", proxies="") == UNCHANGED  # no proxy listed: nobody is trusted
    assert applied(spoof, peer="") == {**UNCHANGED, "addr": ""}


def test_x_forwarded_from_a_trusted_peer():
    assert applied({"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "events.example"}) == {
        "addr": "203.0.113.9", "scheme": "https", "host": "events.example"}
    assert applied({"X-Forwarded-For": "203.0.113.9"}) == {**UNCHANGED, "addr": "203.0.113.9"}
    assert applied({"X-Forwarded-Proto": "HTTPS"}) == {**UNCHANGED, "scheme": "https"}


def test_a_chain_is_read_from_the_right_skipping_trusted_hops():
    # The client wrote 1.1.1.1 itself; the edge proxy appended the client's real address.
    chain = {"X-Forwarded-For": "1.1.1.1, 203.0.113.9, 10.0.0.7, 10.0.0.8"}
    assert applied(chain)["addr"] == "203.0.113.9"
    # Every hop a trusted proxy: the leftmost is the client.
    assert applied({"X-Forwarded-For": "10.0.0.5, 10.0.0.6"})["addr"] == "10.0.0.5"
    # Per-hop schemes and hosts: the client's hop's; lists of another length: the nearest proxy's.
    assert applied({"X-Forwarded-For": "203.0.113.9, 10.0.0.7", "X-Forwarded-Proto": "https, http",
                    "X-Forwarded-Host": "public.example, internal"}) == {"addr": "203.0.113.9", "scheme": "https", "host": "public.example"}
    assert applied({"X-Forwarded-For": "203.0.113.9, 10.0.0.7", "X-Forwarded-Proto": "https"})["scheme"] == "https"
    # A hop that is no address ends the walk at the last proxy known.
    assert applied({"X-Forwarded-For": "203.0.113.9, unknown, 10.0.0.7"})["addr"] == "10.0.0.7"


def test_forwarded_from_a_trusted_peer():
    header = 'for=192.0.2.60;proto=https;host="events.example:8443", for=10.0.0.9;proto=http;host=internal'
    assert applied({"Forwarded": header}) == {"addr": "192.0.2.60", "scheme": "https", "host": "events.example:8443"}
    v6 = 'for="[2001:db8:cafe::17]:4711";proto=https;host=events.example'
    assert applied({"Forwarded": v6}, peer="::1") == {"addr": "2001:db8:cafe::17", "scheme": "https", "host": "events.example"}
    # Forwarded wins over X-Forwarded-*, unless it has nothing usable.
    both = {"Forwarded": "for=192.0.2.61", "X-Forwarded-For": "192.0.2.62"}
    assert applied(both)["addr"] == "192.0.2.61"
    assert applied({"Forwarded": ";;;,,,", "X-Forwarded-For": "192.0.2.62"})["addr"] == "192.0.2.62"
    # An obfuscated identifier is not an address: the proxy that wrote it stays the client, and
    # the scheme it reports still counts.
    assert applied({"Forwarded": "for=_hidden;proto=https"}) == {**UNCHANGED, "scheme": "https"}
    assert applied({"Forwarded": "for=unknown, for=10.0.0.9"})["addr"] == "10.0.0.9"
    # A client's own element left of an untrusted address is never reached.
    assert applied({"Forwarded": "for=1.1.1.1;host=evil.example, for=203.0.113.9;host=good.example"})["host"] == "good.example"


@pytest.mark.parametrize("headers", [
    {"X-Forwarded-Proto": "javascript"}, {"X-Forwarded-Proto": "https://x"}, {"X-Forwarded-Host": "evil.example/path"},
    {"X-Forwarded-Host": "a b"}, {"X-Forwarded-Host": "x" * 300}, {"X-Forwarded-Host": "@evil"},
    {"Forwarded": "proto=ftp;host=\"a\\\"b\""}, {"Forwarded": "for=" + "1" * 10000}, {"X-Forwarded-For": "," * 10000},
    {"X-Forwarded-For": "999.999.1.1"}, {"X-Forwarded-Host": "[::1"}, {"Forwarded": "host=évènement.example"},
])
def test_malformed_values_are_ignored(headers):
    assert applied(headers) == UNCHANGED


@given(st.dictionaries(st.sampled_from(["Forwarded", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host"]),
                       st.text(max_size=80)))
@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_header_value_makes_apply_fail(headers):
    found = applied(headers)
    assert found["scheme"] in ("http", "https")
    assert found["addr"] == "10.0.0.2" or parse_address(found["addr"]) is not None


# -- through the app ------------------------------------------------------------------------------


@pytest.fixture()
def proxied(settings):
    """The test app behind proxies (loopback and 10/8), with no site address of its own and the
    login throttle on (2 failures)."""
    app = Calpress(settings.with_overrides(trusted_proxies=PROXIES, site_url="", login_max_failures=2, login_lockout=60), upgrade=False)
    yield app
    app.site.close()


def test_comment_author_ip_follows_a_trusted_proxy_only(proxied):
    client = RestClient(proxied)
    admin = create_account(proxied, "boss", "administrator")
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Talk", "status": "publish"}).json["id"]

    def comment(peer: str, forwarded: str) -> str:
        made = client.http.simulate_post("/cms/v2/comments", json={"post": post, "content": f"from {forwarded}"},
                                         headers={**admin.basic, "X-Forwarded-For": forwarded}, remote_addr=peer)
        assert made.status_code == 201, made.text
        return client.get(f"/cms/v2/comments/{made.json['id']}", user=admin, params={"context": "edit"}).json["author_ip"]

    assert comment("10.0.0.2", "203.0.113.20") == "203.0.113.20"
    assert comment("10.0.0.2", "198.51.100.1, 203.0.113.21, 10.0.0.3") == "203.0.113.21"
    assert comment("::1", "2001:db8::20") == "2001:db8::20"
    assert comment("192.0.2.99", "203.0.113.22") == "192.0.2.99"  # not a proxy: its own address


def stored(app: Calpress) -> dict[str, int]:
    with app.site.read() as conn:
        return dict(conn.execute(sa.select(login_failures.c.key, login_failures.c.count)).all())


def test_the_login_throttle_counts_forwarded_clients_apart(proxied):
    client = RestClient(proxied)
    alice = create_account(proxied, "alice", "subscriber")

    def attempt(login: str, password: str, forwarded: str, peer: str = "10.0.0.2"):
        body = f"log={quote(login)}&pwd={quote(password)}"
        return client.http.simulate_post("/wp-login.php", body=body, remote_addr=peer,
                                         headers={**FORM, "X-Forwarded-For": forwarded})

    for name in ("ghost1", "ghost2"):
        assert attempt(name, "x", "203.0.113.30").status_code == 200
    assert attempt("ghost3", "x", "203.0.113.30").status_code == 429  # this client's address is full
    assert attempt("alice", alice.password, "203.0.113.31").status_code == 302  # another client is not
    # From a peer that is no proxy, the header is the client's own word: counted by the peer.
    assert attempt("ghost4", "x", "203.0.113.32", peer="192.0.2.40").status_code == 200
    counts = stored(proxied)
    assert counts["addr:203.0.113.30"] == 2 and "addr:203.0.113.31" not in counts
    assert counts["addr:192.0.2.40"] == 1 and "addr:203.0.113.32" not in counts and "addr:10.0.0.2" not in counts


def test_links_follow_the_forwarded_scheme_and_host(proxied):
    client = RestClient(proxied)
    admin = create_account(proxied, "boss", "administrator")
    post = client.post("/cms/v2/posts", user=admin, json={"title": "Linked", "status": "publish"}).json["id"]
    forwarded = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "events.example", "X-Forwarded-For": "203.0.113.40"}
    seen = client.http.simulate_get(f"/wp-json/cms/v2/posts/{post}", headers={**forwarded, "Host": "internal:8080"}, remote_addr="10.0.0.2")
    assert seen.json["link"].startswith("https://events.example/")
    assert seen.json["_links"]["self"][0]["href"] == f"https://events.example/wp-json/cms/v2/posts/{post}"
    rfc = client.http.simulate_get(f"/wp-json/cms/v2/posts/{post}", remote_addr="127.0.0.1",
                                   headers={"Host": "internal:8080", "Forwarded": 'for="[2001:db8::5]";proto=https;host=v6.example'})
    assert rfc.json["link"].startswith("https://v6.example/")
    ignored = client.http.simulate_get(f"/wp-json/cms/v2/posts/{post}", headers={**forwarded, "Host": "internal:8080"}, remote_addr="192.0.2.7")
    assert ignored.json["link"].startswith("http://internal:8080/")
    # The home page's links too (a Falcon page).
    page = client.http.simulate_get("/", headers={**forwarded, "Accept": "text/html"}, remote_addr="10.0.0.2")
    assert 'href="https://events.example/wp-json/"' in page.text


def test_secure_cookies_and_application_passwords_follow_the_forwarded_scheme(settings):
    app = Calpress(settings.with_overrides(trusted_proxies=PROXIES, site_url="", environment="production"), upgrade=False)
    try:
        client = RestClient(app)
        alice = create_account(app, "alice", "subscriber")
        https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.50"}
        body = f"log=alice&pwd={quote(alice.password)}"
        logged = client.http.simulate_post("/wp-login.php", body=body, headers={**FORM, **https}, remote_addr="10.0.0.2")
        assert logged.status_code == 302
        assert logged.cookies and all(cookie.secure for cookie in logged.cookies.values())
        plain = client.http.simulate_post("/wp-login.php", body=body, headers={**FORM, **https}, remote_addr="192.0.2.8")
        assert plain.status_code == 302
        assert plain.cookies and not any(cookie.secure for cookie in plain.cookies.values())
        # Application passwords need HTTPS in production: the proxy's word counts, a stranger's not.
        me = client.http.simulate_get("/cms/v2/users/me", headers={**alice.basic, **https}, remote_addr="10.0.0.2")
        assert me.status_code == 200 and me.json["id"] == alice.id
        refused = client.http.simulate_get("/cms/v2/users/me", headers={**alice.basic, **https}, remote_addr="192.0.2.8")
        assert refused.status_code == 401 and refused.json["code"] == "application_passwords_disabled"
    finally:
        app.site.close()


def test_garbage_forwarding_headers_never_fail_a_request(proxied):
    client = RestClient(proxied)
    nasty = [
        {"Forwarded": 'for="\\', "X-Forwarded-For": "\x7f\x01, ::::, [", "X-Forwarded-Host": "\\\\", "X-Forwarded-Proto": ""},
        {"Forwarded": "for=" + "9" * 5000 + ";proto=https;host=x" * 50},
        {"X-Forwarded-For": "1.2.3.4" + ", 10.0.0.1" * 2000, "X-Forwarded-Host": "a:b:c", "X-Forwarded-Proto": "h\u00e9"},
    ]
    for headers in nasty:
        for path in ("/wp-json/cms/v2/posts", "/", "/wp-login.php"):
            answer = client.http.simulate_get(path, headers={**headers, "Accept": "text/html"}, remote_addr="10.0.0.2")
            assert answer.status_code < 500, (path, headers, answer.text[:300])


# -- a real server --------------------------------------------------------------------------------


@pytest.mark.e2e
def test_a_real_server_behind_a_proxy_on_loopback(db_url, tmp_path):
    """``calpress serve`` trusting 127.0.0.1: the REST links use the forwarded scheme and host,
    and the login throttle counts two forwarded clients apart."""
    with serving(db_url, tmp_path, trusted_proxies="127.0.0.1", login_max_failures="2", login_lockout="60") as server:
        server.cli("user", "create", "ana", "ana@example.test", "--role=author", "--user_pass=ana-secret")
        post = server.cli("post", "create", "--post_title=Proxied", "--post_status=publish", "--user=ana", "--porcelain").strip()
        forwarded = {"X-Forwarded-For": "203.0.113.60", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "events.example"}
        seen = httpx.get(f"{server.url}/wp-json/cms/v2/posts/{post}", headers=forwarded)
        assert seen.status_code == 200
        assert seen.json()["link"].startswith("https://events.example/")
        assert seen.json()["_links"]["self"][0]["href"] == f"https://events.example/wp-json/cms/v2/posts/{post}"
        listed = httpx.get(f"{server.url}/wp-json/cms/v2/users", headers=forwarded).json()
        assert listed and all(user["link"].startswith("https://events.example/") for user in listed)
        plain = httpx.get(f"{server.url}/wp-json/cms/v2/posts/{post}")
        assert plain.json()["link"].startswith(server.url + "/")

        def login(name: str, client_address: str) -> int:
            return httpx.post(f"{server.url}/wp-login.php", data={"log": name, "pwd": "wrong"},
                              headers={"X-Forwarded-For": client_address}).status_code

        assert [login("ghost1", "203.0.113.61"), login("ghost2", "203.0.113.61")] == [200, 200]
        assert login("ghost3", "203.0.113.61") == 429  # the first client is locked out
        assert login("ghost4", "203.0.113.62") == 200  # the second is not
        assert login("ghost5", "203.0.113.62") == 200
        assert login("ghost6", "203.0.113.62") == 429
