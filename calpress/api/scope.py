"""The app's request scope: the engine's (rest/scope.py) plus what the site's REST handlers share
during one request, each in a typed slot:

* the request's snapshot of the site options, its addresses and its service context
  (:func:`context_of` is the one way a handler gets it: options, home address, acting user and the
  content registry, as every domain call takes them);
* the records loaded so far (items, users, terms), so that permission checks, handlers and
  the target hints of an answer's links read each record once;
* the permission target of the route (the item or user it addresses), resolved once by the
  permission check and reused by the handler;
* the images downloaded for the request's ``image`` arguments (by URL): fetched once, while the
  arguments are checked, before any transaction, and stored by the write that follows.

Sub-requests for an answer's links share the loaded records with their parent; batch
sub-requests do not (see rest/scope.py).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from ..auth import users as user_store
from ..content import items as item_service
from ..content.items import Context
from ..rest.scope import Scope

if TYPE_CHECKING:
    from ..auth.users import User
    from ..content.items import Item
    from ..content.terms import Term
    from ..media.attachments import RemoteImage
    from ..rest.request import RestRequest
    from ..site import Site

# The permission target of a route before anyone has looked for it.
UNSET: Any = object()


class Records:
    """What a request (and the sub-requests for its answer's links) has loaded, by id."""

    __slots__ = ("items", "users", "published", "terms", "actions", "images")

    def __init__(self) -> None:
        self.items: dict[int, Item | None] = {}
        self.users: dict[int, User | None] = {}
        # user id -> whether they have published content (which makes them public)
        self.published: dict[int, bool] = {}
        self.terms: dict[tuple[str, int], Term | None] = {}
        # content type -> the action link relations the user has on its items
        self.actions: dict[str, list[str]] = {}
        # URL -> the image downloaded from it, or None when refused or failed (media.attachments.Downloads)
        self.images: dict[str, RemoteImage | None] = {}


class ApiScope(Scope):
    __slots__ = ("site", "_request", "_options", "_context", "_records", "target", "edits_some_type")

    def __init__(self, site: Site, request: RestRequest, parent: ApiScope | None = None, *, share: bool = False) -> None:
        super().__init__(request, parent, share=share)
        self.site = site
        # Weak: the request holds its scope, and a cycle of the two would leave every request's
        # objects to the cyclic garbage collector instead of freeing them as the request ends.
        self._request = weakref.ref(request)
        # One options snapshot for the request and all of its sub-requests.
        self._options: dict[str, Any] | None = parent._options if parent is not None else None
        self._context: Context | None = None
        # Made on first use (a cached answer needs none); shared with sub-requests for links.
        self._records: Records | None = parent.records if parent is not None and share else None
        self.target: Any = UNSET
        self.edits_some_type: bool | None = None

    def child(self, request: Any, *, share: bool) -> ApiScope:
        return ApiScope(self.site, request, self, share=share)

    @property
    def request(self) -> RestRequest:
        found = self._request()
        if found is None:
            raise RuntimeError("the request of this scope has ended")
        return found

    @property
    def records(self) -> Records:
        if self._records is None:
            self._records = Records()
        return self._records

    @property
    def items(self) -> dict[int, Item | None]:
        return self.records.items

    @property
    def users(self) -> dict[int, User | None]:
        return self.records.users

    @property
    def published(self) -> dict[int, bool]:
        return self.records.published

    @property
    def terms(self) -> dict[tuple[str, int], Term | None]:
        return self.records.terms

    @property
    def actions(self) -> dict[str, list[str]]:
        return self.records.actions

    @property
    def images(self) -> dict[str, RemoteImage | None]:
        return self.records.images

    # -- the site as this request sees it ------------------------------------------------------

    @property
    def options(self) -> dict[str, Any]:
        """The site options, fixed for the length of the request."""
        if self._options is None:
            self._options = self.site.options()
        return self._options

    def reload_options(self) -> None:
        """Take a new snapshot of the options (after this request wrote some)."""
        self._options = None
        self._context = None

    @property
    def site_url(self) -> str:
        return self.site.site_url(self.options, self.request.origin)

    @property
    def home(self) -> str:
        return self.site.home_url(self.options, self.request.origin)

    @property
    def context(self) -> Context:
        """The service context of the request (rebuilt when the requester changes, as a user
        update of one's own profile does)."""
        found = self._context
        user = self.request.user
        if found is None or found.user is not user:
            found = self._context = Context.of(self.site, user=user, home=self.home, options=self.options)
        return found

    # -- records, loaded once per request ------------------------------------------------------

    def item(self, item_id: Any) -> Item | None:
        """The item ``item_id`` of any type (revisions included), read at most once per request;
        scheduled items whose time has come are published first."""
        try:
            ident = int(item_id)
        except (TypeError, ValueError):
            return None
        if ident not in self.items:
            if ident <= 0:
                return None
            item_service.publish_due_items(self.site)
            self.items[ident] = item_service.read_item(self.site, ident)
        return self.items[ident]

    def remember(self, item: Item) -> None:
        """Keep an item for the rest of the request: the self links' target hints run the
        permission checks of every listed item, and must not query for each."""
        self.items[item.id] = item

    def forget(self, item_id: int) -> None:
        self.items.pop(item_id, None)

    def user(self, user_id: Any) -> User | None:
        """The user ``user_id``, read at most once per request."""
        try:
            ident = int(user_id)
        except (TypeError, ValueError):
            return None
        if ident not in self.users:
            if ident <= 0:
                return None
            with self.site.read() as conn:
                self.users[ident] = user_store.get_user(conn, ident)
        return self.users[ident]


def scope_of(request: RestRequest) -> ApiScope:
    """The scope of a request the app's engine runs."""
    return request.scope


def context_of(request: RestRequest) -> Context:
    """The service context of a request: the one way a handler gets it."""
    return request.scope.context
