"""Settings: one definition per setting (name, default, help), read from CALPRESS_* variables and flags.

The data directory holds the SQLite file, the uploads folder and a secret key generated once on
first start and kept there (never in the repository). ``find_site`` says which data directory a
command works on (a flag, the variable, or the first ``data/`` holding a site from the working
folder up, as WP-CLI finds WordPress); only the commands that may create a site store a new key.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .proxies import parse_networks

ENVIRONMENT_TYPES = ("local", "development", "staging", "production")
INLINE_READS = ("auto", "on", "off")
METRICS_SWITCHES = ("on", "off", "1", "0", "true", "false", "yes", "no")
ACCESS_LOG_SWITCHES = ("on", "off", "stderr", "1", "0", "true", "false", "yes", "no")


@dataclass(frozen=True)
class Setting:
    name: str
    env: str
    default: Any
    help: str


SETTINGS: tuple[Setting, ...] = (
    Setting("data_dir", "CALPRESS_DATA_DIR", "./data", "Folder for the SQLite file, uploads and the secret key. Unset, calpress commands take the first ./data holding a site from the working folder up, else ./data."),
    Setting("database_url", "CALPRESS_DATABASE_URL", "", "SQLAlchemy URL; empty means sqlite:///<data_dir>/calpress.sqlite3. PostgreSQL: postgresql://user@host/db."),
    Setting("site_url", "CALPRESS_SITE_URL", "", "Public address of the site (scheme://host[:port]). Empty: taken from the siteurl option, else from each request's Host."),
    Setting("uploads_dir", "CALPRESS_UPLOADS_DIR", "", "Folder for uploaded files; empty means <data_dir>/uploads."),
    Setting("secret_key", "CALPRESS_SECRET_KEY", "", "Key for cookies, nonces and password hashes; empty means the one generated in <data_dir>/secret.key."),
    Setting("environment", "CALPRESS_ENVIRONMENT", "", "local, development, staging or production. Empty: local when serving on a loopback address, else production."),
    Setting("host", "CALPRESS_HOST", "127.0.0.1", "Address `calpress serve` listens on."),
    Setting("port", "CALPRESS_PORT", 8080, "Port `calpress serve` listens on."),
    Setting("workers", "CALPRESS_WORKERS", 1, "Server worker processes for `calpress serve`."),
    Setting("threads", "CALPRESS_THREADS", 2, "Request threads per worker. Python runs one at a time, so a few are enough; raise it when the database is far away. On SQLite a worker's writes (other than uploads) run one at a time, in as many threads again of their own."),
    Setting("inline_reads", "CALPRESS_INLINE_READS", "auto", "Where `calpress serve` runs a GET or HEAD that only reads stored data (a listing, an item, a term...): on, on the worker's event loop, which spares the hand-over to a request thread and back (about 1.5 times the uncached requests per second on SQLite); off, in a request thread like every other request, so that one request's database round trips overlap another's work; auto (the default), on for SQLite and for PostgreSQL on this machine (a Unix socket or a loopback address), off for a database over the network."),
    Setting("memo_size", "CALPRESS_MEMO_SIZE", 2048, "Representations each worker keeps until a record they were built from changes (store/memo.py): events (and their terms) and cms/v2 items, per requester, about 12 KB each; 0 keeps none, so every page is built from the database."),
    Setting("log_level", "CALPRESS_LOG_LEVEL", "warning", "debug, info, warning or error. Logs are JSON lines on stderr."),
    Setting("access_log", "CALPRESS_ACCESS_LOG", "on", "One JSON line per request (time, request id, method, path, query with secrets redacted, status, bytes, duration, client address, user id, route name): on, with the other logs on stderr; off; or the path of a file (with a /) to append them to, reopened when rotated. /healthz and /readyz are logged only with CALPRESS_LOG_LEVEL=debug."),
    Setting("trusted_proxies", "CALPRESS_TRUSTED_PROXIES", "", "Reverse proxies (addresses and CIDR networks, comma-separated: 127.0.0.1,10.0.0.0/8,::1) whose Forwarded or X-Forwarded-For/-Proto/-Host headers give the client's address, the scheme and the host, and whose X-Request-Id is kept. Empty (the default): those headers are ignored, and every client behind a proxy has the proxy's address."),
    Setting("metrics", "CALPRESS_METRICS", "off", "Prometheus metrics (requests, latency, caches, database pool, imports, failed logins) at /metrics on the site's port: on, or off (the default: /metrics is an ordinary address of the site). With several workers, calpress serve sums every worker's values."),
    Setting("metrics_allow", "CALPRESS_METRICS_ALLOW", "127.0.0.1/32,::1", "Addresses and CIDR networks (comma-separated) that may read /metrics, checked against the client's address after CALPRESS_TRUSTED_PROXIES; anyone else is answered as if metrics were off (the site's 404)."),
    Setting("body_timeout", "CALPRESS_BODY_TIMEOUT", 15, "Seconds a client may pause while sending a request body before it is answered 408 (calpress serve reads bodies before a request thread is taken)."),
    Setting("max_upload", "CALPRESS_MAX_UPLOAD", 100 * 1024 * 1024, "Largest file upload in bytes: a raw body (media uploads) or a multipart form (413 beyond it, refused from Content-Length before anything is read). Such bodies are written to a temporary file as they arrive, never held whole in memory."),
    Setting("batch_max_requests", "CALPRESS_BATCH_MAX_REQUESTS", 25, "Most requests one POST /batch/v1 may carry (the reference's 25; more is a 400 before any runs)."),
    Setting("max_body", "CALPRESS_MAX_BODY", 8 * 1024 * 1024, "Largest JSON or form request body in bytes (413 beyond it, refused from Content-Length before anything is read). Requests without credentials may send 1 MB at most."),
    Setting("login_max_failures", "CALPRESS_LOGIN_MAX_FAILURES", 0, "Failed logins (wrong password or unknown user) per user name and per client address before further attempts are refused for CALPRESS_LOGIN_LOCKOUT seconds; 0 (the default, as the reference) turns the throttle off."),
    Setting("login_lockout", "CALPRESS_LOGIN_LOCKOUT", 900, "Seconds a window of failed logins lasts: once CALPRESS_LOGIN_MAX_FAILURES are reached within it, attempts are refused until it ends."),
    Setting("outbound_ports", "CALPRESS_OUTBOUND_PORTS", "80,443,8080", "Ports outbound requests (URL checks, imports) may use, comma-separated; the reference allows 80, 443 and 8080."),
    Setting("outbound_allow", "CALPRESS_OUTBOUND_ALLOW", "", "Hosts, addresses or networks outbound requests may reach although not public, comma-separated, each optionally with :port (127.0.0.1:8765, 10.0.0.0/8, [::1]:9000, feeds.internal). A :port entry also allows that port."),
    Setting("compat_aliases", "CALPRESS_COMPAT_ALIASES", "0", "1: serve every route under the reference's names too (wp/v2, wp-site-health/v1, tribe/events/v1, tribe/views/v2, tribe/event-aggregator/v1; tribe_events, tribe_venue, tribe_organizer, tribe_events_cat), for clients that hard-code them, answering in the names the request used. 0 (the default): only when the site option calpress_compat_aliases is true."),
    Setting("s3_bucket", "CALPRESS_S3_BUCKET", "", "S3-compatible bucket for uploaded files; empty (the default) keeps them in the uploads folder."),
    Setting("s3_endpoint", "CALPRESS_S3_ENDPOINT", "", "Address of the S3-compatible service, scheme://host[:port] (https://s3.us-east-1.amazonaws.com, http://127.0.0.1:9000). Requests go through the outbound guard: a private or loopback endpoint needs CALPRESS_OUTBOUND_ALLOW."),
    Setting("s3_region", "CALPRESS_S3_REGION", "us-east-1", "Region the S3 requests are signed for."),
    Setting("s3_access_key", "CALPRESS_S3_ACCESS_KEY", "", "Access key id of the S3 bucket."),
    Setting("s3_secret_key", "CALPRESS_S3_SECRET_KEY", "", "Secret access key of the S3 bucket (keep it in the environment, never in the repository)."),
    Setting("s3_public_url", "CALPRESS_S3_PUBLIC_URL", "", "Public address serving the bucket's objects (a CDN, a public bucket); empty means <endpoint>/<bucket>."),
    Setting("s3_prefix", "CALPRESS_S3_PREFIX", "", "Folder inside the bucket the files are kept under (site1/ ...); empty means the bucket's root."),
    Setting("smtp_url", "CALPRESS_SMTP_URL", "", "SMTP server for the site's mail (password reset links): smtp://[user:password@]host[:port][?starttls=1] or smtps://host[:port]; ?timeout=<seconds>, ?cafile=<path> too. Empty: mail is not set up, and reset links are written to the log (warning level) for the administrator."),
    Setting("mail_from", "CALPRESS_MAIL_FROM", "", "Sender of the site's mail (an address, or Name <address>); empty means WordPress <wordpress@<site host>>, as the reference."),
)


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("./data")
    database_url: str = ""
    site_url: str = ""
    uploads_dir: Path = Path("./data/uploads")
    secret_key: str = ""
    environment: str = "production"
    host: str = "127.0.0.1"
    port: int = 8080
    workers: int = 1
    threads: int = 2
    inline_reads: str = "auto"
    memo_size: int = 2048
    log_level: str = "warning"
    # The access log (access_log.py): on (stderr), off, or a file path; and the proxies whose
    # forwarding headers are believed (proxies.py), as the comma-separated text of the variable.
    access_log: str = "on"
    trusted_proxies: str = ""
    # Prometheus metrics (metrics.py): off or on, and who may read them.
    metrics: str = "off"
    metrics_allow: str = "127.0.0.1/32,::1"
    max_body: int = 8 * 1024 * 1024
    max_upload: int = 100 * 1024 * 1024
    batch_max_requests: int = 25
    body_timeout: int = 15
    # The password-guessing throttle (auth/throttle.py); off while login_max_failures is 0.
    login_max_failures: int = 0
    login_lockout: int = 900
    # Kept as the comma-separated text of the variable (``calpress serve`` hands settings to its
    # workers as strings); calpress.net parses and checks them when it builds its policy.
    outbound_ports: str = "80,443,8080"
    outbound_allow: str = ""
    # The reference's names as aliases of every route (api/naming.py): on for every request, or
    # (False) as the site option calpress_compat_aliases says.
    compat_aliases: bool = False
    # An S3-compatible bucket for uploads (media/s3.py), used when s3_bucket is set.
    s3_bucket: str = ""
    s3_endpoint: str = ""
    s3_region: str = "us-east-1"
    s3_access_key: str = ""
    s3_secret_key: str = ""
    s3_public_url: str = ""
    s3_prefix: str = ""
    # Outbound mail (mail.py): empty smtp_url means mail is not set up.
    smtp_url: str = ""
    mail_from: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def with_overrides(self, **changes: Any) -> Settings:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _coerce(name: str, value: Any) -> Any:
    if name in ("port", "workers", "threads", "memo_size", "max_body", "max_upload", "batch_max_requests", "body_timeout", "login_max_failures", "login_lockout"):
        return int(value)
    if name in ("data_dir", "uploads_dir"):
        return Path(value)
    if name == "compat_aliases":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text not in ("0", "1", "true", "false", "on", "off", "yes", "no", ""):
            raise ValueError("CALPRESS_COMPAT_ALIASES must be 1 or 0")
        return text in ("1", "true", "on", "yes")
    return value


def is_loopback(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1", "[::1]") or host.startswith("127.")


SITE_MARKERS = ("secret.key", "calpress.sqlite3")
FROM_FLAG = "from --data-dir"
FROM_ENV = "from CALPRESS_DATA_DIR"
FOUND_HERE = "found in the working folder"
FOUND_ABOVE = "found above the working folder"
NOT_FOUND = "no site in the working folder or above it"


@dataclass(frozen=True)
class SiteLocation:
    """The data directory a command works on, and how it was chosen (one of the texts above)."""

    data_dir: Path
    how: str


def holds_site(folder: Path) -> bool:
    """Whether ``folder`` is the data directory of a site: it holds its secret key or SQLite file."""
    return any((folder / marker).is_file() for marker in SITE_MARKERS)


def find_site(data_dir: str | None = None, environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> SiteLocation:
    """The data directory of the site a command works on, as WP-CLI finds WordPress.

    ``data_dir`` (the --data-dir flag), else CALPRESS_DATA_DIR, else the first ``data/`` holding
    a site (``holds_site``) in the working folder or one above it, else ``./data`` of the working
    folder, for a new site. Only looks: nothing is created.
    """
    env = os.environ if environ is None else environ
    here = Path.cwd() if cwd is None else cwd
    if data_dir:
        return SiteLocation((here / Path(data_dir).expanduser()).resolve(), FROM_FLAG)
    if env.get("CALPRESS_DATA_DIR"):
        return SiteLocation((here / Path(env["CALPRESS_DATA_DIR"]).expanduser()).resolve(), FROM_ENV)
    here = here.resolve()
    for folder in (here, *here.parents):
        if holds_site(folder / "data"):
            return SiteLocation(folder / "data", FOUND_HERE if folder == here else FOUND_ABOVE)
    return SiteLocation(here / "data", NOT_FOUND)


def load_settings(
    overrides: dict[str, Any] | None = None, environ: dict[str, str] | None = None, *, store_secret: bool = True
) -> Settings:
    """Settings from defaults, then CALPRESS_* variables, then explicit overrides (flags).

    Derived values are filled in here: the database URL, the uploads folder, the secret key
    (read from the data directory; generated once into it unless ``store_secret`` is false, which
    leaves it empty when the data directory has none) and the environment type.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        raw = env.get(setting.env)
        values[setting.name] = _coerce(setting.name, raw if raw not in (None, "") else setting.default)
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = _coerce(key, value)

    data_dir = Path(values["data_dir"]).expanduser().resolve()
    values["data_dir"] = data_dir
    if not values["database_url"]:
        values["database_url"] = f"sqlite:///{data_dir / 'calpress.sqlite3'}"
    uploads = values.get("uploads_dir")
    values["uploads_dir"] = Path(uploads).expanduser().resolve() if uploads and str(uploads) not in ("", ".") else data_dir / "uploads"
    if not values["environment"]:
        values["environment"] = "local" if is_loopback(str(values["host"])) else "production"
    if values["environment"] not in ENVIRONMENT_TYPES:
        raise ValueError(f"CALPRESS_ENVIRONMENT must be one of {', '.join(ENVIRONMENT_TYPES)}")
    if values["login_max_failures"] < 0:
        raise ValueError("CALPRESS_LOGIN_MAX_FAILURES must be 0 (no throttle) or a positive number of failed logins")
    values["inline_reads"] = str(values["inline_reads"]).strip().lower()
    if values["inline_reads"] not in INLINE_READS:
        raise ValueError("CALPRESS_INLINE_READS must be auto, on or off")
    if values["memo_size"] < 0:
        raise ValueError("CALPRESS_MEMO_SIZE must be 0 (keep nothing) or a positive number of representations")
    if values["login_lockout"] < 1:
        raise ValueError("CALPRESS_LOGIN_LOCKOUT must be a positive number of seconds")
    values["trusted_proxies"] = ",".join(str(network) for network in parse_networks(values["trusted_proxies"]))
    values["access_log"] = str(values["access_log"]).strip()
    if values["access_log"].lower() not in ACCESS_LOG_SWITCHES and "/" not in values["access_log"]:
        raise ValueError("CALPRESS_ACCESS_LOG must be on, off or the path of a file (with a /: ./access.log)")
    values["metrics"] = str(values["metrics"]).strip().lower()
    if values["metrics"] not in METRICS_SWITCHES:
        raise ValueError("CALPRESS_METRICS must be on or off")
    values["metrics"] = "on" if values["metrics"] in ("on", "1", "true", "yes") else "off"
    try:
        values["metrics_allow"] = ",".join(str(network) for network in parse_networks(values["metrics_allow"]))
    except ValueError as err:
        raise ValueError(str(err).replace("CALPRESS_TRUSTED_PROXIES", "CALPRESS_METRICS_ALLOW")) from None
    if not values["secret_key"]:
        values["secret_key"] = _stored_secret(data_dir) if store_secret else _read_secret(data_dir)
    values["site_url"] = str(values["site_url"]).rstrip("/")
    known = {f.name for f in fields(Settings)}
    return Settings(**{k: v for k, v in values.items() if k in known})


def with_stored_secret(settings: Settings) -> Settings:
    """``settings`` with the data directory's secret key, generated now when it has none (for
    the commands that may create a site, once they know they may)."""
    return settings if settings.secret_key else replace(settings, secret_key=_stored_secret(settings.data_dir))


def _read_secret(data_dir: Path) -> str:
    try:
        return (data_dir / "secret.key").read_text().strip()
    except (FileNotFoundError, NotADirectoryError):
        return ""


def _stored_secret(data_dir: Path) -> str:
    """The data directory's secret key, created on first use with owner-only permissions."""
    path = data_dir / "secret.key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    # Write a private temp file, then link it into place: the link is atomic, so a second worker
    # starting at the same moment either wins or reads the complete key of the first.
    tmp = data_dir / f".secret.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    try:
        os.link(tmp, path)
    except FileExistsError:
        key = path.read_text().strip()
    finally:
        tmp.unlink()
    return key
