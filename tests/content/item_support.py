"""Helpers shared by the item service tests (tests/content/test_item_*.py): a user who may do
everything, a service context, and items written, updated and read back through the service."""

from __future__ import annotations

import contextlib
import threading

from calpress.content import items

HOME = "http://example.test"


class Boss:
    """A user who may do everything (so that no capability rule interferes)."""

    id = 0

    def can(self, capability, *args):
        return True

    def __bool__(self):
        return True


def ctx(site, **options):
    return items.Context.of(site, options={**site.load_options(), **options}, home=HOME, user=Boss())


def create(site, type_="post", context=None, **changes):
    """Create an item, published unless a status is given."""
    changes.setdefault("status", "publish")
    context = context or ctx(site)
    with site.write() as conn:
        return items.create_item(conn, context, site.registry.types[type_], items.ItemChanges(**changes))


def update(site, item, context=None, **changes):
    context = context or ctx(site)
    with site.write() as conn:
        return items.update_item(conn, context, item, items.ItemChanges(**changes))


def stored(site, item_id):
    with site.read() as conn:
        return items.get_item(conn, item_id)


def in_threads(count, work):
    errors = []

    def run(n):
        try:
            work(n)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@contextlib.contextmanager
def held_open(site, type_="post", **changes):
    """Within the block, another thread's write transaction that created an item (published)
    is still open, holding whatever locks its save took; it commits when the block ends."""
    changes.setdefault("status", "publish")
    inside, release, errors = threading.Event(), threading.Event(), []

    def hold():
        try:
            with site.write() as conn:
                items.create_item(conn, ctx(site), site.registry.types[type_], items.ItemChanges(**changes))
                inside.set()
                release.wait(30)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
            inside.set()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(10) and not errors, errors
        yield
    finally:
        release.set()
        holder.join(10)
    assert errors == []
