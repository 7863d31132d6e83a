"""A collection page's headers, as the reference's collection controllers send them: X-WP-Total,
X-WP-TotalPages and the Link rel=prev/next addresses, made from the request's own query."""

from __future__ import annotations

from typing import Any

from .request import RestRequest
from .urls import rest_url


def pagination_headers(request: RestRequest, total: int, per_page: int, page: int) -> dict[str, str]:
    """X-WP-Total, X-WP-TotalPages and Link rel=prev/next for a collection page.

    The prev/next URLs are the collection URL with the request's query and ``page`` replaced;
    clients read X-WP-TotalPages even on page 1, so it is always sent.
    """
    total_pages = -(-total // per_page) if per_page > 0 else 0
    headers = {"X-WP-Total": str(total), "X-WP-TotalPages": str(total_pages)}
    links: list[str] = []
    if page > 1:
        prev_page = min(page - 1, total_pages) if total_pages else 1
        links.append(f'<{page_url(request, prev_page)}>; rel="prev"')
    if page < total_pages:
        links.append(f'<{page_url(request, page + 1)}>; rel="next"')
    if links:
        headers["Link"] = ", ".join(links)
    return headers


def page_url(request: RestRequest, page: int) -> str:
    """The collection URL of ``request`` with ``page`` set (other query args kept, as sent)."""
    pairs = [(k, v) for k, v in _flatten_query(request.query) if k != "page"]
    pairs.append(("page", str(page)))
    return rest_url(request.base_url, request.route, pairs)


def _flatten_query(query: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for key, value in query.items():
        name = f"{prefix}[{key}]" if prefix else str(key)
        if isinstance(value, dict):
            pairs.extend(_flatten_query(value, name))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, (dict, list)):
                    pairs.extend(_flatten_query({str(index): item}, name))
                else:
                    pairs.append((f"{name}[{index}]", _query_scalar(item)))
        else:
            pairs.append((name, _query_scalar(value)))
    return pairs


def _query_scalar(value: Any) -> str:
    if value is True:
        return "1"
    if value is False or value is None:
        return ""
    return str(value)
