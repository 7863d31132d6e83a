"""Load benchmark: calpress against a bare Falcon endpoint, both on Granian with one worker,
measured in the same run. Prints requests/s, p50, p99 and each target's ratio to the baseline.

    .venv/bin/python bench/run.py [--duration 5] [--rounds 3] [--connections 16] [--json results.json]
    .venv/bin/python bench/run.py --before REF [--tolerance 0.95]

Uses wrk when installed (Debian package `wrk`); otherwise a bounded Python client (threads over
keep-alive connections, a fixed number of requests), which measures lower absolute numbers for
both sides but the same ratios shape. Every request loop is bounded in time and count and only
talks to servers this script starts on 127.0.0.1.

With --before REF (any git ref or commit), the source tree of that revision is exported into a
temporary folder and served as a second calpress ("before") next to the working tree ("after"),
from the same venv, each with its own data folder (or PostgreSQL schema) and the same seeding.
Each round measures the baseline, then every target on both sides back to back (before first in
the 1st, 3rd... round, after first in the others). The table adds each target's after/before: the
median over rounds of after req/s / before req/s within the same round. The exit code is non-zero
when a goal is missed (checked on the after side) or, with --before, when any after/before is
below --tolerance.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from textwrap import shorten
from urllib.parse import urlsplit

import httpx
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
# The targets: the share of the baseline's requests/s each target must reach.
TARGETS = {
    "GET /": 0.25,
    "GET /cms/v2/users/me (app password)": 0.20,
    "GET /cms/v2/posts (10 items, view)": 0.10,
    "GET /cms/v2/posts (10 items, cache defeated)": 0.10,
    "GET /cms/v2/pages (10 items, cache defeated)": None,
    "GET / (cache defeated)": None,
}
BASELINE = "baseline: bare Falcon JSON"
# With --before: the lowest median after/before requests/s ratio accepted for a target.
TOLERANCE = 0.95
BEFORE, AFTER = "before", "after"
# With --before and --database-url, each side gets a schema named <prefix><side>_<pid>.
SCHEMA_PREFIX = "calpress_bench_"


@dataclass
class Result:
    name: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int


Measure = Callable[[str, str, dict[str, str], int, int], Result]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(url: str, process: subprocess.Popen, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server for {url} exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"server for {url} did not start")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def start_baseline(port: int) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "granian", "--interface", "wsgi", "--factory", "--host", "127.0.0.1",
        "--port", str(port), "--workers", "1", "--no-ws", "--log-level", "warning", "baseline_app:app",
    ]
    return subprocess.Popen(command, cwd=ROOT / "bench", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def baseline_running(stack: ExitStack) -> str:
    """Start the bare Falcon baseline (stopped with ``stack``) and wait for it: its URL."""
    port = free_port()
    baseline = start_baseline(port)
    stack.callback(stop, baseline)
    url = f"http://127.0.0.1:{port}/things/1"
    wait_ready(url, baseline)
    return url


# -- the code under test -----------------------------------------------------------------------------


def code_env(source: Path | None) -> dict[str, str]:
    """The environment that makes ``python -m calpress`` import the package of ``source`` (None: as
    this venv imports it). The tree goes first on PYTHONPATH and is to be the working folder too,
    since ``python -m`` puts the working folder ahead of PYTHONPATH on sys.path; Granian's workers
    are forked from that process and inherit its sys.path."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")]))
    return env


def check_import(label: str, source: Path) -> Path:
    """Where calpress is imported from under ``code_env(source)`` and that working folder (a one-off
    ``python -c``); refuses to go on unless it lies in ``source``."""
    found = subprocess.run([sys.executable, "-c", "import calpress; print(calpress.__file__)"],
                           env=code_env(source), cwd=source, capture_output=True, text=True)
    if found.returncode != 0:
        raise SystemExit(f"the {label} side cannot import calpress: {found.stderr.strip()[-500:]}")
    path = Path(found.stdout.strip()).resolve()
    if not path.is_relative_to(source.resolve()):
        raise SystemExit(f"refusing to run: the {label} side would import calpress from {path}, not from {source}")
    return path


def check_served(label: str, source: Path) -> Path:
    """Start ``calpress serve`` once with this code and PYTHONVERBOSE=1, which logs every module a
    process loads with its file, on a throwaway SQLite folder; wait for an answer and stop it.
    Refuses to go on unless every calpress module the server and its worker loaded lies in
    ``source``, calpress/app.py (the worker's app module) among them. Returns the folder of the
    package it served."""
    with tempfile.TemporaryDirectory(prefix="calpress-bench-probe-") as folder:
        log_path = Path(folder) / "imports.log"
        port = free_port()
        env = {**code_env(source), "CALPRESS_DATA_DIR": str(Path(folder) / "data"), "CALPRESS_DATABASE_URL": "",
               "CALPRESS_HOST": "127.0.0.1", "CALPRESS_PORT": str(port), "CALPRESS_WORKERS": "1", "PYTHONVERBOSE": "1"}
        with log_path.open("w") as log:
            process = subprocess.Popen([sys.executable, "-m", "calpress", "serve"], env=env, cwd=source,
                                       stdout=subprocess.DEVNULL, stderr=log)
            try:
                wait_ready(f"http://127.0.0.1:{port}/wp-json/", process)
            finally:
                stop(process)
        loaded = {Path(path) for path in re.findall(r"^# .*?(/[^\s']*/calpress/[^\s']*\.py)\b", log_path.read_text(), re.M)}
    package = source.resolve() / "calpress"
    strays = sorted(str(path) for path in loaded if not path.resolve().is_relative_to(package))
    if strays or package / "app.py" not in {path.resolve() for path in loaded}:
        found = strays[0] if strays else "no calpress/app.py"
        raise SystemExit(f"refusing to run: the {label} server did not load calpress from {package} ({found})")
    return package


@dataclass(frozen=True)
class Server:
    process: subprocess.Popen
    base: str  # http://127.0.0.1:<port>


@dataclass(frozen=True)
class Side:
    """One calpress under test: where its package is imported from (``source``, None for the
    package as installed) and where its data lives."""

    label: str
    data_dir: str
    database_url: str | None = None
    source: Path | None = None

    def env(self, **settings: str) -> dict[str, str]:
        env = {**code_env(self.source), "CALPRESS_DATA_DIR": self.data_dir, **settings}
        if self.database_url:
            env["CALPRESS_DATABASE_URL"] = self.database_url
        return env

    def cli(self, *args: str) -> str:
        """Run ``python -m calpress <args>`` with this side's code and data: its output."""
        return subprocess.run([sys.executable, "-m", "calpress", *args], env=self.env(), cwd=self.source,
                              check=True, capture_output=True, text=True).stdout.strip()

    def serve(self, workers: int = 1) -> Server:
        """Start ``calpress serve`` (one worker unless told) on a free port and wait until it answers."""
        port = free_port()
        env = self.env(CALPRESS_HOST="127.0.0.1", CALPRESS_PORT=str(port), CALPRESS_WORKERS=str(workers),
                       CALPRESS_ENVIRONMENT="local")
        process = subprocess.Popen([sys.executable, "-m", "calpress", "serve"], env=env, cwd=self.source,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_ready(base + "/wp-json/", process)
        except BaseException:
            stop(process)
            raise
        return Server(process, base)


@contextmanager
def running(sides: Sequence[Side]) -> Iterator[dict[str, Server]]:
    """Serve every side at once; yields the servers by label and stops them afterwards."""
    with ExitStack() as stack:
        servers = {}
        for side in sides:
            servers[side.label] = side.serve()
            stack.callback(stop, servers[side.label].process)
        yield servers


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


@contextmanager
def exported_revision(ref: str) -> Iterator[tuple[Path, str]]:
    """The source tree of git revision ``ref``, exported (``git archive | tar -x``) into a
    temporary folder that is removed afterwards: yields (folder, commit)."""
    commit = git("rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}")
    with tempfile.TemporaryDirectory(prefix="calpress-before-") as folder:
        archive = subprocess.Popen(["git", "archive", "--format=tar", commit], cwd=ROOT, stdout=subprocess.PIPE)
        try:
            subprocess.run(["tar", "-x", "-C", folder], stdin=archive.stdout, check=True)
        finally:
            archive.stdout.close()
            code = archive.wait()
        if code != 0:
            raise SystemExit(f"git archive {commit} failed with {code}")
        tree = Path(folder)
        if not (tree / "calpress" / "__init__.py").is_file():
            raise SystemExit(f"{ref} has no calpress package at the top of the repository")
        yield tree, commit


@contextmanager
def side_databases(database_url: str | None, labels: Sequence[str]) -> Iterator[dict[str, str | None]]:
    """Each side's database URL, by label. Without --database-url: None, the SQLite file in the
    side's data folder. With one (PostgreSQL only): a new schema per side in that database, named
    ``calpress_bench_<label>_<pid>`` and selected by the URL option ``-csearch_path=<schema>``,
    dropped at the end (the user needs the CREATE privilege on the database)."""
    if not database_url:
        yield dict.fromkeys(labels)
        return
    url = sa.make_url(database_url)
    if url.get_backend_name() != "postgresql":
        raise SystemExit("--database-url with --before needs a PostgreSQL URL (SQLite runs use a file per side anyway)")
    admin = sa.create_engine(url.set(drivername="postgresql+psycopg"), poolclass=sa.pool.NullPool)
    options = url.query.get("options")
    schemas = {label: f"{SCHEMA_PREFIX}{label}_{os.getpid()}" for label in labels}
    urls: dict[str, str | None] = {}
    for label, schema in schemas.items():
        search_path = f"-csearch_path={schema}"
        with_schema = url.update_query_dict({"options": f"{options} {search_path}" if options else search_path})
        urls[label] = with_schema.render_as_string(hide_password=False)
    created: list[str] = []
    try:
        for schema in schemas.values():
            with admin.begin() as conn:
                conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            created.append(schema)
        yield urls
    finally:
        for schema in created:
            with admin.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


@dataclass(frozen=True)
class CodeUnderTest:
    """What a run measures: the installed package alone (a plain run: one side, "calpress"), or
    with --before the exported revision ("before") and the working tree ("after")."""

    sources: dict[str, Path | None]  # side label -> source tree (None: the package as installed)
    database_urls: dict[str, str | None]
    ref: str | None = None
    commit: str | None = None

    def sides(self, stack: ExitStack, purpose: str = "") -> list[Side]:
        """One side per label, each with a new temporary data folder removed with ``stack``."""
        sides = []
        for label, source in self.sources.items():
            prefix = "-".join(filter(None, ["calpress-bench", purpose, label if self.ref else ""])) + "-"
            data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix))
            sides.append(Side(label, data_dir, self.database_urls[label], source))
        return sides


@contextmanager
def code_under_test(before: str | None, database_url: str | None) -> Iterator[CodeUnderTest]:
    """The code to measure (see CodeUnderTest); with --before, prints where each side imports
    calpress from, having checked it, and removes the export and the schemas afterwards."""
    if not before:
        yield CodeUnderTest({"calpress": None}, {"calpress": database_url})
        return
    with exported_revision(before) as (tree, commit), side_databases(database_url, [BEFORE, AFTER]) as urls:
        code = CodeUnderTest({BEFORE: tree, AFTER: ROOT}, urls, before, commit)
        changed = " + uncommitted changes" if git("status", "--porcelain", "--", "calpress", "pyproject.toml") else ""
        origin = {
            BEFORE: f"{before} = {shorten(git('log', '-1', '--format=%h %s', commit), 72, placeholder='...')}",
            AFTER: f"working tree, HEAD {git('rev-parse', '--short', 'HEAD')}{changed}",
        }
        for label, source in code.sources.items():
            check_import(label, source)
            print(f"{label}: {origin[label]}; serves {check_served(label, source)}")
        yield code


# -- load generators ---------------------------------------------------------------------------------


# A wrk script that puts a new number in place of ``{n}`` in every request's path: each thread
# counts from its own start in steps of the thread count, from an offset no other run used.
_WRK_VARYING = """
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
function init(args)
  n = %(offset)d + tid
end
function request()
  n = n + %(threads)d
  return wrk.format(nil, %(prefix)s .. n .. %(suffix)s)
end
"""
WRK_THREADS = 2
_wrk_offsets = itertools.count(1)


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run_wrk(name: str, url: str, headers: dict[str, str], duration: int, connections: int) -> Result:
    """wrk against ``url``; a ``{n}`` in it becomes a number never sent before, request by request
    (a URL no answer cache has seen)."""
    command = ["wrk", "-t", str(WRK_THREADS), "-c", str(connections), "-d", f"{duration}s", "--latency"]
    for key, value in headers.items():
        command += ["-H", f"{key}: {value}"]
    with tempfile.TemporaryDirectory(prefix="calpress-wrk-") as folder:
        if "{n}" in url:
            parts = urlsplit(url)
            path = parts.path + ("?" + parts.query if parts.query else "")
            prefix, _, suffix = path.partition("{n}")
            script = Path(folder) / "varying.lua"
            script.write_text(_WRK_VARYING % {"offset": next(_wrk_offsets) * 100_000_000, "threads": WRK_THREADS,
                                              "prefix": _lua_string(prefix), "suffix": _lua_string(suffix)})
            command += ["-s", str(script)]
            url = f"{parts.scheme}://{parts.netloc}/"
        output = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    total = int(re.search(r"(\d+) requests in", output).group(1))
    errors = 0
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if non_2xx:
        errors += int(non_2xx.group(1))
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if socket_errors:
        errors += sum(int(n) for n in socket_errors.groups())

    def percentile(label: str) -> float:
        match = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", output)
        value, unit = float(match.group(1)), match.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    return Result(name, rps, percentile("50"), percentile("99"), total, errors)


_numbers = itertools.count(1)  # shared by every run, so that no varying URL repeats within a benchmark


def run_python(name: str, url: str, headers: dict[str, str], duration: int, connections: int, max_requests: int = 200_000) -> Result:
    """At most 8 threads over keep-alive clients, bounded in time and count. A ``{n}`` in ``url``
    is replaced by a new number for every request (a URL no answer cache has seen)."""
    varying = "{n}" in url
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop_at = time.monotonic() + duration
    budget = [max_requests]

    def worker() -> None:
        nonlocal errors
        local: list[float] = []
        local_errors = 0
        with httpx.Client(headers=headers, timeout=10) as client:
            while time.monotonic() < stop_at:
                with lock:
                    if budget[0] <= 0:
                        break
                    budget[0] -= 1
                    address = url.replace("{n}", str(next(_numbers))) if varying else url
                start = time.perf_counter()
                try:
                    ok = client.get(address).status_code < 400
                except httpx.HTTPError:
                    ok = False
                local.append(time.perf_counter() - start)
                local_errors += 0 if ok else 1
        with lock:
            latencies.extend(local)
            errors += local_errors

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(min(connections, 8))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    latencies.sort()
    quantiles = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return Result(name, len(latencies) / elapsed, quantiles[49] * 1000, quantiles[98] * 1000, len(latencies), errors)


def load_generator(client: str) -> tuple[Measure, bool]:
    """The measuring function for --client, and whether it is wrk."""
    use_wrk = client == "wrk" or (client == "auto" and bool(shutil.which("wrk")))
    return (run_wrk if use_wrk else run_python), use_wrk


# -- rounds and figures ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Round:
    baseline: Result
    results: dict[str, dict[str, Result]]  # target name -> side label -> result


def measure_rounds(measure: Measure, baseline_url: str, targets: dict[str, dict[str, tuple[str, dict[str, str]]]],
                   rounds: int, duration: int, connections: int) -> list[Round]:
    """Rounds of the baseline, then each target on every side ({target: {side: (url, headers)}}).
    Alternating keeps load from elsewhere on the machine hitting all sides alike; the sides swap
    order every other round so that neither always goes first."""
    measured = []
    for number in range(rounds):
        baseline = measure(BASELINE, baseline_url, {}, duration, connections)
        results: dict[str, dict[str, Result]] = {}
        for name, by_side in targets.items():
            order = list(by_side) if number % 2 == 0 else list(reversed(by_side))
            results[name] = {label: measure(name, *by_side[label], duration, connections) for label in order}
        measured.append(Round(baseline, results))
    return measured


@dataclass(frozen=True)
class Figures:
    """One target on one side over all rounds: medians, the error total, and the ratio to the
    baseline (median of each round's own ratio)."""

    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int
    ratio: float
    ratios: list[float]


def figures(samples: Sequence[Result], baselines: Sequence[Result]) -> Figures:
    ratios = [sample.requests_per_second / base.requests_per_second for sample, base in zip(samples, baselines)]
    return Figures(
        requests_per_second=statistics.median(sample.requests_per_second for sample in samples),
        p50_ms=statistics.median(sample.p50_ms for sample in samples),
        p99_ms=statistics.median(sample.p99_ms for sample in samples),
        errors=sum(sample.errors for sample in samples),
        ratio=statistics.median(ratios),
        ratios=ratios,
    )


def side_figures(rounds: Sequence[Round], name: str, label: str) -> Figures:
    return figures([r.results[name][label] for r in rounds], [r.baseline for r in rounds])


def after_before_ratios(rounds: Sequence[Round], name: str) -> list[float]:
    """after req/s / before req/s of one target, round by round (same round, same machine load)."""
    return [r.results[name][AFTER].requests_per_second / r.results[name][BEFORE].requests_per_second for r in rounds]


def goal_verdict(goal: float | None, ratio: float) -> str:
    return "" if goal is None else (f">= {goal:.0%} ok" if ratio >= goal else f">= {goal:.0%} MISSED")


def after_before_cell(ratios: Sequence[float], tolerance: float) -> str:
    """The median after/before with its verdict, and the spread over rounds when there are several."""
    median = statistics.median(ratios)
    spread = f" ({min(ratios):.3f}..{max(ratios):.3f})" if len(ratios) > 1 else ""
    return f"{median:.3f} {'ok' if median >= tolerance else 'SLOWER'}{spread}"


@dataclass(frozen=True)
class Table:
    """Column layout of a results table; ``sides`` adds the side and after/before columns (--before)."""

    name_width: int
    rps_width: int
    ms_width: int
    errors: bool
    sides: bool

    def heading(self, title: str) -> str:
        side = f" {'side':<6}" if self.sides else ""
        errors = f" {'errors':>7}" if self.errors else ""
        tail = f"{'goal':<14} after/before" if self.sides else "goal"
        return (f"{title:<{self.name_width}}{side} {'req/s':>{self.rps_width}} {'p50 ms':>{self.ms_width}} "
                f"{'p99 ms':>{self.ms_width}}{errors} {'ratio':>7}  {tail}")

    def row(self, name: str, fig: Figures, side: str = "", verdict: str = "", after_before: str = "") -> str:
        side_cell = f" {side:<6}" if self.sides else ""
        errors = f" {fig.errors:>7}" if self.errors else ""
        line = (f"{name:<{self.name_width}}{side_cell} {fig.requests_per_second:>{self.rps_width}.0f} "
                f"{fig.p50_ms:>{self.ms_width}.2f} {fig.p99_ms:>{self.ms_width}.2f}{errors} {fig.ratio:>6.1%}  ")
        return (line + f"{verdict:<14} {after_before}").rstrip() if self.sides else line + verdict

    def compare(self, rounds: Sequence[Round], name: str, goal: float | None, tolerance: float) -> tuple[Figures, Figures, list[float]]:
        """Print one target's before and after rows (goal checked on after): (before, after, after/before ratios)."""
        before, after = side_figures(rounds, name, BEFORE), side_figures(rounds, name, AFTER)
        ratios = after_before_ratios(rounds, name)
        print(self.row(name, before, BEFORE))
        print(self.row("", after, AFTER, goal_verdict(goal, after.ratio), after_before_cell(ratios, tolerance)))
        return before, after, ratios


def compared_summary(name: str, before: Figures, after: Figures, ratios: Sequence[float], ref: str, commit: str) -> dict:
    """A target's JSON entry in a --before run: the after side's figures, plus "before" and "after_before"."""
    return {
        "name": name, **asdict(after),
        "before": {"ref": ref, "commit": commit, **asdict(before)},
        "after_before": statistics.median(ratios), "after_before_ratios": list(ratios),
    }


def report_after_before(slower: Sequence[str], ref: str, tolerance: float) -> None:
    print("\nafter/before: median over rounds of (after req/s / before req/s) within each round; 1.0 = same speed")
    if slower:
        print(f"after/before below the tolerance {tolerance:.2f} (the working tree is slower than {ref}) for: {', '.join(slower)}")
    else:
        print(f"after/before >= {tolerance:.2f} for every target: ok")


# -- the benchmark -----------------------------------------------------------------------------------


def seed_site(side: Side, base: str, login: str) -> dict[str, str]:
    """The same data on every side: an administrator with an application password, and enough
    published posts and pages for a full page of 10 each. Returns the Authorization header."""
    side.cli("user", "create", login, f"{login}@example.test", "--role=administrator")
    password = side.cli("user", "application-password", "create", login, "bench", "--porcelain")
    auth = {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}
    for kind in ("posts", "pages"):
        for number in range(12):
            created = httpx.post(
                f"{base}/wp-json/cms/v2/{kind}",
                headers=auth,
                json={"title": f"Benchmark {kind} {number}", "content": "<p>Some text for the listing.</p>", "status": "publish"},
            )
            if created.status_code != 201:
                raise SystemExit(f"could not create a {kind} item ({side.label}): {created.status_code} {created.text[:200]}")
    return auth


def print_plain(rounds: Sequence[Round], label: str) -> tuple[list[dict], bool]:
    """The table of a run without --before (one side); returns the JSON summary and whether a goal was missed."""
    table = Table(46, 10, 8, errors=True, sides=False)
    print("\n" + table.heading(f"target (median of {len(rounds)} rounds)"))
    baselines = [r.baseline for r in rounds]
    rows = [(BASELINE, figures(baselines, baselines))] + [(name, side_figures(rounds, name, label)) for name in rounds[0].results]
    failed = False
    summary = []
    for name, fig in rows:
        goal = TARGETS.get(name)
        failed |= goal is not None and fig.ratio < goal
        print(table.row(name, fig, verdict=goal_verdict(goal, fig.ratio)))
        summary.append({"name": name, **asdict(fig)})
    return summary, failed


def print_before_after(rounds: Sequence[Round], ref: str, commit: str, tolerance: float) -> tuple[list[dict], bool]:
    """The table of a --before run; returns the JSON summary and whether a goal was missed (on the
    after side) or a target's after/before is below the tolerance."""
    table = Table(46, 10, 8, errors=True, sides=True)
    print("\n" + table.heading(f"target (median of {len(rounds)} rounds)"))
    baselines = [r.baseline for r in rounds]
    base = figures(baselines, baselines)
    print(table.row(BASELINE, base))
    summary: list[dict] = [{"name": BASELINE, **asdict(base)}]
    failed = False
    slower = []
    for name in rounds[0].results:
        goal = TARGETS.get(name)
        before, after, ratios = table.compare(rounds, name, goal, tolerance)
        failed |= goal is not None and after.ratio < goal
        if statistics.median(ratios) < tolerance:
            slower.append(name)
        summary.append(compared_summary(name, before, after, ratios, ref, commit))
    report_after_before(slower, ref, tolerance)
    return summary, failed or bool(slower)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of baseline-then-targets; medians are reported")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--database-url", default=None, help="measure calpress on this database instead of a fresh SQLite file "
                                                             "(with --before: PostgreSQL, one new schema per side)")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--before", metavar="REF", default=None,
                        help="also serve this git revision's code and report each target's after/before ratio")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE,
                        help=f"with --before: lowest accepted after/before median (default {TOLERANCE})")
    args = parser.parse_args()

    measure, use_wrk = load_generator(args.client)
    print(f"load generator: {'wrk' if use_wrk else 'python (install wrk for higher, steadier numbers)'}; "
          f"{args.duration}s per target, {args.connections} connections, one server worker each")

    with ExitStack() as stack:
        code = stack.enter_context(code_under_test(args.before, args.database_url))
        sides = code.sides(stack)
        baseline_url = baseline_running(stack)
        servers = stack.enter_context(running(sides))
        login = f"bench{int(time.time())}"
        targets: dict[str, dict[str, tuple[str, dict[str, str]]]] = {}
        for side in sides:
            base = servers[side.label].base
            auth = seed_site(side, base, login)
            checks = {
                "GET /": (base + "/wp-json/", {}),
                "GET /cms/v2/users/me (app password)": (base + "/wp-json/cms/v2/users/me", auth),
                "GET /cms/v2/posts (10 items, view)": (base + "/wp-json/cms/v2/posts?per_page=10", {}),
                # miss=N: a parameter the routes ignore, with a number never sent before, so the
                # answer cache never has the answer and each page is built from the database
                "GET /cms/v2/posts (10 items, cache defeated)": (base + "/wp-json/cms/v2/posts?per_page=10&miss={n}", {}),
                "GET /cms/v2/pages (10 items, cache defeated)": (base + "/wp-json/cms/v2/pages?per_page=10&miss={n}", {}),
                "GET / (cache defeated)": (base + "/wp-json/?miss={n}", {}),
            }
            for name, (url, headers) in checks.items():
                status = httpx.get(url.replace("{n}", "0"), headers=headers).status_code
                if status != 200:
                    raise SystemExit(f"{name} answered {status} ({side.label}) before the benchmark")
                targets.setdefault(name, {})[side.label] = (url, headers)
        rounds = measure_rounds(measure, baseline_url, targets, args.rounds, args.duration, args.connections)

    if args.before:
        summary, failed = print_before_after(rounds, code.ref, code.commit, args.tolerance)
    else:
        summary, failed = print_plain(rounds, sides[0].label)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
