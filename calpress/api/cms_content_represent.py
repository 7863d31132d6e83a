"""How items of a ``cms/v2`` content type are shown: ``prepare`` builds an item's JSON for the
request's context and ``_fields``, field for field in the reference's order (cms-api.md 2.2, 2.3),
from what ``related`` loaded for the whole page, so a page costs no statement per item.
"""

from __future__ import annotations

import re
from typing import Any

from ..auth import users as user_store
from ..content import items as item_service
from ..content import permissions, rendering
from ..content.items import Item, Related
from ..rest import schema as rest_schema
from ..rest.controller import ContextFields, wants_field
from ..rest.encoding import Kept
from ..rest.errors import RestError
from ..rest.links import finish_links
from ..rest.request import RestRequest
from .base import term_route
from .cms_content_schema import ContentSchema
from .cms_users import author_types
from .scope import context_of, scope_of


class ContentRepresentation:
    """The representation of the items of one content type, built once per type from its
    schema: ``related`` loads what a page needs, ``prepare`` shapes one item, ``links`` its
    ``_links``, and ``shown`` does all three for a page, keeping what it built in the site's
    memo. Methods take the request, whose context, fields and user decide what is shown."""

    # Whether finished representations of this type's items may be kept in the site's memo
    # (store/memo.py). Media items are not (yet): their fields read files and sizes.
    rememberable = True

    def __init__(self, schema: ContentSchema, route_name: str) -> None:
        self.schema = schema
        self.fields = ContextFields()
        self.registry = schema.registry
        self.type = schema.type
        self.route_name = route_name
        self.is_blocks = schema.type.name == "wp_block"
        self._subfields: dict[tuple[str, str], frozenset[str]] = {}

    def shown(self, conn: Any, request: RestRequest, items: list[Item]) -> list[dict[str, Any]]:
        """The page's items as the request shows them, links finished (curie, target hints).
        Items shown to this requester the same way since their records last changed come from
        the memo; the others are built, with what they need loaded for all of them at once,
        and kept. ``conn``: the caller's read connection, or None to open one only if needed."""
        kept = _Kept(self, request)
        missing = [item for item in items if not kept.has(item)]
        embed_authors = len(missing) < len(items) and "_embed" in request.query
        if conn is None and (missing or embed_authors):
            with scope_of(request).site.read() as opened:
                return self._shown(opened, request, items, kept, missing, embed_authors)
        return self._shown(conn, request, items, kept, missing, embed_authors)

    def _shown(self, conn: Any, request: RestRequest, items: list[Item], kept: _Kept, missing: list[Item],
               embed_authors: bool) -> list[dict[str, Any]]:
        related = self.related(conn, request, missing) if missing else Related()
        if embed_authors:
            self._preload_authors(conn, request, items, [item.author for item in items if item.author])
        return [kept.shown(item) if item.id in kept.found else kept.keep(item, self.prepare(request, item, related), related)
                for item in items]

    def related(
        self, conn: Any, request: RestRequest, found: list[Item], *, new: bool = False, generated: dict[int, str] | None = None
    ) -> Related:
        """What the representation of these items needs beyond their rows, loaded per page.
        ``new``: the items were just created (they have no revisions to count); ``generated``:
        their ``generated_slug`` values when the caller knows them."""
        if not found:
            return Related()
        context = request.get_param("context") or "view"
        shown = self.fields(self.schema.item_schema, context)

        def want(name: str) -> bool:  # a field the context shows and _fields (if given) asks for
            return name in shown and wants_field(request, name)

        want_links = wants_field(request, "_links") or wants_field(request, "_embedded")
        want_terms = any(wants_field(request, t.rest_base) for t in self.schema.taxonomies) or wants_field(request, "class_list")
        related = item_service.load_related(
            conn,
            self.registry,
            self.type,
            found,
            terms=want_terms,
            revisions=want_links and not new and (self.type.core_like or self.type.supports_feature("revisions")),
            media=want_links or want("class_list"),
            uris=wants_field(request, "link") or want("permalink_template"),
        )
        if "_embed" in request.query and (authors := [item.author for item in found if item.author]):
            self._preload_authors(conn, request, found, authors)
        if generated is not None:
            related.generated = dict(generated)
        elif want("permalink_template") or want("generated_slug"):
            related.generated = item_service.generated_slugs(conn, context_of(request), self.type, found)
        scope = scope_of(request)
        for media in related.media.values():
            scope.remember(media)
        return related

    def _preload_authors(self, conn: Any, request: RestRequest, found: list[Item], author_ids: list[int]) -> None:
        """Load the authors of a page in one query for ``_embed``: the embedded user requests
        share this request's loaded records, where the users controller looks for them (and for
        whether they have published content, which an author of a published item here has)."""
        scope = scope_of(request)
        missing = [i for i in dict.fromkeys(author_ids) if i not in scope.users]
        if not missing:
            return
        loaded = user_store.get_users(conn, missing)
        for author_id in missing:
            scope.users[author_id] = loaded.get(author_id)
        if self.type.name in author_types(self.registry):
            for item in found:
                if item.status == "publish" and item.author in loaded:
                    scope.published[item.author] = True

    def prepare(
        self, request: RestRequest, item: Item, related: Related, *, links: bool = True, password: Any = None
    ) -> dict[str, Any]:
        """The item as the request's context shows it, fields in the reference's order; only the
        fields that context and ``_fields`` ask for are computed. ``password`` is the one a
        single-item read was given (collections never take one)."""
        context_name = str(request.get_param("context") or "view")
        shown = self.fields(self.schema.item_schema, context_name)
        ctx = context_of(request)

        def want(name: str) -> bool:
            return name in shown and wants_field(request, name)

        data: dict[str, Any] = {}
        if want("id"):
            data["id"] = item.id
        if want("date"):
            data["date"] = item_service.rest_date(item.date_local)
        if want("date_gmt"):
            data["date_gmt"] = item_service.rest_date(item_service.date_gmt(item, ctx.zone))
        if want("guid"):
            guid = {"rendered": item.guid.replace("&", "&#038;")}
            if "raw" in self._visible("guid", context_name):
                guid["raw"] = item.guid
            data["guid"] = guid
        if want("modified"):
            data["modified"] = item_service.rest_date(item.modified_local)
        if want("modified_gmt"):
            data["modified_gmt"] = item_service.rest_date(item.modified_utc)
        if want("password"):
            data["password"] = item.password
        if want("slug"):
            data["slug"] = item.slug
        if want("status"):
            data["status"] = item.status
        if want("type"):
            data["type"] = item.type
        uri = related.uris.get(item.id)
        if want("link"):
            data["link"] = item_service.permalink(ctx, item, uri=uri)
        render = rendering.RenderContext(post_id=item.id, post_type=item.type)
        if want("title"):
            sub = self._visible("title", context_name)
            title: dict[str, Any] = {}
            if "raw" in sub:
                title["raw"] = item.title
            if "rendered" in sub and wants_field(request, "title.rendered"):
                title["rendered"] = rendering.render_title(item.title)
            data["title"] = title
        password_open = self._password_open(request, item, context_name, password)
        if want("content"):
            sub = self._visible("content", context_name)
            content: dict[str, Any] = {}
            if "raw" in sub:
                content["raw"] = item.content
            if "rendered" in sub and wants_field(request, "content.rendered"):
                content["rendered"] = rendering.render_content(item.content, protected=not password_open, ctx=render)
            if "protected" in sub:
                content["protected"] = bool(item.password)
            if "block_version" in sub:
                content["block_version"] = rendering.block_version(item.content)
            data["content"] = content
        if want("excerpt"):
            sub = self._visible("excerpt", context_name)
            excerpt: dict[str, Any] = {}
            if "raw" in sub:
                excerpt["raw"] = item.excerpt
            if "rendered" in sub and wants_field(request, "excerpt.rendered"):
                excerpt["rendered"] = rendering.render_excerpt(
                    item.excerpt, item.content, length=self._excerpt_length(request), protected=not password_open, ctx=render
                )
            if "protected" in sub:
                excerpt["protected"] = bool(item.password)
            data["excerpt"] = excerpt
        if want("author"):
            data["author"] = item.author
        if want("featured_media"):
            data["featured_media"] = item.featured_media
        if want("parent"):
            data["parent"] = item.parent
        if want("menu_order"):
            data["menu_order"] = item.menu_order
        if want("comment_status"):
            data["comment_status"] = item.comment_status
        if want("ping_status"):
            data["ping_status"] = item.ping_status
        if want("sticky"):
            data["sticky"] = item.id in ctx.sticky_ids
        if want("template"):
            data["template"] = item.template
        if want("format"):
            data["format"] = item.format
        if want("meta"):
            data["meta"] = self.meta_values(item)
        item_terms = related.terms.get(item.id, {})
        for taxonomy in self.schema.taxonomies:
            if want(taxonomy.rest_base):
                data[taxonomy.rest_base] = [term.id for term in item_terms.get(taxonomy.name, [])]
        if want("permalink_template") or want("generated_slug"):
            template, generated = item_service.sample_permalink(
                ctx, item, uri=uri, generated=related.generated.get(item.id, item.slug)
            )
            if want("permalink_template"):
                data["permalink_template"] = template
            if want("generated_slug"):
                data["generated_slug"] = generated
        if want("class_list"):
            data["class_list"] = self._class_list(request, item, related, context_name)
        if self.is_blocks:
            # The blocks controller lifts the sync status out of meta, in every context.
            meta = data.get("meta")
            data["wp_pattern_sync_status"] = meta.pop("wp_pattern_sync_status", "") if isinstance(meta, dict) else ""
        if links and (wants_field(request, "_links") or wants_field(request, "_embedded")):
            data["_links"] = self.links(request, item, related, context_name)
        return data

    def _visible(self, name: str, context_name: str) -> frozenset[str]:
        """The sub-fields of an object field shown in a context (``title.raw`` only in edit...)."""
        key = (name, context_name)
        found = self._subfields.get(key)
        if found is None:
            props = self.schema.properties[name].get("properties", {})
            found = self._subfields[key] = frozenset(
                sub for sub, prop in props.items() if context_name in prop.get("context", (context_name,))
            )
        return found

    def _password_open(self, request: RestRequest, item: Item, context_name: str, password: Any) -> bool:
        """Whether the request may see a protected item's content (the reference's
        can_access_password_content): always when the item has no password."""
        return permissions.password_open(context_of(request), item, password, editing=context_name == "edit")

    def _excerpt_length(self, request: RestRequest) -> int:
        value = request.get_param("excerpt_length")
        try:
            return int(value) if value is not None else 55
        except (TypeError, ValueError):
            return 55

    def meta_values(self, item: Item) -> dict[str, Any]:
        """Every registered key: its stored value coerced to its schema, else its default."""
        values = {name: (value.copy() if isinstance(value, (list, dict)) else value)
                  for name, value in self.schema.meta_defaults.items()}
        stored = item.meta
        for name in stored.keys() & values.keys():
            field_ = self.schema.meta_fields[name]
            try:
                values[name] = rest_schema.sanitize_value(stored[name], field_.schema, name)
            except RestError:
                pass
        return values

    def _class_list(self, request: RestRequest, item: Item, related: Related, context_name: str) -> list[str]:
        """The reference's get_post_class for the item (no theme: no sticky class)."""
        classes = [f"post-{item.id}", item.type, f"type-{item.type}", f"status-{item.status}"]
        if self.type.supports_feature("post-formats"):
            classes.append(f"format-{item.format}")
        required = bool(item.password) and not (context_name == "edit" and permissions.can_edit(context_of(request), item))
        if required:
            classes.append("post-password-required")
        elif item.password:
            classes.append("post-password-protected")
        if item.featured_media and item.featured_media in related.media and not required:
            classes.append("has-post-thumbnail")
        classes.append("hentry")
        if self.type.supports_feature("post-formats") and item.format != "standard":
            classes.append(f"post_format-post-format-{item.format}")
        item_terms = related.terms.get(item.id, {})
        for taxonomy in self.registry.taxonomies_for_type(item.type):
            if not taxonomy.public:
                continue
            for term in item_terms.get(taxonomy.name, []):
                term_class = _html_class(term.slug) or str(term.id)
                if term_class.isdigit() or not term_class.strip("-"):
                    term_class = str(term.id)
                if taxonomy.name == "post_tag":
                    classes.append(f"tag-{term_class}")
                else:
                    classes.append(_html_class(f"{taxonomy.name}-{term_class}") or f"{taxonomy.name}-{term.id}")
        return classes

    def links(self, request: RestRequest, item: Item, related: Related, context_name: str) -> dict[str, list[dict[str, Any]]]:
        """The item's ``_links`` (cms-api.md 2.3), attributes before ``href`` as the reference
        writes them; action links in edit context."""
        url = request.url_for
        t = self.type
        name = self.route_name
        self_href = url(f"{name}.item", id=item.id)
        links: dict[str, list[dict[str, Any]]] = {
            "self": [{"href": self_href}],
            "collection": [{"href": url(name)}],
            "about": [{"href": url("cms.types.item", type=item.type)}],
        }
        if (t.core_like or t.supports_feature("author")) and item.author:
            links["author"] = [{"embeddable": True, "href": url("cms.users.item", id=item.author)}]
        if t.core_like or t.supports_feature("comments"):
            links["replies"] = [{"embeddable": True, "href": url("cms.comments", [("post", str(item.id))])}]
        if t.core_like or t.supports_feature("revisions"):
            count, latest = related.revisions.get(item.id, (0, 0))
            links["version-history"] = [{"count": count, "href": url(f"{name}.revisions", parent=item.id)}]
            if count > 0:
                links["predecessor-version"] = [{"id": latest, "href": url(f"{name}.revisions.item", parent=item.id, id=latest)}]
        if t.hierarchical and item.parent:
            links["up"] = [{"embeddable": True, "href": url(f"{name}.item", id=item.parent)}]
        media = related.media.get(item.featured_media) if item.featured_media else None
        if media is not None and (
            item_service.public_status(media, related.media) == "publish" or context_of(request).can("read_post", media)
        ):
            links["wp:featuredmedia"] = [{"embeddable": True, "href": request.namespace_url("cms", f"/media/{media.id}")}]
        if item.type not in ("attachment", "nav_menu_item", "revision"):
            links["wp:attachment"] = [{"href": request.namespace_url("cms", "/media", [("parent", str(item.id))])}]
        if self.schema.taxonomies:
            links["wp:term"] = [
                {
                    "taxonomy": taxonomy.name,
                    "embeddable": True,
                    "href": url(term_route(taxonomy), [("post", str(item.id))]),
                }
                for taxonomy in self.schema.taxonomies
            ]
        if context_name == "edit":
            for rel in self._actions(request):
                links[f"wp:{rel}"] = [{"href": self_href}]
        return links

    def _actions(self, request: RestRequest) -> list[str]:
        """The action relations the user has on items of this type (get_available_actions)."""
        actions = scope_of(request).actions
        found = actions.get(self.type.name)
        if found is not None:
            return found
        ctx = context_of(request)
        caps = self.type.caps
        rels: list[str] = []
        if self.type.name != "attachment" and ctx.can(caps["publish_posts"]):
            rels.append("action-publish")
        if ctx.can("unfiltered_html"):
            rels.append("action-unfiltered-html")
        if self.type.name == "post" and ctx.can(caps["edit_others_posts"]) and ctx.can(caps["publish_posts"]):
            rels.append("action-sticky")
        if self.type.supports_feature("author") and ctx.can(caps["edit_others_posts"]):
            rels.append("action-assign-author")
        for taxonomy in self.schema.taxonomies:
            create_cap = taxonomy.caps.edit_terms if taxonomy.hierarchical else taxonomy.caps.assign_terms
            if ctx.can(create_cap):
                rels.append("action-create-" + taxonomy.rest_base)
            if ctx.can(taxonomy.caps.assign_terms):
                rels.append("action-assign-" + taxonomy.rest_base)
        actions[self.type.name] = rels
        return rels


class _Kept:
    """The site's memo as one request's page of content items uses it. An item is kept finished
    (links hinted) under the request's addresses, requester, context and fields, with the
    records it was built from: itself, its parent, its terms, its featured image and that
    image's parent, and (through its revisions' own writes, store/changes.py) its revisions.
    Not kept: edit context (its generated slug reads other items), password-protected items,
    pages below another page (their address reads every ancestor)."""

    __slots__ = ("representation", "request", "memo", "generation", "prefix", "found")

    def __init__(self, representation: ContentRepresentation, request: RestRequest) -> None:
        scope = scope_of(request)
        self.representation = representation
        self.request = request
        self.memo = scope.site.memo
        self.generation = scope.generation
        self.found: dict[int, Kept] = {}
        context_name = str(request.get_param("context") or "view")
        self.prefix: tuple[Any, ...] | None = None
        if self.generation is not None and self.memo.limit > 0 and representation.rememberable and context_name != "edit":
            fields = request.query.get("_fields")
            self.prefix = (
                "cms.item", representation.type.name, request.user_id, context_name,
                None if fields is None else str(fields), "_embed" in request.query,
                str(request.get_param("excerpt_length")), request.base_url, context_of(request).home,
            )

    def _eligible(self, item: Item) -> bool:
        return self.prefix is not None and not item.password and not (self.representation.type.hierarchical and item.parent)

    def has(self, item: Item) -> bool:
        if not self._eligible(item):
            return False
        found = self.memo.get((*self.prefix, item.id), self.generation)  # type: ignore[misc]
        if found is not None:
            self.found[item.id] = found
        return found is not None

    def shown(self, item: Item) -> dict[str, Any]:
        return self.found[item.id].copy()  # the kept one stays as built; its links are final

    def keep(self, item: Item, data: dict[str, Any], related: Related) -> dict[str, Any]:
        if not self._eligible(item):
            return data
        finish_links(data, self.request.routes, self.request)
        depends: list[tuple[str, int]] = [("item", item.id)]
        if item.parent:
            depends.append(("item", item.parent))
        for terms in related.terms.get(item.id, {}).values():
            depends.extend(("term", term.id) for term in terms)
        if item.featured_media:
            depends.append(("item", item.featured_media))
            media = related.media.get(item.featured_media)
            if media is not None and media.parent:
                depends.append(("item", media.parent))
        kept = Kept(data)
        self.memo.put((*self.prefix, item.id), self.generation, kept, depends)  # type: ignore[misc]
        return kept.copy()


_HTML_CLASS = re.compile(r"%[a-fA-F0-9][a-fA-F0-9]|[^A-Za-z0-9_-]")


def _html_class(text: str) -> str:
    """The reference's sanitize_html_class: percent octets and anything but letters, digits,
    ``_`` and ``-`` removed."""
    return _HTML_CLASS.sub("", text)
