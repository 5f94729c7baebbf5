"""Sessions without a browser: clients of Streamlit's own websocket protocol, for load measurements and tests.

A browser session is, to the server, one websocket on ``/_stcore/stream`` that sends a ``BackMsg``
asking for a script run and receives ``ForwardMsg`` protobufs until the run has finished. This
client does just that, so 30 sessions cost the machine 30 sockets instead of 30 Chromium tabs:
what is measured is the server (how long until it has answered every session), not the
browsers' drawing. ``websockets`` is a dependency of Streamlit itself.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg


@dataclass
class Answer:
    """What one session received: seconds until its run finished, elements, exceptions, bytes."""

    page: str
    seconds: float = 0.0
    elements: int = 0
    exceptions: list[str] = field(default_factory=list)
    received_bytes: int = 0
    finished: bool = False


def _element_kind(msg: ForwardMsg) -> str | None:
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return None
    return msg.delta.new_element.WhichOneof("type")


async def session(url: str, page: str, query: str = "", timeout_s: float = 120.0) -> Answer:
    """Open ``page`` (its URL path, e.g. ``"dose"``) as a new session and wait until its script run has finished."""
    ws_url = url.replace("http://", "ws://", 1) + "/_stcore/stream"
    answer = Answer(page)
    back = BackMsg()
    back.rerun_script.query_string = query
    back.rerun_script.page_name = page
    start = time.perf_counter()
    async with websockets.connect(ws_url, subprotocols=["streamlit"], origin=url, max_size=2**28,
                                  open_timeout=timeout_s) as ws:
        await ws.send(back.SerializeToString())
        async with asyncio.timeout(timeout_s):
            async for data in ws:
                answer.received_bytes += len(data)
                msg = ForwardMsg()
                msg.ParseFromString(data)
                kind = _element_kind(msg)
                if kind is not None:
                    answer.elements += 1
                    if kind == "exception":
                        exc = msg.delta.new_element.exception
                        answer.exceptions.append(f"{exc.type}: {exc.message}")
                if (msg.WhichOneof("type") == "script_finished"
                        and msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY):
                    answer.finished = True
                    break
    answer.seconds = time.perf_counter() - start
    return answer


async def _many(url: str, pages: list[str], timeout_s: float) -> list[Answer]:
    return list(await asyncio.gather(*(session(url, p, timeout_s=timeout_s) for p in pages)))


def sessions(url: str, pages: list[str], timeout_s: float = 120.0) -> list[Answer]:
    """One new session per entry of ``pages``, all opened at once; their answers in the same order.

    The sockets run on an event loop of their own thread, so a caller that already has one running
    (Playwright's sync API does) can call this too.
    """
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["answers"] = asyncio.run(_many(url, pages, timeout_s))
        except BaseException as err:  # handed to the caller's thread
            result["error"] = err

    thread = threading.Thread(target=work, name="ws-sessions")
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["answers"]
