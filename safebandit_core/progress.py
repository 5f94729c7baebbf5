"""A progress line for long command-line runs: the fraction done and the time left, on stderr when it is a terminal.

The core reports progress as ``progress(fraction, text)`` callbacks (the pages' live bars use the
same ones). :func:`line` turns them into one `tqdm <https://tqdm.github.io>`_ line on stderr, shown
only once a run has lasted :data:`DELAY_S` seconds and cleared when it ends. When stderr is not a
terminal (a pipe, a file, a test's capture), :func:`line` yields None and nothing is written: piped
output and ``--json`` stay exactly as they were. :func:`run_model` is :func:`safebandit_core.model.run`
with that line: on a terminal, a run estimated at :data:`MIN_UNITS` policy-seed-rounds or more runs
in chunks (the runner's chunks give the same numbers as one scan) so the line can move.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from . import model as M

DELAY_S = 2.0
MIN_INTERVAL_S = 0.2  # at most five redraws a second
MIN_UNITS = 2_000_000
BAR_FORMAT = "{desc} {percentage:3.0f}% |{bar:20}| {elapsed} elapsed, {remaining} left{postfix}"
Progress = Callable[[float, str], None]


def on_terminal(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default: stderr) is a terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def line(desc: str, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """Yield a ``progress(fraction, text)`` callback drawing one line on a terminal, or None when not on one."""
    stream = sys.stderr if stream is None else stream
    if not on_terminal(stream):
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=1.0, desc=desc, file=stream, delay=DELAY_S, mininterval=MIN_INTERVAL_S, bar_format=BAR_FORMAT,
              leave=False) as bar:
        def tick(fraction: float, text: str) -> None:
            bar.set_postfix_str(text, refresh=False)
            bar.update(max(0.0, min(1.0, fraction)) - bar.n)

        yield tick


def round_chunk(limit: int) -> int:
    """The progress line's chunk for a run: the largest of 1000, 2000, 5000, 10000, … within ``limit`` (round numbers
    on the line; with the masked tail, every T that gets the same chunk runs in the same compiled shapes)."""
    best, scale = 1000, 1000
    while scale <= limit:
        best = max([best] + [m * scale for m in (1, 2, 5) if m * scale <= limit])
        scale *= 10
    return best


def run_model(family: M.Family, settings: Any, device: str | None = None, **kw: Any) -> M.Run:
    """:func:`safebandit_core.model.run`, with a progress line on a terminal for a run of some length."""
    from . import model as M

    T = int(settings.T)
    units = T * int(settings.seeds) * len(family.policies(settings))
    with line(f"{family.kind} run") as tick:
        if tick is None or units < MIN_UNITS or "chunk" in kw:
            return M.run(family, settings, device, **kw)
        last = None
        chunk = round_chunk(max(1000, T // 50))
        for last in M.simulate(family, settings, device, chunk=chunk, pad_tail=True, **kw):
            tick(last.t_done / T, f"round {last.t_done:,} of {T:,}")
        assert last is not None
        return last


__all__ = ["BAR_FORMAT", "DELAY_S", "MIN_INTERVAL_S", "MIN_UNITS", "line", "on_terminal", "round_chunk", "run_model"]
