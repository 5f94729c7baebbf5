"""Which JAX build ``make venv`` installs: prints ``jax[cuda13]``, ``jax[cuda12]`` or nothing (the CPU build).

The choice is the ``JAX_EXTRA`` override (cpu, cuda12 or cuda13) when set, else what ``nvidia-smi``
says the driver runs; one line on stderr says why. Standard library only: the Makefile runs it with
the system Python before the virtualenv exists. A bad ``JAX_EXTRA`` exits 2 with one line.

    python3 scripts/jax_extra.py                  # the requirement, or nothing for the CPU build
    python3 scripts/jax_extra.py --name           # the extra: cpu, cuda12 or cuda13
    .venv/bin/python scripts/jax_extra.py --jax-version    # the jax installed for that Python
    .venv/bin/python scripts/jax_extra.py --stale cpu      # installed CUDA plugins the extra does not use
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

# The logic lives in the package (the ``devices`` command uses it too); loaded by path, because
# importing the package would import JAX.
_PROBE = Path(__file__).resolve().parents[1] / "safebandit_core" / "cuda_probe.py"


def _load_probe() -> ModuleType:
    spec = importlib.util.spec_from_file_location("safebandit_cuda_probe", _PROBE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    """Print the chosen requirement (or what the flags ask for); the exit code."""
    probe = _load_probe()
    parser = argparse.ArgumentParser(description="Which JAX extra fits this machine.")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--name", action="store_true", help="print the extra (cpu, cuda12, cuda13), not the requirement")
    what.add_argument("--jax-version", action="store_true", help="print the installed jax version")
    what.add_argument("--stale", metavar="EXTRA", help="print the installed JAX CUDA plugins EXTRA does not use")
    args = parser.parse_args(argv)
    try:
        if args.jax_version:
            version = probe.installed_version("jax")
            if version is None:
                print("error: jax is not installed for this Python", file=sys.stderr)
                return 1
            print(version)
            return 0
        if args.stale is not None:
            for name in probe.stale_plugins(args.stale):
                print(name)
            return 0
        extra, reason = probe.choose()
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"JAX build: {extra} ({reason})", file=sys.stderr)
    shown = extra if args.name else probe.requirement(extra)
    if shown:
        print(shown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
