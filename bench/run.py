"""Load benchmark: calpress against a bare Falcon endpoint, both on Granian with one worker,
measured in the same run. Prints requests/s, p50, p99 and each target's ratio to the baseline.

    .venv/bin/python bench/run.py [--duration 10] [--connections 16] [--json results.json]

Uses wrk when installed (Debian package `wrk`); otherwise a bounded Python client (threads over
keep-alive connections, a fixed number of requests), which measures lower absolute numbers for
both sides but the same ratios shape. Every request loop is bounded in time and count and only
talks to servers this script starts on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import base64
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
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
# The targets: the share of the baseline's requests/s each target must reach.
TARGETS = {
    "GET /": 0.25,
    "GET /cms/v2/users/me (app password)": 0.20,
    "GET /cms/v2/posts (10 items, view)": 0.10,
}
BASELINE = "baseline: bare Falcon JSON"


@dataclass
class Result:
    name: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int


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


def start_baseline(port: int) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "granian", "--interface", "wsgi", "--factory", "--host", "127.0.0.1",
        "--port", str(port), "--workers", "1", "--no-ws", "--log-level", "warning", "baseline_app:app",
    ]
    return subprocess.Popen(command, cwd=ROOT / "bench", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_calpress(port: int, data_dir: str, database_url: str | None) -> tuple[subprocess.Popen, dict[str, str]]:
    env = {
        **os.environ,
        "CALPRESS_DATA_DIR": data_dir,
        "CALPRESS_HOST": "127.0.0.1",
        "CALPRESS_PORT": str(port),
        "CALPRESS_WORKERS": "1",
        "CALPRESS_ENVIRONMENT": "local",
    }
    if database_url:
        env["CALPRESS_DATABASE_URL"] = database_url
    process = subprocess.Popen([sys.executable, "-m", "calpress", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return process, env


def cli(env: dict[str, str], *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "calpress", *args], env=env, check=True, capture_output=True, text=True).stdout.strip()


# -- load generators ---------------------------------------------------------------------------------


def run_wrk(name: str, url: str, headers: dict[str, str], duration: int, connections: int) -> Result:
    command = ["wrk", "-t", "2", "-c", str(connections), "-d", f"{duration}s", "--latency"]
    for key, value in headers.items():
        command += ["-H", f"{key}: {value}"]
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


def run_python(name: str, url: str, headers: dict[str, str], duration: int, connections: int, max_requests: int = 200_000) -> Result:
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
                start = time.perf_counter()
                try:
                    ok = client.get(url).status_code < 400
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=5, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of baseline-then-targets; medians are reported")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--database-url", default=None, help="measure calpress on this database instead of a fresh SQLite file")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    parser.add_argument("--client", choices=("auto", "wrk", "python"), default="auto")
    args = parser.parse_args()

    use_wrk = args.client == "wrk" or (args.client == "auto" and shutil.which("wrk"))
    measure = run_wrk if use_wrk else run_python
    print(f"load generator: {'wrk' if use_wrk else 'python (install wrk for higher, steadier numbers)'}; "
          f"{args.duration}s per target, {args.connections} connections, one server worker each")

    baseline_port, calpress_port = free_port(), free_port()
    processes: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="calpress-bench-") as data_dir:
        try:
            baseline = start_baseline(baseline_port)
            processes.append(baseline)
            calpress, env = start_calpress(calpress_port, data_dir, args.database_url)
            processes.append(calpress)
            wait_ready(f"http://127.0.0.1:{baseline_port}/things/1", baseline)
            wait_ready(f"http://127.0.0.1:{calpress_port}/wp-json/", calpress)
            login = f"bench{int(time.time())}"
            cli(env, "user", "create", login, f"{login}@example.test", "--role=administrator")
            password = cli(env, "user", "application-password", "create", login, "bench", "--porcelain")
            auth = {"Authorization": "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()}
            calpress_url = f"http://127.0.0.1:{calpress_port}"
            for number in range(12):  # enough published posts for a full page of 10
                created = httpx.post(
                    calpress_url + "/wp-json/cms/v2/posts",
                    headers=auth,
                    json={"title": f"Benchmark post {number}", "content": "<p>Some text for the listing.</p>", "status": "publish"},
                )
                if created.status_code != 201:
                    raise SystemExit(f"could not create a post: {created.status_code} {created.text[:200]}")
            checks = {
                "GET /": (calpress_url + "/wp-json/", {}),
                "GET /cms/v2/users/me (app password)": (calpress_url + "/wp-json/cms/v2/users/me", auth),
                "GET /cms/v2/posts (10 items, view)": (calpress_url + "/wp-json/cms/v2/posts?per_page=10", {}),
            }
            for name, (url, headers) in checks.items():
                status = httpx.get(url, headers=headers).status_code
                if status != 200:
                    raise SystemExit(f"{name} answered {status} before the benchmark")
            # Rounds alternate baseline and targets, so that load from elsewhere on the machine
            # hits both sides alike; each ratio is taken against its own round's baseline.
            rounds: list[list[Result]] = []
            for _ in range(args.rounds):
                measured = [measure(BASELINE, f"http://127.0.0.1:{baseline_port}/things/1", {}, args.duration, args.connections)]
                for name, (url, headers) in checks.items():
                    measured.append(measure(name, url, headers, args.duration, args.connections))
                rounds.append(measured)
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()

    heading = f"target (median of {len(rounds)} rounds)"
    print(f"\n{heading:<42} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'ratio':>7}  goal")
    failed = False
    summary = []
    for index, name in enumerate(result.name for result in rounds[0]):
        samples = [measured[index] for measured in rounds]
        ratios = [sample.requests_per_second / measured[0].requests_per_second for sample, measured in zip(samples, rounds)]
        ratio = statistics.median(ratios)
        rps = statistics.median(sample.requests_per_second for sample in samples)
        p50 = statistics.median(sample.p50_ms for sample in samples)
        p99 = statistics.median(sample.p99_ms for sample in samples)
        errors = sum(sample.errors for sample in samples)
        goal = TARGETS.get(name)
        verdict = "" if goal is None else (f">= {goal:.0%} ok" if ratio >= goal else f">= {goal:.0%} MISSED")
        failed |= goal is not None and ratio < goal
        print(f"{name:<42} {rps:>10.0f} {p50:>8.2f} {p99:>8.2f} {errors:>7} {ratio:>6.1%}  {verdict}")
        summary.append({"name": name, "requests_per_second": rps, "p50_ms": p50, "p99_ms": p99, "errors": errors, "ratio": ratio, "ratios": ratios})
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
