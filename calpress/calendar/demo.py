"""``calpress seed-demo``: realistic demo data in bulk (events with venues, organizers,
categories and tags), streamed in batches so memory stays flat whatever the count.

The rows are the same ones the API writes (posts with the calendar's meta mirror, the typed
``events`` row, venue/organizer links, term links, term counts, the content counter), but they
are inserted many at a time instead of item by item: 100,000 events take a minute, not an hour.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import sqlalchemy as sa

from ..content import object_terms
from ..content import terms as term_store
from ..content.items import Context, ItemChanges, create_item, now_utc, permalink, to_local
from ..content.slugs import sanitize_title
from ..store.changes import record as record_change
from ..store.tables import event_links, events, posts, term_links
from . import events as cal

_WHAT = ("Jazz Night", "Farmers Market", "Book Club", "Yoga in the Park", "Tech Meetup", "Film Screening", "Open Mic",
         "Pottery Workshop", "Charity Run", "Chess Tournament", "Wine Tasting", "Science Talk", "Choir Rehearsal",
         "Kids Story Time", "Photography Walk", "Startup Pitch", "Salsa Class", "Poetry Reading", "Beer Festival",
         "Museum Tour")
_CITIES = (("Springfield", "IL", "United States"), ("Portland", "OR", "United States"), ("Toronto", "", "Canada"),
           ("Lyon", "", "France"), ("Bologna", "", "Italy"), ("Leeds", "", "United Kingdom"), ("Austin", "TX", "United States"))
_CATEGORIES = ("Music", "Sports", "Arts", "Education", "Food & Drink", "Community", "Technology", "Family", "Outdoors", "Health")
_TAGS = ("free", "outdoor", "indoor", "kids", "weekend", "evening", "beginner", "advanced", "charity", "festival",
         "workshop", "talk", "live", "online", "seasonal", "local", "popular", "new", "members", "accessible")


@dataclass
class Progress:
    """A one-line progress bar on a terminal stream (plain lines when it is not a terminal)."""

    label: str
    total: int
    stream: TextIO | None = None  # sys.stderr at the time of use
    width: int = 30

    def __post_init__(self) -> None:
        if self.stream is None:
            self.stream = sys.stderr
        self.started = time.monotonic()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_line = -1

    def update(self, done: int) -> None:
        elapsed = time.monotonic() - self.started
        filled = int(self.width * done / self.total) if self.total else self.width
        rate = done / elapsed if elapsed > 0 else 0.0
        text = f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} {elapsed:.1f}s {rate:,.0f}/s"
        if self.tty:
            self.stream.write("\r" + text)
        else:
            decile = int(10 * done / self.total) if self.total else 10
            if decile == self._last_line:
                return
            self._last_line = decile
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _linked(conn: sa.Connection, ctx: Context, content_type: str, count: int, rng: random.Random) -> list[int]:
    """Venues or organizers for the demo: reuse the ones a previous run made, create the rest."""
    ids = list(conn.execute(
        sa.select(posts.c.id).where(posts.c.type == content_type, posts.c.status == "publish").order_by(posts.c.id).limit(count)
    ).scalars())
    for n in range(len(ids), count):
        if content_type == cal.VENUE_TYPE:
            city, state, country = _CITIES[n % len(_CITIES)]
            data = cal.LinkedInput(title=f"Demo Venue {n + 1}", description=f"A demo venue in {city}.",
                                   fields={"address": f"{rng.randint(1, 400)} Main St", "city": city, "state": state,
                                           "country": country, "zip": f"{rng.randint(10000, 99999)}",
                                           "phone": f"+1 555 {rng.randint(1000, 9999)}"})
        else:
            data = cal.LinkedInput(title=f"Demo Organizer {n + 1}", description="A demo organizer.",
                                   fields={"email": f"organizer{n + 1}@example.org", "phone": f"+1 555 {rng.randint(1000, 9999)}",
                                           "website": f"https://organizer{n + 1}.example.org"})
        data.status = "publish"
        changes = ItemChanges(title=data.title, content=data.description, status="publish",
                              meta=cal.linked_meta(content_type, data))
        ids.append(create_item(conn, ctx, ctx.registry.types[content_type], changes).id)
    return ids


def _terms(conn: sa.Connection, ctx: Context, taxonomy: str, names: tuple[str, ...]) -> list[int]:
    definition = ctx.registry.taxonomies[taxonomy]
    found = []
    for name in names:
        term = term_store.find_term(conn, taxonomy, name) or term_store.create_term(conn, definition, name)
        found.append(term.id)
    return found


def seed_demo(
    site: Any,
    count: int,
    *,
    seed: int = 1,
    batch: int = 2000,
    author: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Create ``count`` published demo events (and the venues, organizers and terms they use);
    returns how many were created. Each batch is one transaction."""
    rng = random.Random(seed)
    options = site.load_options()
    zone, zone_name = cal.site_timezone(options)
    ctx = Context(options=options, home=site.home_url(), user=_Seeder(), site=site)
    with site.write() as conn:
        venues = _linked(conn, ctx, cal.VENUE_TYPE, max(1, min(500, count // 20)), rng)
        organizers = _linked(conn, ctx, cal.ORGANIZER_TYPE, max(1, min(500, count // 20)), rng)
        categories = _terms(conn, ctx, "cal_events_cat", _CATEGORIES)
        tags = _terms(conn, ctx, "post_tag", _TAGS)
        first = conn.execute(sa.select(sa.func.count()).select_from(events)).scalar_one() + 1
    now = now_utc()
    today = to_local(now, zone).replace(hour=0, minute=0, second=0)
    created = 0
    for start in range(0, count, batch):
        size = min(batch, count - start)
        with site.write() as conn:
            _insert_batch(conn, ctx, rng, range(first + start, first + start + size), today, now, zone, zone_name,
                          venues, organizers, categories, tags, author)
        created += size
        if progress is not None:
            progress(created)
        if (start // batch) % 10 == 0:
            _analyze(site)
    with site.write() as conn:
        object_terms.recount(conn, site.registry, [*categories, *tags])
        record_change(conn, "item", "import")  # the bulk inserts above bypass the item service
    _analyze(site)
    return created


def _analyze(site: Any) -> None:
    """Fresh planner statistics on PostgreSQL during and after a bulk load, so that lookups use
    their indexes (a never-analyzed table looks empty to the planner, which then scans it) and
    listings read along the start-date index without waiting for autovacuum."""
    if site.engine.dialect.name != "postgresql":
        return
    with site.engine.connect() as conn:
        conn.execute(sa.text("ANALYZE posts, events, event_links, term_links"))
        conn.commit()


class _Seeder:
    """The acting user of the seeder: may do anything, stores content unfiltered."""

    id = 0

    def can(self, capability: str, *args: Any) -> bool:
        return True

    def __bool__(self) -> bool:
        return True


def _insert_batch(
    conn: sa.Connection, ctx: Context, rng: random.Random, numbers: range, today: dt.datetime, now: dt.datetime,
    zone: dt.tzinfo, zone_name: str, venues: list[int], organizers: list[int], categories: list[int], tags: list[int],
    author: int | None,
) -> None:
    post_rows: list[dict[str, Any]] = []
    details: list[tuple[dt.datetime, dt.datetime, bool, bool, int, list[int], list[int], list[int]]] = []
    local_now = to_local(now, zone)
    for number in numbers:
        what = _WHAT[number % len(_WHAT)]
        title = f"{what} #{number}"
        day = today + dt.timedelta(days=rng.randint(-30, 700))
        all_day = rng.random() < 0.1
        if all_day:
            start, end = day, day.replace(hour=23, minute=59, second=59)
        else:
            start = day.replace(hour=rng.randint(8, 21), minute=rng.choice((0, 15, 30, 45)))
            end = start + dt.timedelta(minutes=rng.choice((60, 90, 120, 180)))
        venue = venues[rng.randrange(len(venues))]
        org = rng.sample(organizers, k=min(len(organizers), rng.choice((1, 1, 2))))
        cost = rng.choice(("", "0", "10", "15", "20 - 35", "$5"))
        start_utc, end_utc = cal.wall_to_utc(start, zone), cal.wall_to_utc(end, zone)
        meta: dict[str, Any] = {
            "_EventStartDate": cal.db_datetime(start), "_EventEndDate": cal.db_datetime(end),
            "_EventStartDateUTC": cal.db_datetime(start_utc), "_EventEndDateUTC": cal.db_datetime(end_utc),
            "_EventTimezone": zone_name, "_EventShowMap": True, "_EventShowMapLink": True,
            "_EventVenueID": [venue], "_EventOrganizerID": org,
        }
        if all_day:
            meta["_EventAllDay"] = True
        if cost:
            meta["_EventCost"] = cost
        post_rows.append({
            "type": cal.EVENT_TYPE, "status": "publish", "author": author, "parent": 0, "menu_order": 0,
            "slug": sanitize_title(title), "title": title,
            "content": f"<!-- wp:paragraph -->\n<p>{what} number {number}, a demo event.</p>\n<!-- /wp:paragraph -->",
            "excerpt": "", "password": "", "date_local": local_now, "date_utc": now, "modified_local": local_now,
            "modified_utc": now, "comment_status": "open", "ping_status": "open", "guid": "", "meta": meta,
        })
        picked_terms = [categories[number % len(categories)], *rng.sample(tags, k=rng.randint(0, 2))]
        details.append((start, end, all_day, rng.random() < 0.1, venue, org, picked_terms, [start_utc, end_utc]))
    taken = set(conn.execute(
        sa.select(posts.c.slug).where(posts.c.type == cal.EVENT_TYPE, posts.c.slug.in_([r["slug"] for r in post_rows]))
    ).scalars())
    for row in post_rows:
        if row["slug"] in taken:
            row["slug"] = f"{row['slug']}-{rng.randint(2, 10**9)}"
        # The GUID is the address at creation; event addresses are made of the slug, not the id.
        row["guid"] = _guid(ctx, 0, row)
    ids = conn.execute(sa.insert(posts).returning(posts.c.id, sort_by_parameter_order=True), post_rows).scalars().all()
    event_rows, link_rows, tag_rows = [], [], []
    for post_id, row, (start, end, all_day, featured, venue, org, picked_terms, utc) in zip(ids, post_rows, details, strict=True):
        event_rows.append({"post_id": post_id, "start_local": start, "end_local": end, "start_utc": utc[0], "end_utc": utc[1],
                           "timezone": row["meta"]["_EventTimezone"], "all_day": all_day, "featured": featured,
                           "sticky": False, "hidden": False})
        link_rows.append({"event_id": post_id, "kind": "venue", "linked_id": venue, "position": 0})
        link_rows.extend({"event_id": post_id, "kind": "organizer", "linked_id": o, "position": n} for n, o in enumerate(org))
        tag_rows.extend({"object_id": post_id, "term_id": t, "position": n} for n, t in enumerate(dict.fromkeys(picked_terms)))
    for table, rows in ((events, event_rows), (event_links, link_rows), (term_links, tag_rows)):
        _bulk_insert(conn, table, rows)


def _bulk_insert(conn: sa.Connection, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    """Insert plain rows: COPY on PostgreSQL (one round trip for the batch), executemany elsewhere."""
    if not rows:
        return
    if conn.dialect.name != "postgresql":
        conn.execute(sa.insert(table), rows)
        return
    names = list(rows[0])
    cursor = conn.connection.driver_connection.cursor()
    with cursor.copy(f"COPY {table.name} ({', '.join(names)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(tuple(row[name] for name in names))


def _guid(ctx: Context, post_id: int, row: dict[str, Any]) -> str:
    from ..content.items import Item

    item = Item(id=post_id, type=row["type"], status=row["status"], author=row["author"] or 0, parent=0, menu_order=0,
                slug=row["slug"], title=row["title"], content="", excerpt="", password="", date_local=row["date_local"],
                date_utc=row["date_utc"], modified_local=row["modified_local"], modified_utc=row["modified_utc"],
                comment_status="open", ping_status="open", mime_type="", guid="", comment_count=0)
    return permalink(ctx, item)


# -- a demo iCalendar feed ------------------------------------------------------------------------

_FEED_ZONES = ("Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC")


def demo_feed(count: int, *, seed: int = 1, today: dt.date | None = None, series_share: float = 0.3,
              per_series: int = 10) -> bytes:
    """An iCalendar feed whose events come to ``count`` single events once its series are
    expanded: about ``series_share`` of them occurrences of weekly series of ``per_series``
    (some with an EXDATE replaced by an RDATE, so the count holds), the rest one-off events,
    timed in a few zones or all-day, with LOCATION, ORGANIZER and CATEGORIES drawn from small
    pools. Everything falls between ``today`` - 20 days and ``today`` + 320 days, inside an
    import's default window. For trying imports, tests and ``bench/imports.py``."""
    rng = random.Random(seed)
    today = today or dt.date.today()
    series = int(count * series_share) // per_series
    singles = count - series * per_series
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//calpress//demo feed//EN", "X-WR-CALNAME:Demo feed"]

    def event(uid: str, summary: str, start: dt.datetime | dt.date, minutes: int, zone: str, *extra: str) -> None:
        lines.extend(["BEGIN:VEVENT", f"UID:{uid}", "DTSTAMP:20260101T000000Z", f"SUMMARY:{summary}"])
        if isinstance(start, dt.datetime):
            end = start + dt.timedelta(minutes=minutes)
            lines.append(f"DTSTART;TZID={zone}:{start:%Y%m%dT%H%M%S}")
            lines.append(f"DTEND;TZID={zone}:{end:%Y%m%dT%H%M%S}")
        else:
            lines.append(f"DTSTART;VALUE=DATE:{start:%Y%m%d}")
            lines.append(f"DTEND;VALUE=DATE:{start + dt.timedelta(days=1 + minutes // 1440):%Y%m%d}")
        city, _, country = _CITIES[rng.randrange(len(_CITIES))]
        number = rng.randrange(50)
        lines.append(f"LOCATION:Demo Hall {number}\\, {number + 1} Main St\\, {city}\\, {country}")
        organizer = rng.randrange(30)
        lines.append(f"ORGANIZER;CN=Demo Organizer {organizer}:mailto:organizer{organizer}@example.org")
        lines.append("CATEGORIES:" + ",".join(rng.sample(_CATEGORIES, rng.randint(1, 2))).replace("&", "and"))
        lines.append(f"DESCRIPTION:{summary}: a demo event.")
        lines.extend(extra)
        lines.append("END:VEVENT")

    def moment(day: dt.date) -> dt.datetime:
        return dt.datetime.combine(day, dt.time(rng.randrange(8, 21), rng.choice((0, 15, 30, 45))))

    for n in range(singles):
        day = today + dt.timedelta(days=rng.randrange(-20, 320))
        what = _WHAT[rng.randrange(len(_WHAT))]
        if rng.random() < 0.1:
            event(f"demo-single-{n}@calpress.invalid", f"{what} {n}", day, 1440 * rng.randrange(3), "UTC")
        else:
            event(f"demo-single-{n}@calpress.invalid", f"{what} {n}", moment(day), rng.choice((60, 90, 120, 180)),
                  _FEED_ZONES[rng.randrange(len(_FEED_ZONES))])
    for n in range(series):
        zone = _FEED_ZONES[rng.randrange(len(_FEED_ZONES))]
        start = moment(today + dt.timedelta(days=rng.randrange(-20, 240)))
        extra = [f"RRULE:FREQ=WEEKLY;COUNT={per_series}"]
        if n % 3 == 0 and per_series > 2:
            # One week skipped, an extra day added: still ``per_series`` occurrences.
            skipped = start + dt.timedelta(weeks=1)
            added = start + dt.timedelta(days=per_series * 7 + 1)
            extra += [f"EXDATE;TZID={zone}:{skipped:%Y%m%dT%H%M%S}", f"RDATE;TZID={zone}:{added:%Y%m%dT%H%M%S}"]
        event(f"demo-series-{n}@calpress.invalid", f"{_WHAT[n % len(_WHAT)]} series {n}", start, 90, zone, *extra)
    lines.append("END:VCALENDAR")
    return ("\r\n".join(lines) + "\r\n").encode()
