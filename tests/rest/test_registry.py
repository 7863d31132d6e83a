"""The route registry: namespaces by key, named routes, URLs built from names."""

from __future__ import annotations

import re

import pytest

from calpress.rest.registry import Endpoint, Registry, Route


def ok(request):
    return {}


def make() -> Registry:
    registry = Registry({"shop": "shop/v3"})
    registry.add_all([
        Route("", "/", [Endpoint(("GET",), ok)], name="index"),
        Route("shop", "", [Endpoint(("GET",), ok)], name="shop.index"),
        Route("shop", "/items", [Endpoint(("GET",), ok)], name="shop.items"),
        Route("shop", r"/items/(?P<id>[\d]+)", [Endpoint(("GET", "DELETE"), ok)], name="shop.items.item"),
        Route("shop", r"/items/(?P<parent>[\d]+)/notes/(?P<note>[\w-]+)", [Endpoint(("GET",), ok)], name="shop.notes"),
    ])
    return registry


def test_routes_are_bound_to_the_wire_name_of_their_namespace() -> None:
    registry = make()
    assert [route.pattern for route in registry] == [
        "/", "/shop/v3", "/shop/v3/items", r"/shop/v3/items/(?P<id>[\d]+)", r"/shop/v3/items/(?P<parent>[\d]+)/notes/(?P<note>[\w-]+)",
    ]
    assert registry.namespaces == ["shop/v3"]
    assert [route.name for route in registry.routes_of("shop/v3")] == ["shop.index", "shop.items", "shop.items.item", "shop.notes"]
    assert registry.match("/shop/v3/items/7")[0].name == "shop.items.item"
    assert registry.match("/SHOP/v3/items")[0].name == "shop.items"  # case-insensitive, as the reference


def test_urls_are_built_from_names() -> None:
    registry = make()
    assert registry.path("shop.items.item", id=5) == "/shop/v3/items/5"
    assert registry.path("shop.notes", parent=5, note="a-b") == "/shop/v3/items/5/notes/a-b"
    assert registry.url("http://h/wp-json", "shop.items", [("page", "2")]) == "http://h/wp-json/shop/v3/items?page=2"
    # The ?rest_route= form keeps the route in the query string.
    assert registry.url("http://h/?rest_route=", "shop.items", {"page": 2}) == "http://h/?rest_route=/shop/v3/items&page=2"
    with pytest.raises(KeyError):
        registry.path("shop.items.item")  # a parameter is missing
    with pytest.raises(KeyError):
        registry.path("nope")


def test_a_built_path_matches_its_own_route() -> None:
    registry = make()
    for route in registry:
        values = {name: ("7" if "d" in body else "x-1") for name, body in route.params.items()}
        path = route.path_with(values)
        assert re.fullmatch(route.regex, path), (route.name, path)
        assert registry.match(path)[0] is route


def test_names_patterns_and_namespace_keys_are_checked() -> None:
    registry = make()
    with pytest.raises(ValueError, match="registered twice"):
        registry.add(Route("shop", "/items", [Endpoint(("GET",), ok)], name="other"))
    with pytest.raises(ValueError, match="used twice"):
        registry.add(Route("shop", "/other", [Endpoint(("GET",), ok)], name="shop.items"))
    with pytest.raises(ValueError, match="no namespace"):
        registry.add(Route("nowhere", "/x", [Endpoint(("GET",), ok)], name="x"))


def test_every_route_of_the_app_is_named_and_builds_its_own_address(app) -> None:
    registry = app.api.registry
    routes = list(registry)
    assert len(routes) > 50
    assert all(route.name for route in routes)
    assert len({route.name for route in routes}) == len(routes)
    for route in routes:
        values = {name: ("7" if "\\d" in body else "me" if name == "user_id" else "x") for name, body in route.params.items()}
        path = registry.path(route.name, **values)
        assert registry.match(path)[0] is route, (route.name, path)
