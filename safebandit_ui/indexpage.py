"""The page the browser loads first tells Streamlit's frontend where the server is, so a page opens without a probe.

Opened at a page's URL (``/conservative``), Streamlit's frontend does not know whether ``conservative`` is a page or
part of the server's address. It asks ``/conservative/_stcore/health`` first, is refused (404), waits 0.1 s and asks
one level up: 0.1-0.15 s of every first visit and reload of every page but the home page, before the websocket
opens. Streamlit reads the server's address from ``window.__streamlit.BACKEND_BASE_URL`` when the page sets it
(the setting hosts use to embed it). :func:`install` makes the server's ``index.html`` set it, before Streamlit's code
runs, to the page's own URL less its last part where that part is one of this app's page URLs, computed in the
browser (so a proxy's path prefix is kept); at any other URL the frontend probes as before.

Where this Streamlit serves its files another way (another version), :func:`install` changes nothing and returns
False (:func:`supported` says which), and the server's log says so once at start.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

SCRIPT = """<script>
(() => {
  const pages = @PAGES@;
  const path = window.location.pathname.replace(/\\/+$/, "");
  const cut = path.lastIndexOf("/");
  if (cut < 0 || !pages.includes(decodeURIComponent(path.slice(cut + 1)))) return;
  window.__streamlit = Object.assign({}, window.__streamlit,
    { BACKEND_BASE_URL: window.location.origin + path.slice(0, cut) + "/" });
})();
</script>"""
"""Sets the server's address from the page's URL when its last part names a page (``@PAGES@``: their URLs)."""


def script(url_paths: Iterable[str]) -> str:
    """:data:`SCRIPT` for the page URLs ``url_paths`` (``dose``, ``conservative``, ...)."""
    return SCRIPT.replace("@PAGES@", json.dumps(sorted(set(url_paths))))


def with_script(html: str, url_paths: Iterable[str]) -> str:
    """``html`` (Streamlit's ``index.html``) with :func:`script` first in its head, before Streamlit's own code."""
    return html.replace("<head>", "<head>\n" + script(url_paths), 1)


def supported() -> bool:
    """Whether this Streamlit serves its static files through the function :func:`install` wraps."""
    try:
        from starlette.responses import FileResponse, HTMLResponse  # noqa: F401
        from streamlit.web.server.starlette import starlette_static_routes as routes
    except ImportError:
        return False
    return callable(getattr(routes, "create_streamlit_static_handler", None))


def install(url_paths: Iterable[str]) -> bool:
    """Serve Streamlit's ``index.html`` with :func:`script` from now on (call before the server starts); whether
    this Streamlit's static files could be wrapped."""
    if not supported():
        return False
    from starlette.responses import FileResponse, HTMLResponse
    from streamlit.web.server.starlette import starlette_static_routes as routes

    original = routes.create_streamlit_static_handler
    if getattr(original, "_safebandit", False):
        return True
    paths = tuple(url_paths)

    def create(*args: Any, **kwargs: Any) -> Any:
        handler = original(*args, **kwargs)
        directory = kwargs.get("directory", args[0] if args else None)
        get = getattr(handler, "get_response", None)
        if not isinstance(directory, str) or get is None or not os.path.isfile(os.path.join(directory, "index.html")):
            return handler  # not the handler this module knows: served as Streamlit serves it
        index = os.path.realpath(os.path.join(directory, "index.html"))
        html = with_script(Path(index).read_text(encoding="utf-8"), paths)
        fetch: Callable[[str, Any], Awaitable[Any]] = get

        async def get_response(path: str, scope: Any) -> Any:
            response = await fetch(path, scope)
            if isinstance(response, FileResponse) and os.path.realpath(response.path) == index:
                return HTMLResponse(html, status_code=response.status_code,
                                    headers={"Cache-Control": response.headers.get("Cache-Control", "no-cache")})
            return response

        handler.get_response = get_response
        return handler

    create._safebandit = True  # type: ignore[attr-defined]
    routes.create_streamlit_static_handler = create
    return True
