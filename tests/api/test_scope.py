"""The request scope: what one request remembers, and that it is gone when the request ends."""

from __future__ import annotations

import gc

import pytest

from calpress.api.scope import ApiScope
from calpress.rest.request import RestRequest
from calpress.rest.scope import Scope


def _left_for_the_collector(run) -> list[str]:
    """The request and scope objects ``run`` leaves in reference cycles (only the cyclic garbage
    collector would free them), by type name."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return [type(found).__name__ for found in gc.garbage if isinstance(found, (RestRequest, Scope))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_request_and_its_scope_are_freed_as_the_request_ends(app, client, admin):
    """A request holds its scope and the scope reads the request's user and origin: a strong
    reference both ways would leave every request to the cyclic collector (a full collection
    every few thousand requests on a busy worker)."""
    from content_support import make_item

    make_item(app, title="Listed")

    def run() -> None:
        for _ in range(3):  # the first answers are built, the next ones come from the answer cache
            assert client.get("/cms/v2/posts").status_code == 200
            assert client.get("/cms/v2/users/me", user=admin).status_code == 200
            assert client.get("/cms/v2/posts", params={"_embed": "1"}).status_code == 200
            assert client.get("/").status_code == 200

    assert _left_for_the_collector(run) == []


def test_the_scope_refers_to_its_request_while_it_runs(app):
    request = RestRequest("GET", "/cms/v2/posts", base_url="http://example.test")
    scope = ApiScope(app.site, request)
    assert scope.request is request
    child = scope.child(RestRequest("GET", "/cms/v2/users/1"), share=True)
    assert child.records is scope.records and child.allow is scope.allow
    fresh = scope.child(RestRequest("GET", "/cms/v2/users/1"), share=False)
    assert fresh.records is not scope.records and fresh.allow is not scope.allow
    del request
    gc.collect()
    with pytest.raises(RuntimeError):
        scope.request  # noqa: B018 - the property raises once its request is gone


def test_a_scope_is_made_on_first_use_and_not_for_a_cached_answer(app):
    """The engine gives a request its scope factory, not a scope: an answer from the cache (most
    public traffic) builds none, and a handler that runs sees the generation its answer is cached under."""
    from content_support import make_item

    make_item(app, title="Listed")

    def serve() -> RestRequest:
        request = RestRequest("GET", "/cal/events/v1/events", base_url="http://example.test")
        status, _, _ = app.rest.serve(request)
        assert status == 200
        return request

    built = serve()
    assert built._scope is not None and built._scope.generation == app.rest.generation(built)
    cached = serve()
    assert cached._scope is None
    assert isinstance(cached.scope, ApiScope) and cached.scope.request is cached  # still there when asked

    outside = RestRequest("GET", "/cms/v2/posts")
    with pytest.raises(RuntimeError):
        outside.scope  # noqa: B018 - no engine gave it a scope factory
