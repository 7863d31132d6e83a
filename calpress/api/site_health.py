"""``/cms-site-health/v1``: the site health tests and the directory sizes (cms-api.md 5).

Thin handlers over :mod:`calpress.health`, which holds the checks and says what each one really
looks at. Every route needs ``view_site_health_checks`` (administrators); the engine answers the
reference's ``rest_forbidden`` otherwise (401 anonymous, 403 logged in). None is batch-enabled or
cached: each answer is measured anew.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import health
from ..rest.errors import RestError
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from .base import Api
from .scope import context_of, scope_of

# The reference's schema of a test answer (its title keeps the reference's name: only namespaces
# are renamed).
TEST_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "title": "wp-site-health-test",
    "type": "object",
    "properties": {
        "test": {"type": "string", "description": "The name of the test being run.", "readonly": True},
        "label": {"type": "string", "description": "A label describing the test.", "readonly": True},
        "status": {
            "type": "string",
            "description": "The status of the test.",
            "enum": ["good", "recommended", "critical"],
            "readonly": True,
        },
        "badge": {
            "type": "object",
            "description": "The category this test is grouped in.",
            "properties": {
                "label": {"type": "string", "readonly": True},
                "color": {"type": "string", "enum": ["blue", "orange", "red", "green", "purple", "gray"], "readonly": True},
            },
            "readonly": True,
        },
        "description": {
            "type": "string",
            "description": "A more descriptive explanation of what the test looks for, and why it is important for the user.",
            "readonly": True,
        },
        "actions": {
            "type": "string",
            "description": "HTML containing an action to direct the user to where they can resolve the issue.",
            "readonly": True,
        },
    },
}


def can_view_site_health(request: RestRequest) -> bool:
    """The reference's capability for every site health route (administrators); False lets the
    engine answer ``rest_forbidden``, 401 or 403 by whether someone is logged in."""
    return context_of(request).can("view_site_health_checks")


def routes(api: Api) -> list[Route]:
    """The tests and the directory sizes, in the reference's order."""
    site = api.site

    def test_route(path: str, run: Callable[[RestRequest], health.CheckResult]) -> Route:
        def handler(request: RestRequest) -> dict[str, Any]:
            return run(request).to_dict()

        return Route(
            "site-health",
            f"/tests/{path}",
            [Endpoint(("GET",), handler, can_view_site_health)],
            name=f"site-health.{path}",
            schema=lambda: TEST_SCHEMA,
        )

    def directory_sizes(request: RestRequest) -> dict[str, Any]:
        sizes = health.directory_sizes(site)
        if sizes["total_size"].debug == "not available":
            raise RestError("not_available", "Directory sizes could not be returned.", status=500)
        return health.wire_sizes(sizes)

    return [
        test_route("background-updates", lambda request: health.background_updates(site.engine)),
        test_route("loopback-requests", lambda request: health.loopback_requests(scope_of(request).site_url)),
        test_route(
            "https-status",
            lambda request: health.https_status(
                scope_of(request).site_url, scope_of(request).home, over_https=request.origin.startswith("https://")
            ),
        ),
        test_route("dotorg-communication", lambda request: health.dotorg_communication(site.http)),
        test_route("authorization-header", lambda request: health.authorization_header(request.get_header("authorization"))),
        Route(
            "site-health",
            "/directory-sizes",
            [Endpoint(("GET",), directory_sizes, can_view_site_health)],
            name="site-health.directory-sizes",
        ),
        test_route("page-cache", lambda request: health.page_cache(scope_of(request).home)),
    ]
