"""``python -m safebandit_core devices``: the devices JAX sees, and why an NVIDIA GPU is not among them.

The list is :func:`safebandit_core.device.list_devices` (GPUs first; the first is the default of
every run). When ``nvidia-smi`` answers but JAX sees no GPU, the usual cause is the CPU-only
jaxlib; the note says so and gives the command that installs the CUDA build
(:mod:`safebandit_core.cuda_probe` picks it, as ``make venv`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import jax

from . import cuda_probe, device

HELP = "The devices JAX sees (platform, id, name), and what to install when an NVIDIA GPU is not used."


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of the ``devices`` command."""
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: devices, default, jax_version, backend (a GPU note goes to stderr)")


def report(infos: list[device.DeviceInfo]) -> dict[str, object]:
    """What JAX sees: every device (id, platform, name), the default device's id, JAX's version and backend."""
    return {"devices": [{"id": d.id, "platform": d.platform, "name": d.name} for d in infos],
            "default": device.default_device_id(), "jax_version": jax.__version__, "backend": jax.default_backend()}


def gpu_note(infos: list[device.DeviceInfo], smi: cuda_probe.Smi, plugins: list[str]) -> str | None:
    """Why a GPU that ``nvidia-smi`` reports is not a JAX device, and what to run; None when there is nothing to say."""
    if smi.error is not None or any(d.platform == "gpu" for d in infos):
        return None
    extra, reason = cuda_probe.choose(env={}, probe_fn=lambda: smi)
    head = f"nvidia-smi reports an NVIDIA GPU ({smi.describe()}) but JAX sees none"
    if extra == "cpu":
        return f"{head}: {reason}."
    platforms = os.environ.get("JAX_PLATFORMS", "")
    if plugins and platforms and not {"cuda", "gpu"} & set(platforms.split(",")):
        return f"{head}: JAX_PLATFORMS={platforms} keeps JAX off it ({', '.join(plugins)} installed); unset it."
    if plugins:
        return (f"{head}: {', '.join(plugins)} is installed but did not load (a plugin of another CUDA build, or a "
                f"driver/plugin mismatch). Reinstall the matching build: make venv JAX_EXTRA={extra}")
    pip = f'{sys.executable} -m pip install "{cuda_probe.requirement(extra, jax.__version__)}"'
    return (f"{head}: the CPU-only jaxlib is installed. To use the GPU run: make venv JAX_EXTRA={extra}\n"
            f"  (or, in this environment: {pip})")


def run(args: argparse.Namespace) -> int:
    """Print the devices (text or one JSON object) and, when it applies, the GPU note."""
    infos = device.list_devices()
    uses_gpu = any(d.platform == "gpu" for d in infos)
    note = None if uses_gpu else gpu_note(infos, cuda_probe.probe(), cuda_probe.installed_plugins())
    if args.json:
        print(json.dumps(report(infos)))
        if note:
            print(f"note: {note}", file=sys.stderr)
        return 0
    default = device.default_device_id()
    print(f"JAX {jax.__version__}, backend {jax.default_backend()}:")
    for d in infos:
        mark = "  (default)" if d.id == default else ""
        print(f"  {d.id:<8} platform={d.platform:<4} name={d.name}{mark}")
    if note:
        print(f"note: {note}")
    return 0
