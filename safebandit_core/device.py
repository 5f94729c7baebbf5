"""Which devices JAX sees, which one a run uses, and in which precision.

The core enables 64-bit arrays once, at import, so float64 is available; each run then picks
its dtype explicitly: float64 by default on the CPU, float32 by default on a GPU (and
selectable everywhere). Every result records the device and precision it ran with.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator

import jax
import jax.numpy as jnp

from .settings import SettingsError

jax.config.update("jax_enable_x64", True)

PRECISIONS = ("float64", "float32")
CACHE_ENV = "SAFEBANDIT_CACHE_DIR"
MIN_COMPILE_ENV = "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"
"""Compiles shorter than this many seconds are not kept on disk (0.2 unless the variable is set; the test suite
keeps every one)."""


def compile_cache_dir() -> str:
    """Where compiled functions are kept between processes: ``$SAFEBANDIT_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/safebandit/jax`` (``~/.cache/safebandit/jax``). Safe to delete at any time."""
    if os.environ.get(CACHE_ENV):
        return os.environ[CACHE_ENV]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "safebandit", "jax")


def enable_compile_cache(path: str | None = None) -> str | None:
    """Turn on JAX's persistent compilation cache, so a shape compiles once per machine, not once per process.

    Returns the folder, or None when it cannot be created (the app then compiles in memory as before).
    ``SAFEBANDIT_CACHE_DIR=off`` turns it off. Compiles under 0.2 s are not kept (a program that quick is cheaper
    compiled again than a file per shape), unless :data:`MIN_COMPILE_ENV` says otherwise.
    """
    folder = path or compile_cache_dir()
    if folder == "off":
        return None
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    jax.config.update("jax_compilation_cache_dir", folder)
    if MIN_COMPILE_ENV not in os.environ:  # JAX's own variable, when set, says which compiles are worth keeping
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return folder


COMPILE_CACHE = enable_compile_cache()
"""The persistent compile cache folder in use (None: off), set once when the core is imported."""


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """One device as a person reads it: ``id`` is what the CLI and pages pass back."""

    id: str
    platform: str
    name: str

    @property
    def label(self) -> str:
        """Human label, e.g. ``gpu:0 — NVIDIA H200``."""
        return f"{self.id} — {self.name}"


def _all() -> list[jax.Device]:
    devs: list[jax.Device] = []
    for backend in ("gpu", "cpu"):
        try:
            devs.extend(jax.devices(backend))
        except RuntimeError:
            continue
    return devs


def list_devices() -> list[DeviceInfo]:
    """Every device JAX sees, GPUs first."""
    out = []
    for d in _all():
        plat = "gpu" if d.platform in ("gpu", "cuda", "rocm") else d.platform
        out.append(DeviceInfo(id=f"{plat}:{d.id}", platform=plat, name=getattr(d, "device_kind", plat)))
    return out


def default_device_id() -> str:
    """The GPU when present, else the CPU."""
    return list_devices()[0].id


def has_gpu() -> bool:
    """True when JAX sees at least one GPU."""
    return any(d.platform == "gpu" for d in list_devices())


def resolve(device: str | None) -> jax.Device:
    """Turn ``None``, ``"cpu"``, ``"gpu"`` or ``"gpu:1"`` into a JAX device; ValueError if absent."""
    wanted = device or default_device_id()
    plat, _, idx = wanted.partition(":")
    for info, dev in zip(list_devices(), _all(), strict=True):
        if info.platform == plat and (not idx or info.id == wanted):
            return dev
    seen = ", ".join(i.id for i in list_devices())
    raise ValueError(f"device must be one of {seen} (got {wanted!r})")


def default_precision(device: str | None = None) -> str:
    """float32 on a GPU, float64 on the CPU."""
    return "float32" if resolve(device).platform in ("gpu", "cuda", "rocm") else "float64"


def dtype_of(precision: str) -> jnp.dtype:
    """The JAX dtype for a precision name."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(PRECISIONS)} (got {precision!r})")
    return jnp.float64 if precision == "float64" else jnp.float32


def describe(device: str | None) -> str:
    """The id of the device a run will use (recorded in every result)."""
    dev = resolve(device)
    for info, d in zip(list_devices(), _all(), strict=True):
        if d == dev:
            return info.label
    return str(dev)


@contextlib.contextmanager
def on_device(device: str | None) -> Iterator[jax.Device]:
    """Run the enclosed JAX work on ``device`` (default: GPU when present)."""
    dev = resolve(device)
    with jax.default_device(dev):
        yield dev


def available_bytes(device: str | None = None) -> int:
    """Memory the chosen device can give a run (GPU: free device memory; CPU: physical memory)."""
    d = resolve(device)
    stats = d.memory_stats() if hasattr(d, "memory_stats") else None
    if stats and "bytes_limit" in stats:
        return int(stats["bytes_limit"] - stats.get("bytes_in_use", 0))
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def check_fits(need: int, fixed: int, device: str | None, field: str, value: int, context: str,
               limit: int | None = None) -> None:
    """Raise :class:`SettingsError` naming ``field`` when a run needs more than half the device's memory, or more
    than ``limit`` bytes (a server's own cap on one run, so that one link cannot take a classroom's memory).

    ``need`` is the whole run's estimate in bytes, ``fixed`` the part that does not grow with
    ``field``; the message gives the largest ``field`` that fits (``context`` says with what).
    """
    have = available_bytes(device) // 2
    cap = limit
    capped = cap is not None and cap < have
    if capped:
        have = cap
    if need <= have:
        return
    per_unit = max(1, (need - fixed) // max(value, 1))
    largest = max(1, (have - fixed) // per_unit)
    where = f"within this server's limit of {have / 2**20:,.0f} MB per run" if capped else "on this device"
    raise SettingsError(field, f"at most about {largest:,} with {context} {where} "
                               f"({need / 2**20:,.0f} MB needed)", value)
