"""Who asks for a public page: what the site's pages, the comment form, the feeds and the sitemaps
all take, in a module of its own so that none of them imports the public site for it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import falcon

from ..admission import USER_KEY
from ..auth import sessions
from ..content.items import Context

if TYPE_CHECKING:
    from .site import PublicSite

# The signed cookie of a protected item's password (the reference's postpass form).
POSTPASS_COOKIE = "wp-postpass_calpress"


class Requester:
    """Who asks for a page: the login cookie's user and session (or nobody), and the context."""

    def __init__(self, site_pages: PublicSite, req: falcon.Request) -> None:
        calpress = site_pages.calpress
        self.user, self.session = calpress.authenticator.session_user(req.cookies.get(sessions.LOGIN_COOKIE))
        req.env[USER_KEY] = self.user_id  # the front counts what strangers cost (admission.py)
        self.origin = calpress.origin(req)
        self.ctx = Context.of(calpress.site, user=self.user, home=self.origin)
        self.postpass = req.cookies.get(POSTPASS_COOKIE) or ""
        self.comments: Any = None  # the comment page and commenter cookies (comment_form.prepare)

    @property
    def user_id(self) -> int:
        return self.user.id if self.user else 0
