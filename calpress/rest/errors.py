"""Errors as values: a machine code, a message and a data payload, rendered once by dispatch.

The wire shape is the reference's ``{"code", "message", "data": {"status", ...}}``; an error may
carry further errors (``additional_errors``), as the reference's multi-code errors do, and earlier
data payloads of its own code (``additional_data``).
"""

from __future__ import annotations

from typing import Any


class RestError(Exception):
    """An error answer. Raise it from anywhere below a handler, or return it from a permission check.

    ``RestError("rest_forbidden", "Sorry, ...", status=403)`` gives ``data == {"status": 403}``;
    extra keyword arguments join ``data``. Pass ``data=`` for a payload that is not an object
    (the reference's nested validation errors carry ``"data": null``).
    """

    __slots__ = ("code", "message", "data", "additional", "additional_data")

    _NO_DATA = object()

    def __init__(
        self,
        code: str,
        message: str,
        status: int | None = None,
        *,
        data: Any = _NO_DATA,
        **data_items: Any,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        if data is RestError._NO_DATA:
            payload: dict[str, Any] | None = None
            if status is not None or data_items:
                payload = {}
                if status is not None:
                    payload["status"] = status
                payload.update(data_items)
            self.data = payload
        else:
            self.data = data
        self.additional: list[RestError] = []
        # Payloads the reference's WP_Error held for this code before ``data`` replaced them.
        self.additional_data: list[Any] = []

    @property
    def status(self) -> int:
        """The HTTP status: the last numeric ``data.status`` among this error and its additions."""
        found = 500
        for err in (self, *self.additional):
            if isinstance(err.data, dict) and isinstance(err.data.get("status"), int):
                found = err.data["status"]
        return found

    def with_status(self, status: int) -> RestError:
        """Set ``data.status`` (creating ``data`` when absent) and return self."""
        if not isinstance(self.data, dict):
            self.data = {}
        self.data["status"] = status
        return self

    def to_dict(self) -> dict[str, Any]:
        """The body the reference sends for this error."""
        body: dict[str, Any] = {"code": self.code, "message": self.message, "data": self.data}
        if self.additional_data:
            body["additional_data"] = list(self.additional_data)
        if self.additional:
            body["additional_errors"] = [
                {"code": e.code, "message": e.message, "data": e.data} for e in self.additional
            ]
        return body

    def __repr__(self) -> str:
        return f"RestError({self.code!r}, {self.message!r}, data={self.data!r})"


def auth_status(user_id: int) -> int:
    """401 for an anonymous requester, 403 for a logged-in one (the reference's rest_authorization_required_code)."""
    return 403 if user_id else 401


def forbidden(code: str, message: str, user_id: int) -> RestError:
    """A permission error whose status depends on whether someone is logged in."""
    return RestError(code, message, status=auth_status(user_id))
