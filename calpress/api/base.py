"""The ``Api`` object route modules build their routes with: the site, the route registry, the
route index and the controllers that extend the generic ones; and the names of the term routes.
(Handlers build URLs from route names with ``request.url_for``.)"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..content.taxonomies import Taxonomy
from ..rest.index import RouteIndex
from ..rest.registry import Registry
from ..site import Site

if TYPE_CHECKING:
    from .cms_content import ContentController
    from .cms_terms import TermsController


@dataclass
class Api:
    """What route modules build their routes with, and what handlers read at request time."""

    site: Site
    registry: Registry
    index: RouteIndex
    # The controller serving a type (or a taxonomy) that the generic one does not: given by
    # build_api, so that the generic modules never import the modules that extend them.
    content_controllers: dict[str, type[ContentController]] = field(default_factory=dict)
    term_controllers: dict[str, type[TermsController]] = field(default_factory=dict)


def term_route(taxonomy: Taxonomy, item: bool = False) -> str:
    """The name of a taxonomy's terms collection route (or of its single-term route)."""
    return f"{taxonomy.rest_namespace}.{taxonomy.rest_base}" + (".item" if item else "")
