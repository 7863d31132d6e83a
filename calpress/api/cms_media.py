"""``cms/v2/media``: attachments through the generic content controller (cms-api.md 2.16).

As the reference's attachments controller extends its posts controller, :class:`MediaController`
extends :class:`ContentController` with what media adds and nothing else:

* the schema: ``description`` (the item's content), ``caption`` (its excerpt), ``alt_text`` (meta
  ``_wp_attachment_image_alt``), ``post`` (the parent), and the read-only ``media_type``,
  ``mime_type``, ``media_details``, ``source_url``, ``missing_image_sizes``, ``filename`` and
  ``filesize``; no ``password``; listings default to ``status=inherit`` and take ``media_type``
  and ``mime_type``;
* create: the file comes as the raw body (``Content-Type``, ``Content-Disposition`` with a
  file name, optional ``Content-MD5``) or as the multipart part ``file``; its name is sanitised
  and its type decided by its content (:mod:`calpress.media.uploads`); images the server resizes
  get their sub-sizes (:mod:`calpress.media.attachments`), other files are stored as they are
  (:mod:`calpress.media.files`). Every other argument is checked before a byte is stored, and a
  failed write removes the files it stored;
* delete: no trash (501 without ``force``), and the files go with the row.

``POST /media/{id}/post-process`` with ``action=create-image-subsizes`` cuts the sub-sizes an image
lacks (``missing_image_sizes``) from its stored upload; ``POST /media/{id}/edit`` rotates, flips and
crops it (:mod:`calpress.media.editing`) into a new ``-edited`` attachment, the original unchanged.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from ..compat.formatting import sanitize_text_field
from ..content import items as item_service
from ..content import permissions, rendering
from ..content.items import Item, ItemChanges, ItemQuery, Related
from ..media import attachments, editing, files, images, uploads
from ..media.storage import absolute_url
from ..rest import schema as rest_schema
from ..rest.controller import wants_field
from ..rest.errors import RestError, forbidden
from ..rest.registry import Endpoint, Route
from ..rest.request import RestRequest
from ..rest.response import RestResponse
from .cms_content import ContentController, _php_empty
from .cms_content_represent import ContentRepresentation
from .cms_content_schema import ContentSchema, parse_slug_list
from .scope import context_of, scope_of

ALT_KEY = "_wp_attachment_image_alt"
RESIZED_TYPES = images.RESIZED_TYPES
MEDIA_STATUSES = ("inherit", "private", "trash")
MEDIA_KINDS = ("image", "video", "text", "application", "audio")
_FILENAME = re.compile(r"filename\*?=(?:\"([^\"]*)\"|([^;\s]+))", re.I)


def _text_or_raw(value: Any) -> str | None:
    """A caption or description given as a string or as ``{"raw": ...}``."""
    if isinstance(value, dict):
        value = value.get("raw")
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


class MediaSchema(ContentSchema):
    def _item_schema(self) -> dict[str, Any]:
        schema = super()._item_schema()
        props = schema["properties"]
        props.pop("password", None)
        raw_rendered = {
            "raw": {"type": "string", "context": ["edit"]},
            "rendered": {"type": "string", "context": ["view", "edit", "embed"], "readonly": True},
        }
        props["alt_text"] = {"description": "Alternative text to display when attachment is not displayed.", "type": "string",
                             "context": ["view", "edit", "embed"], "arg_options": {"sanitize": lambda v, r, n: sanitize_text_field(v)}}
        props["caption"] = {"description": "The attachment caption.", "type": "object", "context": ["view", "edit", "embed"],
                            "properties": {k: {**v, "description": f"Caption for the attachment, {k}."} for k, v in raw_rendered.items()},
                            "arg_options": {"validate": _accept_text, "sanitize": _keep}}
        props["description"] = {"description": "The attachment description.", "type": "object", "context": ["view", "edit"],
                                "properties": {k: {**v, "description": f"Description for the attachment, {k}."}
                                               for k, v in raw_rendered.items()},
                                "arg_options": {"validate": _accept_text, "sanitize": _keep}}
        props["media_type"] = {"description": "Attachment type.", "type": "string", "enum": ["image", "file"],
                               "context": ["view", "edit", "embed"], "readonly": True}
        props["mime_type"] = {"description": "The attachment MIME type.", "type": "string", "context": ["view", "edit", "embed"],
                              "readonly": True}
        props["media_details"] = {"description": "Details about the media file, specific to its type.", "type": "object",
                                  "context": ["view", "edit", "embed"], "readonly": True}
        props["post"] = {"description": "The ID for the associated post of the attachment.", "type": "integer",
                         "context": ["view", "edit"]}
        props["source_url"] = {"description": "URL to the original attachment file.", "type": "string", "format": "uri",
                               "context": ["view", "edit", "embed"], "readonly": True}
        props["missing_image_sizes"] = {"description": "List of the missing image sizes of the attachment.", "type": "array",
                                        "items": {"type": "string"}, "context": ["edit"], "readonly": True}
        props["filename"] = {"description": "Original attachment file name.", "type": "string", "context": ["view", "edit"],
                             "readonly": True}
        props["filesize"] = {"description": "Attachment file size in bytes.", "type": "integer", "context": ["view", "edit"],
                             "readonly": True}
        props["exif_orientation"] = {"description": "The EXIF orientation of the image file (1 when it has none: the file "
                                     "stored is upright).", "type": "integer", "context": ["view", "edit"], "readonly": True}
        return schema

    def collection_args(self) -> dict[str, dict[str, Any]]:
        params = super().collection_args()
        params["status"] = {
            **params["status"],
            "default": "inherit",
            "items": {"enum": list(MEDIA_STATUSES), "type": "string"},
            "validate": self._check_media_statuses,
        }
        params["media_type"] = {"description": "Limit result set to attachments of a particular media type.", "type": "string",
                                "enum": list(MEDIA_KINDS)}
        params["mime_type"] = {"description": "Limit result set to attachments of a particular MIME type.", "type": "string"}
        return params

    def _check_media_statuses(self, value: Any, request: RestRequest, name: str) -> Any:
        """As the posts' listing statuses (the permission before the enum), ``inherit`` the default."""
        caps = self.type.caps
        ctx = context_of(request)
        for status in parse_slug_list(value):
            if status == "inherit":
                continue
            if ctx.can(caps["edit_posts"]) or (status == "private" and ctx.can(caps["read_private_posts"])):
                continue
            return forbidden("rest_forbidden_status", "Status is forbidden.", request.user_id)
        return rest_schema.validate_value(value, {"type": "array", "items": {"enum": list(MEDIA_STATUSES), "type": "string"}},
                                          name) or True


EXTRA_TYPES_OPTION = "upload_extra_types"


def extra_types(options: Any) -> dict[str, str]:
    """The site's further allowed upload types (option ``upload_extra_types``: an object of
    extension to MIME type, or ``"ext:mime,ext:mime"``); active content stays refused whatever it
    says (calpress.media.uploads)."""
    value = options.get(EXTRA_TYPES_OPTION)
    if isinstance(value, dict):
        return {str(k).lower().lstrip("."): str(v) for k, v in value.items() if k and v}
    found: dict[str, str] = {}
    for entry in str(value or "").split(","):
        ext, sep, mime = entry.partition(":")
        if sep and ext.strip() and "/" in mime:
            found[ext.strip().lower().lstrip(".")] = mime.strip()
    return found


def _size_of(body: bytes | BinaryIO) -> int:
    if isinstance(body, bytes):
        return len(body)
    size = body.seek(0, 2)
    body.seek(0)
    return size


def _head_of(body: bytes | BinaryIO, size: int = 8192) -> bytes:
    if isinstance(body, bytes):
        return body[:size]
    body.seek(0)
    head = body.read(size)
    body.seek(0)
    return head


def _whole(body: BinaryIO) -> bytes:
    body.seek(0)
    return body.read()


def _md5_of(body: bytes | BinaryIO) -> str:
    if isinstance(body, bytes):
        return hashlib.md5(body).hexdigest()  # noqa: S324 - the reference's checksum
    digest = hashlib.md5()  # noqa: S324
    body.seek(0)
    for chunk in iter(lambda: body.read(1024 * 1024), b""):
        digest.update(chunk)
    body.seek(0)
    return digest.hexdigest()


def _accept_text(value: Any, request: RestRequest, name: str) -> bool:
    return _text_or_raw(value) is not None


def _keep(value: Any, request: RestRequest, name: str) -> Any:
    return value


def _orientation(metadata: Any) -> int:
    """The image's EXIF orientation as the reference reports it: ``image_meta.orientation`` when
    it is a number above 0, else 1."""
    image_meta = metadata.get("image_meta") if isinstance(metadata, dict) else None
    try:
        value = int((image_meta or {}).get("orientation") or 0)
    except (TypeError, ValueError):
        value = 0
    return value if value > 0 else 1


def _check_featured_media(request: RestRequest, mime: str) -> None:
    """Only audio and video files may have a featured image (the reference's post thumbnails on
    ``attachment:audio`` and ``attachment:video``): any ``featured_media`` on another is a 400."""
    if request.get_param("featured_media") is not None and mime.split("/", 1)[0] not in ("audio", "video"):
        raise RestError(
            "rest_no_featured_media",
            f"This site does not support post thumbnails on attachments with MIME type {mime}.",
            status=400,
        )


class MediaRepresentation(ContentRepresentation):
    """The content representation plus the media fields, in the reference's order."""

    rememberable = False

    def prepare(self, request: RestRequest, item: Item, related: Related, *, links: bool = True, password: Any = None) -> dict[str, Any]:
        data = super().prepare(request, item, related, links=False, password=password)
        context_name = str(request.get_param("context") or "view")
        shown = {name for name, prop in self.schema.properties.items() if context_name in prop.get("context", ())}

        def want(name: str) -> bool:
            return name in shown and wants_field(request, name)

        ctx = context_of(request)
        storage = scope_of(request).site.storage
        meta = item.meta
        key = str(meta.get(attachments.FILE_KEY) or "")
        source = absolute_url(storage.url(key), ctx.home) if key else item.guid
        metadata = meta.get(attachments.METADATA_KEY) or {}
        is_image = item.mime_type.startswith("image/")
        if want("description"):
            description: dict[str, Any] = {}
            if context_name == "edit":
                description["raw"] = item.content
            description["rendered"] = attachments.attachment_html(item, storage, ctx.home)
            data["description"] = description
        if want("caption"):
            caption: dict[str, Any] = {}
            if context_name == "edit":
                caption["raw"] = item.excerpt
            caption["rendered"] = rendering.render_excerpt(item.excerpt, "") if item.excerpt.strip() else ""
            data["caption"] = caption
        if want("alt_text"):
            data["alt_text"] = str(meta.get(ALT_KEY) or "")
        if want("media_type"):
            data["media_type"] = "image" if is_image else "file"
        if want("mime_type"):
            data["mime_type"] = item.mime_type
        if want("media_details"):
            data["media_details"] = self._details(metadata, key, source, item.mime_type, storage, ctx.home)
        if want("post"):
            data["post"] = item.parent or None
        if want("source_url"):
            data["source_url"] = source
        if want("missing_image_sizes"):
            data["missing_image_sizes"] = attachments.missing_sizes(meta, item.mime_type)
        if want("filename"):
            data["filename"] = key.rsplit("/", 1)[-1] if key else ""
        if want("filesize"):
            data["filesize"] = metadata.get("filesize") if isinstance(metadata, dict) else None
        if want("exif_orientation") and is_image:
            data["exif_orientation"] = _orientation(metadata)
        if links and (wants_field(request, "_links") or wants_field(request, "_embedded")):
            data["_links"] = self.links(request, item, related, context_name)
        return data

    def links(self, request: RestRequest, item: Item, related: Related, context_name: str) -> dict[str, list[dict[str, Any]]]:
        """The content links, and ``wp:attached-to`` for an attachment with a parent."""
        found = super().links(request, item, related, context_name)
        if item.parent:
            parent = scope_of(request).item(item.parent)
            parent_type = self.registry.types.get(parent.type) if parent is not None else None
            if parent is not None and parent_type is not None and parent_type.show_in_rest:
                found["wp:attached-to"] = [{
                    "embeddable": True, "post_type": parent.type, "id": parent.id,
                    "href": request.url_for(f"{parent_type.rest_namespace}.{parent_type.rest_base}.item", id=parent.id),
                }]
        return found

    @staticmethod
    def _details(metadata: Any, key: str, source: str, mime: str, storage: Any, home: str) -> dict[str, Any]:
        if not isinstance(metadata, dict) or not metadata:
            return {"sizes": {}}
        details = {k: v for k, v in metadata.items() if k not in ("sizes", "image_meta")}
        if not mime.startswith("image/"):
            details["sizes"] = {}
            return details
        folder = key.rsplit("/", 1)[0] + "/" if "/" in key else ""
        sizes: dict[str, Any] = {}
        for name, size in (metadata.get("sizes") or {}).items():
            sizes[name] = {
                "file": size.get("file"), "width": size.get("width"), "height": size.get("height"),
                "filesize": size.get("filesize"), "mime_type": size.get("mime-type", mime),
                "source_url": absolute_url(storage.url(folder + str(size.get("file"))), home),
            }
        sizes["full"] = {"file": key.rsplit("/", 1)[-1], "width": metadata.get("width"), "height": metadata.get("height"),
                         "mime_type": mime, "source_url": source}
        details["sizes"] = sizes
        details["image_meta"] = metadata.get("image_meta") or {}
        return details


class MediaController(ContentController):
    allow_batch = False  # the reference's media routes are not batch-enabled
    def __init__(self, api: Any, content_type: Any) -> None:
        super().__init__(api, content_type)
        self.schema = MediaSchema(api, content_type)
        self.representation = MediaRepresentation(self.schema, self.route_name)
        self.collection_arg_names = frozenset(self.schema.collection_args())

    # -- permissions ----------------------------------------------------------------------------

    def create_permission(self, request: RestRequest) -> bool | RestError:
        allowed = super().create_permission(request)
        if allowed is not True:
            return allowed
        return self._parent_permission(request, "Sorry, you are not allowed to upload media to this post.")

    def update_permission(self, request: RestRequest) -> bool | RestError:
        allowed = super().update_permission(request)
        if allowed is not True:
            return allowed
        return self._parent_permission(request, "Sorry, you are not allowed to upload media to this post.")

    def _parent_permission(self, request: RestRequest, message: str) -> bool | RestError:
        post = request.get_param("post")
        if _php_empty(post):
            return True
        parent = scope_of(request).item(post)
        if parent is not None and not permissions.can_edit(context_of(request), parent):
            return forbidden("rest_cannot_edit", message, request.user_id)
        return True

    # -- reading --------------------------------------------------------------------------------

    def _statuses(self, request: RestRequest) -> list[str]:
        return parse_slug_list(request.get_param("status") or "inherit") or ["inherit"]

    def query_for(self, request: RestRequest, query: ItemQuery) -> ItemQuery:
        media_type, mime_type = request.params.get("media_type"), request.params.get("mime_type")
        if media_type:
            query.mime_kinds = [str(media_type)]
        if mime_type:
            query.mime_types = [str(mime_type)]
        return query

    # -- writing --------------------------------------------------------------------------------

    def changes_from(self, request: RestRequest, item: Item | None) -> ItemChanges:
        if item is not None:
            _check_featured_media(request, item.mime_type)
        changes = super().changes_from(request, item)
        params = request.params
        caption = _text_or_raw(params.get("caption"))
        if caption is not None:
            changes.excerpt = caption
        description = _text_or_raw(params.get("description"))
        if description is not None:
            changes.content = description
        if params.get("alt_text") is not None:
            changes.protected_meta = {**(changes.protected_meta or {}), ALT_KEY: str(params["alt_text"])}
        post = params.get("post")
        if post is not None:
            parent_id = int(post)
            if parent_id:
                with self.site.read() as conn:
                    parent = item_service.get_item(conn, parent_id)
                if parent is None or parent.type in ("revision", "attachment"):
                    raise RestError("rest_invalid_param", "Invalid parent type.", status=400, params={"post": "Invalid parent type."})
            changes.parent = parent_id
        if item is None and changes.status is None:
            changes.status = "inherit"
        return changes

    def _upload(self, request: RestRequest) -> tuple[bytes | BinaryIO, str, bool]:
        """(the file, its name, came as multipart) of the request: bytes, or a spooled temporary
        file for a large upload (read in slices, never whole); or the reference's error."""
        parts = request.files.get("file") if isinstance(request.files, dict) else None
        if parts:
            upload = parts[0]
            upload.file.seek(0)
            return upload.file, upload.filename, True
        body: bytes | BinaryIO = request.body_file if request.body_file is not None else (request.raw_body or b"")
        if _size_of(body) == 0:
            raise RestError("rest_upload_no_data", "No data supplied.", status=400)
        headers = request.headers
        if not headers.get("content_type"):
            raise RestError("rest_upload_no_content_type", "No Content-Type supplied.", status=400)
        disposition = headers.get("content_disposition")
        if not disposition:
            raise RestError("rest_upload_no_content_disposition", "No Content-Disposition supplied.", status=400)
        found = _FILENAME.findall(disposition)
        name = next((quoted or bare for quoted, bare in reversed(found)), "")
        if not name.strip():
            raise RestError(
                "rest_upload_invalid_disposition",
                "Invalid Content-Disposition supplied. Content-Disposition needs to be formatted as "
                '`attachment; filename="image.png"` or similar.',
                status=400,
            )
        md5 = headers.get("content_md5")
        if md5 and _md5_of(body) != md5.strip().lower():
            raise RestError("rest_upload_hash_mismatch", "Content hash did not match expected.", status=412)
        return body, name.strip().strip('"'), False

    def create_item(self, request: RestRequest) -> RestResponse:
        if not _php_empty(request.get_param("id")):
            raise RestError("rest_post_exists", "Cannot create existing post.", status=400)
        data, given_name, multipart = self._upload(request)
        name = uploads.sanitize_file_name(given_name)
        try:
            file_type = uploads.detect(_head_of(data), name, extra=extra_types(context_of(request).options))
        except uploads.UploadRejected as err:
            failure = err.for_multipart() if multipart else err
            raise RestError(failure.code, failure.message, status=failure.status) from None
        _check_featured_media(request, file_type.mime)
        changes = self.changes_from(request, None)  # every other argument checked before a byte is stored
        if changes.title is None:
            changes.title = Path(given_name.replace("\\", "/")).stem or Path(file_type.proper_name).stem
        changes.status = None if changes.status == "inherit" else changes.status
        storage = self.site.storage

        def store(conn: Any, ctx: Any) -> int:
            if file_type.mime not in RESIZED_TYPES:
                return files.create_file_attachment(conn, ctx, storage, data, file_type.proper_name, file_type.mime,
                                                    title=str(changes.title), author=request.user_id, parent=changes.parent or 0)
            try:
                return attachments.create_attachment(conn, ctx, storage, data if isinstance(data, bytes) else _whole(data),
                                                     file_type.proper_name, author=request.user_id, parent=changes.parent or 0)
            except ValueError as err:
                too_big = str(err).startswith("image too large")
                message = (f"The image is too large to process: at most {images.MAX_PIXELS:,} pixels."
                           if too_big else "The image could not be read.")
                raise RestError("rest_upload_sideload_error", message, status=400) from None

        item = self._store_attachment(request, store, lambda stored: changes)
        request.set_param("context", "edit")
        return self._created(request, item)

    def _store_attachment(self, request: RestRequest, store: Callable[[Any, Any], int],
                          finish: Callable[[Item], ItemChanges]) -> Item:
        """A new attachment in one write transaction: ``store`` writes its files and its row (and
        returns its id), ``finish`` gives the changes that complete it. When anything fails, the
        files stored go too."""
        ctx = context_of(request)
        storage = self.site.storage
        stored: list[str] = []
        try:
            with self.site.write() as conn:
                item = item_service.get_item(conn, store(conn, ctx))
                assert item is not None
                stored = files.stored_keys(item.meta)
                item = item_service.update_item(conn, ctx, item, finish(item))
        except BaseException:
            for key in stored:
                storage.delete(key)
            raise
        scope_of(request).remember(item)
        return item

    def _created(self, request: RestRequest, item: Item) -> RestResponse:
        """The 201 of a new attachment: it in the request's context, its address, its id."""
        with self.site.read() as conn:
            shown = self.representation.prepare(request, item, self.representation.related(conn, request, [item]))
        location = request.url_for(f"{self.route_name}.item", id=item.id)
        return RestResponse(shown, 201, {"Location": location, "X-WP-Upload-Attachment-ID": str(item.id)})

    def delete_item(self, request: RestRequest) -> RestResponse:
        item = self.item_of(request)
        keys = files.stored_keys(item.meta)
        response = super().delete_item(request)
        if isinstance(response.data, dict) and response.data.get("deleted"):
            for key in keys:
                self.site.storage.delete(key)
        return response

    def post_process(self, request: RestRequest) -> RestResponse:
        """The reference's post_process_item: make what is missing, then the attachment (edit
        context). An attachment that is no resizable image is returned as it is."""
        item = self.item_of(request)
        metadata = attachments.create_missing_sizes(self.site.storage, item.meta, item.mime_type)
        if metadata is not None:
            with self.site.write() as conn:
                item = item_service.update_item(conn, context_of(request), item,
                                                ItemChanges(protected_meta={attachments.METADATA_KEY: metadata}))
            scope_of(request).remember(item)
        request.set_param("context", "edit")
        with self.site.read() as conn:
            return RestResponse(self.representation.prepare(request, item, self.representation.related(conn, request, [item])))

    def edit_permission(self, request: RestRequest) -> bool | RestError:
        if not context_of(request).can("upload_files"):
            return forbidden("rest_cannot_edit_image", "Sorry, you are not allowed to upload media on this site.", request.user_id)
        item = self.editable_item(request)
        return item if isinstance(item, RestError) else True

    def _file_urls(self, request: RestRequest, meta: dict[str, Any]) -> set[str]:
        """Every address of the attachment's files (its file, the original, the sub-sizes)."""
        home = context_of(request).home
        storage = self.site.storage
        return {absolute_url(storage.url(key), home) for key in files.stored_keys(meta)}

    def edit_media(self, request: RestRequest) -> RestResponse:
        """The reference's edit_media_item: the edited image as a new attachment."""
        item = self.item_of(request)
        params = request.params
        meta = item.meta
        unknown = RestError("rest_unknown_attachment", "Unable to get meta information for file.", status=404)
        if not meta.get(attachments.FILE_KEY) or not isinstance(meta.get(attachments.METADATA_KEY), dict):
            raise unknown
        if str(params.get("src") or "") not in self._file_urls(request, meta):
            raise unknown
        if item.mime_type not in editing.EDITABLE:
            raise RestError("rest_cannot_edit_file_type", "This type of file cannot be edited.", status=400)
        storage = self.site.storage
        source = attachments.upload_key(meta)
        try:
            modifiers = editing.modifiers_from(params)
            with storage.open(source) as stream:
                data = stream.read()
            edited, _ = editing.apply_edits(data, modifiers)
        except FileNotFoundError:
            raise unknown from None
        except editing.EditError as err:
            raise RestError(err.code, err.message, status=err.status, **({"params": err.params} if err.params else {})) from None
        post = params.get("post")
        changes = ItemChanges(
            title=str(params["title"]) if params.get("title") is not None else item.title,
            excerpt=_text_or_raw(params.get("caption")) if params.get("caption") is not None else item.excerpt,
            content=_text_or_raw(params.get("description")) if params.get("description") is not None else item.content,
        )
        alt = params.get("alt_text") if params.get("alt_text") is not None else meta.get(ALT_KEY)

        def store(conn: Any, ctx: Any) -> int:
            return attachments.create_attachment(conn, ctx, storage, edited, editing.edited_name(source.rsplit("/", 1)[-1]),
                                                 author=request.user_id, parent=int(post or 0))

        def finish(created: Item) -> ItemChanges:
            metadata = dict(created.meta[attachments.METADATA_KEY])
            metadata["parent_image"] = {"attachment_id": item.id, "file": str(meta[attachments.FILE_KEY])}
            changes.protected_meta = {attachments.METADATA_KEY: metadata, **({ALT_KEY: str(alt)} if alt else {})}
            return changes

        return self._created(request, self._store_attachment(request, store, finish))

    def routes(self) -> list[Any]:
        """``/media``, ``/media/{id}``, ``/media/{id}/post-process`` and ``/media/{id}/edit``: not batch-enabled, unlike
        the other content routes (the reference's media routes are not)."""
        found = super().routes()
        found.append(Route(
            self.type.rest_namespace,
            rf"/{self.type.rest_base}/(?P<id>[\d]+)/post-process",
            [Endpoint(("POST",), self.post_process, self.update_permission, args={
                "id": {"description": "Unique identifier for the attachment.", "type": "integer"},
                "action": {"type": "string", "enum": ["create-image-subsizes"], "required": True},
            })],
            name=f"{self.route_name}.post-process",
        ))
        percent = {"type": "number", "minimum": 0, "maximum": 100}
        found.append(Route(
            self.type.rest_namespace,
            rf"/{self.type.rest_base}/(?P<id>[\d]+)/edit",
            [Endpoint(("POST",), self.edit_media, self.edit_permission, args={
                "src": {"description": "URL to the edited image file.", "type": "string", "format": "uri", "required": True},
                "modifiers": {"description": "Array of image edits.", "type": "array", "minItems": 1,
                              "items": {"type": "object", "required": ["type", "args"]}},
                "rotation": {"description": "The amount to rotate the image clockwise in degrees. DEPRECATED: Use `modifiers` instead.",
                             "type": "integer", "minimum": 0, "exclusiveMinimum": True, "maximum": 360, "exclusiveMaximum": True},
                "x": {**percent, "description": "As a percentage of the image, the x position to start the crop from. DEPRECATED."},
                "y": {**percent, "description": "As a percentage of the image, the y position to start the crop from. DEPRECATED."},
                "width": {**percent, "description": "As a percentage of the image, the width to crop the image to. DEPRECATED."},
                "height": {**percent, "description": "As a percentage of the image, the height to crop the image to. DEPRECATED."},
                "title": {"type": "string"},
                "caption": {"type": ["string", "object"]},
                "description": {"type": ["string", "object"]},
                "post": {"type": "integer"},
                "alt_text": {"type": "string"},
            })],
            name=f"{self.route_name}.edit",
        ))
        for route in found:
            route.allow_batch = False
            for endpoint in route.endpoints:
                endpoint.allow_batch = False
        return found
