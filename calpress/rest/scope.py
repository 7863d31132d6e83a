"""Request scope: what one request remembers while it runs, in typed slots.

The engine gives every request a scope, built by the factory the app hands it (the app's scope
adds the site's state: the service context, loaded records, the permission target), and every
sub-request it runs a child scope of its parent's:

* sub-requests for links of the answer (``_embed``, target hints) share their parent's loaded
  records and link caches (``share=True``): they run as the same user, after the handler, and
  only read;
* batch sub-requests get fresh ones (``share=False``), so that one cannot see another's
  permission target or a record another has just changed.

Nothing here outlives the request.
"""

from __future__ import annotations

from typing import Any


class Scope:
    """The engine's own per-request state: the stored data's generation (for the answer cache
    and for handlers that key caches by it), the ``Allow`` lists of linked routes (target hints)
    and the answers of embedded links."""

    __slots__ = ("parent", "generation", "_allow", "_embedded")

    def __init__(self, request: Any, parent: Scope | None = None, *, share: bool = False) -> None:
        self.parent = parent
        self.generation: int | None = parent.generation if parent is not None else None
        # Made on first use: most answers (cached ones above all) need neither.
        self._allow: dict[str, list[str] | None] | None = parent.allow if parent is not None and share else None
        self._embedded: dict[str, Any] | None = parent.embedded if parent is not None and share else None

    @property
    def allow(self) -> dict[str, list[str] | None]:
        """href -> the methods its route allows this requester (target hints)."""
        if self._allow is None:
            self._allow = {}
        return self._allow

    @property
    def embedded(self) -> dict[str, Any]:
        """href -> the answer embedded for it."""
        if self._embedded is None:
            self._embedded = {}
        return self._embedded

    def child(self, request: Any, *, share: bool) -> Scope:
        """The scope of a sub-request of this one (see the module docstring for ``share``)."""
        return type(self)(request, self, share=share)
