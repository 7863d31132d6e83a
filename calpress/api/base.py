"""The ``Api`` object route modules build their routes with: the site, the route registry and
the route index. (Handlers build URLs from route names with ``request.url_for``.)"""

from __future__ import annotations

from dataclasses import dataclass

from ..rest.index import RouteIndex
from ..rest.registry import Registry
from ..site import Site


@dataclass
class Api:
    """What route modules build their routes with, and what handlers read at request time."""

    site: Site
    registry: Registry
    index: RouteIndex
