"""The REST routes, one module per namespace; each module's ``register(api)`` adds its routes."""

from __future__ import annotations

from dataclasses import dataclass

from ..rest.index import RouteIndex
from ..rest.registry import Registry
from ..site import Site

# The namespaces of the site description, in the order the reference registers them (decision 2).
NAMESPACES = (
    "oembed/1.0",
    "cal/event-aggregator/v1",
    "cal/events/v1",
    "cal/views/v2",
    "cms/v2",
    "cms-site-health/v1",
)


@dataclass
class Api:
    """What route modules register into and read from."""

    site: Site
    registry: Registry
    index: RouteIndex


def build_api(site: Site) -> Api:
    """The registry with every route of the service."""
    from . import (
        cal_events,
        cal_terms,
        cms_app_passwords,
        cms_comments,
        cms_content,
        cms_search,
        cms_site,
        cms_terms,
        cms_users,
        root,
    )

    registry = Registry()
    api = Api(site=site, registry=registry, index=RouteIndex(registry))
    root.register(api)
    for name in NAMESPACES:
        registry.namespace(name)
    cal_events.register(api)
    cal_terms.register(api)
    cms_content.register(api)
    cms_site.register(api)
    cms_users.register(api)
    cms_comments.register(api)
    cms_app_passwords.register(api)
    cms_terms.register(api)
    cms_search.register(api)
    return api
