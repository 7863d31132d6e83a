"""Prometheus metrics (calpress/metrics.py, pages/metrics.py): off by default (/metrics is the
site's 404); on, each request counted once by route name, method and status with its latency,
the answer caches and the memo, failed logins and imports counted; only the allowed addresses
(after trusted proxies) read them; the text parses as Prometheus text. In process through the
WSGI app, and once through ``calpress serve --workers 2``, whose two workers' counts add up."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx
import pytest
from appfixtures import RestClient, create_account, serving
from content_support import context
from prometheus_client import CollectorRegistry, generate_latest, multiprocess
from prometheus_client.parser import text_string_to_metric_families

from calpress.app import Calpress
from calpress.calendar import imports
from calpress.calendar.feed_import import run_feed_import
from calpress.config import load_settings
from calpress.metrics import LATENCY_BUCKETS, multiprocess_dir
from calpress.transfer.wxr_import import import_wxr


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape by name and sorted labels (parsing it checks the format)."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(scrape: dict, name: str, **labels: str) -> float:
    return scrape.get((name, tuple(sorted(labels.items()))), 0.0)


def requests_of(scrape: dict, route: str, method: str = "GET", status: str = "200") -> float:
    return value(scrape, "calpress_http_requests_total", route=route, method=method, status=status)


@pytest.fixture()
def measured(settings):
    app = Calpress(settings.with_overrides(metrics="on", access_log="off", trusted_proxies="10.0.0.0/8"), upgrade=False)
    yield app
    app.site.close()


def scrape(client: RestClient, **kwargs) -> dict:
    answer = client.http.simulate_get("/metrics", **kwargs)
    assert answer.status_code == 200, answer.text
    return samples(answer.text)


def test_the_settings_are_checked():
    base = {"data_dir": "/tmp/unused", "secret_key": "k"}
    defaults = load_settings(base, environ={})
    assert (defaults.metrics, defaults.metrics_allow) == ("off", "127.0.0.1/32,::1/128")
    chosen = load_settings(base, environ={"CALPRESS_METRICS": "ON", "CALPRESS_METRICS_ALLOW": "10.1.0.0/16, 192.0.2.7"})
    assert (chosen.metrics, chosen.metrics_allow) == ("on", "10.1.0.0/16,192.0.2.7/32")
    with pytest.raises(ValueError, match="CALPRESS_METRICS must"):
        load_settings(base, environ={"CALPRESS_METRICS": "maybe"})
    with pytest.raises(ValueError, match="CALPRESS_METRICS_ALLOW"):
        load_settings(base, environ={"CALPRESS_METRICS_ALLOW": "localhost"})


def test_off_the_library_is_not_even_loaded():
    """A fresh interpreter: the app's modules import no part of prometheus_client."""
    code = "import sys, calpress.app, calpress.cli, calpress.front; print('prometheus_client' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert found == "False"


def test_each_serve_run_has_a_folder_of_its_own(monkeypatch, tmp_path):
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    with multiprocess_dir() as made:
        assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == made and os.path.isdir(made)
        assert os.listdir(made) == []
    assert not os.path.exists(made) and "PROMETHEUS_MULTIPROC_DIR" not in os.environ
    # The operator's folder is kept, emptied of an earlier run's values (and only those).
    given = tmp_path / "given"
    given.mkdir()
    (given / "counter_4242.db").write_bytes(b"old")
    (given / "notes.txt").write_text("mine")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(given))
    with multiprocess_dir() as used:
        assert used == str(given) and sorted(os.listdir(given)) == ["notes.txt"]
    assert given.is_dir()


def test_off_by_default_metrics_is_an_ordinary_address_of_the_site(app):
    assert app.metrics is None and app.access_log.metrics is None and app.site.memo.observe is None
    answer = RestClient(app).http.simulate_get("/metrics")
    assert answer.status_code == 404 and "calpress_http_requests" not in answer.text
    assert "text/html" in answer.headers["content-type"]


def test_requests_are_counted_by_route_method_and_status(measured):
    client = RestClient(measured)
    admin = create_account(measured, "boss", "administrator")
    for _ in range(3):
        assert client.get("/wp-json/cms/v2/posts").status_code == 200
    assert client.post("/cms/v2/posts", user=admin, json={"title": "Counted", "status": "publish"}).status_code == 201
    assert client.get("/wp-json/no/such/route").status_code == 404
    assert client.get("/healthz").status_code == 200
    assert client.request("BREW", "/wp-json/").status_code in (404, 405)
    for path in (f"/wp-json/cms/v2/posts/{n}" for n in range(900, 905)):  # paths differ, the route name does not
        assert client.get(path).status_code == 404
    found = scrape(client)
    assert requests_of(found, "cms.posts") == 3
    assert requests_of(found, "cms.posts", "POST", "201") == 1
    assert requests_of(found, "rest_no_route", status="404") == 1
    assert requests_of(found, "healthz") == 1
    assert requests_of(found, "cms.posts.item", status="404") == 5
    assert sum(v for (name, labels), v in found.items() if name == "calpress_http_requests_total"
               and ("method", "other") in labels) == 1
    # No label holds a path: the route names are a bounded set.
    assert not any(value.startswith("/") for (_, labels) in found for _, value in labels)
    # The scrape itself is counted once it has answered (seen by the next scrape).
    assert requests_of(scrape(client), "metrics") == 1


def test_latency_is_a_histogram_by_route_from_one_millisecond_to_ten_seconds(measured):
    client = RestClient(measured)
    for _ in range(4):
        client.get("/wp-json/")
    found = scrape(client)
    buckets = {labels: v for (name, labels), v in found.items()
               if name == "calpress_http_request_duration_seconds_bucket" and ("route", "index") in labels}
    bounds = sorted(float(dict(labels)["le"]) for labels in buckets)
    assert bounds == [*LATENCY_BUCKETS, float("inf")] and LATENCY_BUCKETS[0] == 0.001 and LATENCY_BUCKETS[-1] == 10
    assert buckets[(("le", "+Inf"), ("route", "index"))] == 4
    counts = [buckets[(("le", str(b) if b != 10 else "10.0"), ("route", "index"))] for b in LATENCY_BUCKETS]
    assert counts == sorted(counts)  # cumulative
    assert value(found, "calpress_http_request_duration_seconds_count", route="index") == 4
    assert 0 < value(found, "calpress_http_request_duration_seconds_sum", route="index") < 40


def test_answer_cache_and_memo_hits_and_misses(measured):
    client = RestClient(measured)
    admin = create_account(measured, "boss", "administrator")
    client.post("/cms/v2/posts", user=admin, json={"title": "Cached", "status": "publish"})
    before = scrape(client)
    client.get("/wp-json/cms/v2/posts")  # built: an answer-cache miss, a memo miss for the post
    client.get("/wp-json/cms/v2/posts")  # the same answer again, from the cache
    client.get("/wp-json/cms/v2/posts", query_string="per_page=7")  # another answer, the post from the memo
    after = scrape(client)

    def moved(cache: str, result: str) -> float:
        return (value(after, "calpress_cache_lookups_total", cache=cache, result=result)
                - value(before, "calpress_cache_lookups_total", cache=cache, result=result))

    assert moved("rest", "hit") == 1 and moved("rest", "miss") == 2
    assert moved("memo", "hit") >= 1 and moved("memo", "miss") >= 1
    for _ in range(2):  # a public page: the page cache (pages/site.py) is looked in
        assert client.http.simulate_get("/", headers={"Accept": "text/html"}).status_code == 200
    pages = scrape(client)
    assert value(pages, "calpress_cache_lookups_total", cache="pages", result="hit") >= 1
    assert value(pages, "calpress_cache_lookups_total", cache="pages", result="miss") >= 1


def test_failed_logins_are_counted_with_the_throttle_off(measured):
    client = RestClient(measured)
    account = create_account(measured, "guesser", "editor")
    assert scrape(client)[("calpress_login_failures_total", ())] == 0
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert "is incorrect" in client.http.simulate_post("/wp-login.php", body="log=guesser&pwd=wrong", headers=form).text
    client.http.simulate_get("/wp-json/cms/v2/users/me", headers={"Authorization": httpx.BasicAuth("guesser", "nope")._auth_header})
    right = client.http.simulate_post("/wp-login.php", body=f"log=guesser&pwd={account.password}", headers=form)
    assert right.status_code in (302, 303)  # right: not counted
    assert scrape(client)[("calpress_login_failures_total", ())] == 2


def test_an_import_and_its_events_are_counted(measured):
    admin = create_account(measured, "boss", "administrator")
    feed = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
            + "".join(f"BEGIN:VEVENT\r\nUID:m{n}@example.test\r\nDTSTAMP:20260101T000000Z\r\n"
                      f"DTSTART:20261201T1{n}0000Z\r\nDTEND:20261201T1{n}3000Z\r\nSUMMARY:Talk {n}\r\nEND:VEVENT\r\n"
                      for n in range(3))
            + "END:VCALENDAR\r\n").encode()
    run = run_feed_import(measured.site, "talks.ics", author=admin.id, data=feed)
    assert len(run.created) == 3, run
    found = scrape(RestClient(measured))
    assert value(found, "calpress_imports_total", kind="ics") == 1
    assert value(found, "calpress_imported_events_total", kind="ics") == 3


def test_an_aggregator_import_counts_once_and_its_events_as_they_arrive(measured):
    admin = create_account(measured, "boss", "administrator")
    with measured.site.write() as conn:
        record = imports.create_record(conn, context(measured), origin="ea", source="https://feeds.example.test/cal.ics",
                                       status="pending", author=admin.id)
    client = RestClient(measured)
    batch_hash = record.meta[imports.NEXT_HASH]
    for done in range(2):
        events = [{"title": f"Sent {done}-{n}", "start_date": "2027-03-01", "start_hour": "10", "start_minute": "00",
                   "end_date": "2027-03-01", "end_hour": "11", "end_minute": "00", "timezone": "UTC",
                   "global_id": f"feeds.example.test?id={done}-{n}"} for n in range(2)]
        body = {"batch_hash": batch_hash, "status": {"data": {"total": 4, "done": done * 2}, "batch": {"total": 2, "done": done}},
                "percentage_complete": 50, "events": events}
        answer = client.post(f"/cal/event-aggregator/v1/import/{record.meta[imports.IMPORT_ID]}/batch", json=body)
        assert answer.status_code == 200, answer.json
        found = scrape(client)
        assert value(found, "calpress_imported_events_total", kind="aggregator") == 2 * (done + 1)
        assert value(found, "calpress_imports_total", kind="aggregator") == done  # counted on its last batch
        batch_hash = answer.json.get("next_batch_hash")


def test_a_wxr_import_counts_its_events(measured):
    admin = create_account(measured, "boss", "administrator")
    fixture = Path(__file__).parent / "transfer" / "data" / "tec-export.xml"
    summary = import_wxr(measured.site, io.BytesIO(fixture.read_bytes()), user_id=admin.id, fetch_attachments=False)
    events = summary.counts["cal_events"]["created"]
    assert events >= 1
    found = scrape(RestClient(measured))
    assert value(found, "calpress_imports_total", kind="wxr") == 1
    assert value(found, "calpress_imported_events_total", kind="wxr") == events


def test_the_database_pool_is_measured(measured):
    found = scrape(RestClient(measured))
    assert found[("calpress_db_pool_size", ())] >= 5
    assert 0 <= found[("calpress_db_pool_checked_out", ())] <= found[("calpress_db_pool_size", ())] + 10


def test_only_allowed_addresses_read_them_after_trusted_proxies(measured):
    client = RestClient(measured)
    ok = client.http.simulate_get("/metrics")  # the test client's 127.0.0.1
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain; version=")
    assert ok.headers["cache-control"] == "no-store" and "calpress_http_requests" in ok.text
    assert client.http.simulate_head("/metrics").status_code == 200
    for refused in (
        {"remote_addr": "192.0.2.9"},
        # A trusted proxy (10.0.0.0/8) says who the client is: a stranger, refused.
        {"remote_addr": "10.0.0.2", "headers": {"X-Forwarded-For": "203.0.113.5"}},
        # An untrusted peer claiming to forward for loopback is not believed.
        {"remote_addr": "192.0.2.9", "headers": {"X-Forwarded-For": "127.0.0.1"}},
    ):
        answer = client.http.simulate_get("/metrics", **refused)
        assert answer.status_code == 404 and "calpress_" not in answer.text, refused
        assert "text/html" in answer.headers["content-type"]
    # A trusted proxy forwarding for an allowed address is believed.
    assert client.http.simulate_get("/metrics", remote_addr="10.0.0.2",
                                    headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 200
    # The refused requests were counted as the site's answers, not as scrapes.
    assert requests_of(scrape(client), "site", status="404") == 3


def test_the_allow_list_can_name_other_networks(settings):
    app = Calpress(settings.with_overrides(metrics="on", metrics_allow="192.0.2.0/24"), upgrade=False)
    try:
        client = RestClient(app)
        assert client.http.simulate_get("/metrics", remote_addr="192.0.2.44").status_code == 200
        assert client.http.simulate_get("/metrics").status_code == 404  # loopback is not in this list
    finally:
        app.site.close()


@pytest.mark.e2e
def test_two_workers_counts_add_up(tmp_path, db_url, monkeypatch):
    """Through ``calpress serve --workers 2``: fresh connections spread over both workers, and
    the scrape (answered by either) sums both workers' counts. The operator's folder for the
    workers' values is emptied of an earlier run's files as the server starts."""
    folder = tmp_path / "prometheus"
    folder.mkdir()
    (folder / "counter_999999.db").write_bytes(b"left by an earlier run")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(folder))
    sent = 40
    with serving(db_url, tmp_path, workers="2", metrics="on", access_log="off") as server:
        before = samples(httpx.get(server.url + "/metrics").text)
        for _ in range(sent):
            with httpx.Client() as fresh:  # a new connection each time: both workers take some
                assert fresh.get(server.url + "/wp-json/cms/v2/posts").status_code == 200
        found = samples(httpx.get(server.url + "/metrics").text)
        assert requests_of(found, "cms.posts") - requests_of(before, "cms.posts") == sent
        assert (value(found, "calpress_http_request_duration_seconds_count", route="cms.posts")
                - value(before, "calpress_http_request_duration_seconds_count", route="cms.posts")) == sent
        assert found[("calpress_db_pool_size", ())] >= 10  # both workers' pools (5 connections at least each)
        # Each worker's own file read alone: both answered some of the requests, and the scrape
        # summed them (whichever worker answered it, as every later scrape shows).
        files = sorted(folder.glob("counter_*.db"))
        assert len(files) == 2 and "999999" not in str(files)
        per_worker = []
        for number, path in enumerate(files):
            alone = tmp_path / f"worker{number}"
            alone.mkdir()
            shutil.copy(path, alone / path.name)
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=str(alone))
            per_worker.append(requests_of(samples(generate_latest(registry).decode()), "cms.posts"))
        assert all(count > 0 for count in per_worker) and sum(per_worker) == requests_of(found, "cms.posts")
        for _ in range(4):
            with httpx.Client() as fresh:
                again = samples(fresh.get(server.url + "/metrics").text)
            assert requests_of(again, "cms.posts") == requests_of(found, "cms.posts")


@pytest.mark.e2e
def test_serve_makes_and_removes_a_folder_for_each_run(tmp_path, db_url, monkeypatch):
    """Without ``PROMETHEUS_MULTIPROC_DIR``, each ``calpress serve`` run writes its workers'
    values to a new temporary folder, summed by every scrape and removed when the server stops."""
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    temp = Path(tempfile.gettempdir())
    before = set(temp.glob("calpress-metrics-*"))
    with serving(db_url, tmp_path, workers="2", metrics="on", access_log="off") as server:
        made = set(temp.glob("calpress-metrics-*")) - before
        assert made and all(any(folder.glob("counter_*.db")) for folder in made)
        start = requests_of(samples(httpx.get(server.url + "/metrics").text), "cms.posts")
        for _ in range(10):
            with httpx.Client() as fresh:
                fresh.get(server.url + "/wp-json/cms/v2/posts")
        for _ in range(4):  # whichever worker answers the scrape, it has every request
            with httpx.Client() as fresh:
                assert requests_of(samples(fresh.get(server.url + "/metrics").text), "cms.posts") - start == 10
    assert not any(folder.exists() for folder in made)
