"""Which JAX build fits this machine: what ``nvidia-smi`` reports, and the ``jax[...]`` extra that uses it.

Standard library only and no package imports: ``scripts/jax_extra.py`` loads this file by path
with the system Python, before the virtualenv (and JAX) exist, so that ``make`` installs a CUDA
build of JAX where an NVIDIA GPU can run it. The ``devices`` command uses it to say why a GPU
that nvidia-smi sees is not one JAX sees.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import NamedTuple

EXTRAS = ("cpu", "cuda12", "cuda13")
ENV_VAR = "JAX_EXTRA"
TIMEOUT_S = 10.0

# The CUDA major version each extra's wheels are built against, newest first.
_CUDA_OF_EXTRA = (("cuda13", 13), ("cuda12", 12))
# Oldest Linux driver (major version) of each CUDA major, for an nvidia-smi that prints no CUDA version
# (NVIDIA's CUDA toolkit release notes: 12.0 needs 525.60.13, 13.0 needs 580.65.06).
_DRIVER_OF_CUDA = ((13, 580), (12, 525))
# CUDA 13 dropped GPUs older than Turing (compute capability 7.5); those stay on CUDA 12.
_CUDA13_MIN_COMPUTE = (7, 5)
_PLUGIN = re.compile(r"^jax[-_]cuda(\d+)[-_](plugin|pjrt)$", re.IGNORECASE)


class Smi(NamedTuple):
    """What ``nvidia-smi`` said. ``error`` is None when it answered with a driver version."""

    driver: str | None = None
    cuda: tuple[int, int] | None = None
    compute: tuple[tuple[int, int], ...] = ()
    error: str | None = None

    def describe(self) -> str:
        """``driver 550.54.15, CUDA 12.4``, for messages."""
        cuda = f", CUDA {self.cuda[0]}.{self.cuda[1]}" if self.cuda else ""
        return f"driver {self.driver}{cuda}"


def parse(text: str) -> Smi:
    """Read the driver and CUDA versions from the header of plain ``nvidia-smi`` output."""
    driver = re.search(r"Driver Version:\s*([0-9][0-9.]*)", text)
    if driver is None:
        return Smi(error="nvidia-smi answered without a driver version")
    cuda = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", text)
    return Smi(driver=driver.group(1), cuda=(int(cuda.group(1)), int(cuda.group(2))) if cuda else None)


def parse_compute(text: str) -> tuple[tuple[int, int], ...]:
    """Compute capabilities from ``nvidia-smi --query-gpu=compute_cap --format=csv,noheader`` (empty if unreadable)."""
    caps = [re.fullmatch(r"\s*(\d+)\.(\d+)\s*", line) for line in text.strip().splitlines()]
    if not caps or any(c is None for c in caps):
        return ()
    return tuple((int(c.group(1)), int(c.group(2))) for c in caps if c is not None)


def _call(exe: str, args: list[str], timeout: float) -> tuple[str | None, str]:
    """Run nvidia-smi; (stdout, "") when it answered, (None, why) when not."""
    try:
        done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"nvidia-smi did not answer within {timeout:g} s"
    except OSError as err:
        return None, f"nvidia-smi could not run ({err.strerror or err})"
    if done.returncode != 0:
        return None, f"nvidia-smi failed (exit code {done.returncode})"
    return done.stdout, ""


def probe(timeout: float = TIMEOUT_S) -> Smi:
    """Ask the ``nvidia-smi`` found on PATH for the driver, its CUDA version and (for CUDA 13) the GPUs' compute
    capabilities."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return Smi(error="no nvidia-smi on PATH")
    out, why = _call(exe, [], timeout)
    if out is None:
        return Smi(error=why)
    smi = parse(out)
    if smi.error is None and (cuda_major(smi) or 0) >= 13:
        caps, _ = _call(exe, ["--query-gpu=compute_cap", "--format=csv,noheader"], timeout)
        smi = smi._replace(compute=parse_compute(caps or ""))
    return smi


def cuda_major(smi: Smi) -> int | None:
    """The newest CUDA major the driver supports: as nvidia-smi prints it, else from the driver version."""
    if smi.cuda is not None:
        return smi.cuda[0]
    if smi.driver is None:
        return None
    major = int(smi.driver.split(".")[0])
    return next((cuda for cuda, need in _DRIVER_OF_CUDA if major >= need), 11)


def check_extra(value: str) -> str:
    """``value`` if it names an extra; ValueError naming JAX_EXTRA and the allowed values otherwise."""
    if value not in EXTRAS:
        raise ValueError(f"{ENV_VAR} must be one of {', '.join(EXTRAS)} (got {value!r})")
    return value


def choose(env: Mapping[str, str] = os.environ, probe_fn: Callable[[], Smi] = probe,
           platform: str = sys.platform) -> tuple[str, str]:
    """(extra, one-line reason): the ``JAX_EXTRA`` override when set, else the newest CUDA build the driver runs.

    ValueError for an override that is not one of :data:`EXTRAS`.
    """
    wanted = env.get(ENV_VAR, "").strip()
    if wanted:
        return check_extra(wanted), f"{ENV_VAR}={wanted} given"
    if not platform.startswith("linux"):
        return "cpu", f"JAX's CUDA wheels are for Linux only (this is {platform}); using the CPU-only jax"
    smi = probe_fn()
    if smi.error is not None:
        return "cpu", f"{smi.error}; using the CPU-only jax"
    cuda = cuda_major(smi) or 0
    seen = f"nvidia-smi reports {smi.describe()}"
    for extra, need in _CUDA_OF_EXTRA:
        if cuda < need:
            continue
        if need >= 13 and smi.compute and min(smi.compute) < _CUDA13_MIN_COMPUTE:
            old = ".".join(map(str, min(smi.compute)))
            return "cuda12", f"{seen}, but a GPU of compute capability {old} is too old for CUDA 13"
        return extra, seen
    return "cpu", (f"{seen}: too old for JAX, which needs CUDA 12 or newer; update the NVIDIA driver to use the GPU "
                   "(using the CPU-only jax)")


def requirement(extra: str, version: str | None = None) -> str:
    """The pip requirement of an extra (``jax[cuda12]``, pinned with ``version``); empty for the CPU build."""
    if check_extra(extra) == "cpu":
        return ""
    return f"jax[{extra}]" + (f"=={version}" if version else "")


def installed_version(name: str = "jax") -> str | None:
    """The version of a distribution installed for this Python, or None."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def installed_plugins() -> list[str]:
    """JAX's CUDA plugin distributions installed for this Python (``jax-cuda12-plugin``, ``jax-cuda12-pjrt``, ...)."""
    names = {(d.metadata["Name"] or "").lower().replace("_", "-") for d in metadata.distributions()}
    return sorted(n for n in names if _PLUGIN.match(n))


def stale_plugins(extra: str) -> list[str]:
    """Installed CUDA plugins that ``extra`` does not use: left in place they would make JAX load a second,
    mismatched CUDA build."""
    keep = dict(_CUDA_OF_EXTRA).get(check_extra(extra))
    return [n for n in installed_plugins() if (m := _PLUGIN.match(n)) and int(m.group(1)) != keep]
