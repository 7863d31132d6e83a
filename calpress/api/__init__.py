"""The REST routes: one module per namespace (or per resource of one), each with a
``routes(api)`` function returning its routes, and the one table below that lists the modules.

The order of ``MODULES`` is the order of the route index (``GET /``), which follows the order in
which the reference registers its routes; ``NAMESPACES`` names each namespace on the wire.
"""

from __future__ import annotations

from ..rest.index import RouteIndex
from ..rest.registry import Registry
from ..site import Site
from . import (
    cal_aggregator,
    cal_events,
    cal_terms,
    cal_views,
    cms_app_passwords,
    cms_comments,
    cms_content,
    cms_media,
    cms_menus,
    cms_search,
    cms_site,
    cms_terms,
    cms_users,
    oembed,
    root,
    site_health,
)
from .base import Api
from .naming import reference_naming

# Namespace keys (what routes name) and their names on the wire, in the order the site
# description lists them (decision 2). The reference's names (wp/v2, tribe/events/v1) are a
# second naming of the same routes (naming.py), answering when the site turns them on.
NAMESPACES: dict[str, str] = {
    "oembed": "oembed/1.0",
    "cal-aggregator": "cal/event-aggregator/v1",
    "cal": "cal/events/v1",
    "cal-views": "cal/views/v2",
    "cms": "cms/v2",
    "site-health": "cms-site-health/v1",
}

# The modules whose routes the service answers, in route-index order.
MODULES = (
    root,
    oembed,
    cal_aggregator,
    cal_events,
    cal_terms,
    cal_views,
    cms_content,
    cms_site,
    cms_users,
    cms_comments,
    cms_app_passwords,
    cms_terms,
    cms_search,
    site_health,
    cms_menus,  # menu locations: the reference registers them after site health
)


def build_api(site: Site) -> Api:
    """The registry with every route of the service."""
    registry = Registry(NAMESPACES)
    api = Api(site=site, registry=registry, index=RouteIndex(registry),
              content_controllers={"attachment": cms_media.MediaController, "nav_menu_item": cms_menus.MenuItemsController},
              term_controllers={"nav_menu": cms_menus.MenusController})
    for module in MODULES:
        registry.add_all(module.routes(api))
    _bound_searches(registry)
    registry.add_naming(reference_naming(NAMESPACES))
    return api


# The longest ``search`` any listing takes. The reference takes any length (its web server's URL
# limit, 8 KB with Apache, bounds GET requests in practice); a megabyte of search text cost about
# 15 s of server time here. Declared on each route's argument, so the route index, OPTIONS and
# /openapi.json say it, and checked before any custom validator.
SEARCH_MAX_LENGTH = 1000


def _bound_searches(registry: Registry) -> None:
    for route in registry:
        for endpoint in route.endpoints:
            search = endpoint.args.get("search")
            if search is not None and "maxLength" not in search:
                endpoint.args["search"] = {**search, "maxLength": SEARCH_MAX_LENGTH}
