"""The served app's log: a browser that leaves in the middle of a websocket's handshake is one line, not a traceback."""

from __future__ import annotations

import io
import logging

import pytest
from starlette.websockets import WebSocketDisconnected

from safebandit_ui.serve import GONE, ClientGone


def logged(exc: BaseException) -> str:
    """What a logger with :class:`ClientGone` writes for ``logger.exception`` while ``exc`` is being handled."""
    out = io.StringIO()
    logger = logging.getLogger(f"test-serve-log-{id(exc)}")
    logger.propagate = False
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.addFilter(ClientGone())
    try:
        raise exc
    except BaseException:
        logger.exception("Exception in ASGI application\n")
    return out.getvalue()


@pytest.mark.parametrize("why", ['WebSocket is not connected. Need to call "accept" first.',
                                 'Cannot call "send" once a close message has been sent.'])
def test_a_browser_gone_mid_handshake_is_one_line_at_info(why):
    text = logged(WebSocketDisconnected(why))
    assert text == f"INFO {GONE}\n"
    assert "Traceback" not in text and "Error" not in text and "WARNING" not in text


def test_any_other_exception_keeps_its_traceback():
    text = logged(RuntimeError("WebSocket is not connected"))
    assert text.startswith("ERROR Exception in ASGI application") and "Traceback" in text and "RuntimeError" in text


def test_the_filter_outlives_the_web_servers_own_logging_set_up():
    """The server adds the filter before the web server configures its loggers (uvicorn's dictConfig, as Streamlit
    starts it): that set-up replaces handlers, and must leave the filter in place."""
    import uvicorn

    logger = logging.getLogger("uvicorn.error")
    gone = ClientGone()
    logger.addFilter(gone)
    try:
        uvicorn.Config(app=lambda scope, receive, send: None)
        assert gone in logger.filters
    finally:
        logger.removeFilter(gone)
