"""GPU set-up: which JAX build ``make venv`` installs (scripts/jax_extra.py, the Makefile's stamp), and the
``devices`` command's report and note. Runs on a CPU machine with stub ``nvidia-smi`` scripts; installs nothing."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from safebandit_core import cli, cuda_probe, device, devices_cli
from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "jax_extra.py"
MAKE = shutil.which("make")


def smi_header(driver: str, cuda: str | None) -> str:
    """The header line of plain ``nvidia-smi`` output."""
    tail = f"      CUDA Version: {cuda}" if cuda else ""
    return f"| NVIDIA-SMI {driver}              Driver Version: {driver}{tail}     |"


def stub(tmp_path: Path, body: str) -> Path:
    """A folder holding an ``nvidia-smi`` shell script with ``body``; the folder to put on PATH."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    exe = folder / "nvidia-smi"
    exe.write_text("#!/bin/sh\n" + body + "\n")
    exe.chmod(0o755)
    return folder


def answering(tmp_path: Path, driver: str, cuda: str | None, compute: str = "9.0") -> Path:
    """A stub that prints the header for plain calls and ``compute`` for the compute-capability query."""
    return stub(tmp_path, f'if [ "$1" = "--query-gpu=compute_cap" ]; then echo {compute}; exit 0; fi\n'
                          f"printf '%s\\n' '+----+' '{smi_header(driver, cuda)}' '+----+'")


def jax_extra(path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """Run the script without site-packages (``-S``: it must need the standard library only) with ``path`` as PATH."""
    base = {k: v for k, v in os.environ.items() if k != "JAX_EXTRA"}
    return subprocess.run([sys.executable, "-S", str(SCRIPT), *args], capture_output=True, text=True, timeout=30,
                          env={**base, "PATH": str(path), **env})


def test_no_nvidia_smi_means_cpu(tmp_path):
    res = jax_extra(tmp_path)
    assert res.returncode == 0 and res.stdout == ""
    assert "cpu" in res.stderr and "nvidia-smi" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert jax_extra(tmp_path, "--name").stdout.strip() == "cpu"


@pytest.mark.parametrize(("driver", "cuda", "compute", "want"), [
    ("550.54.15", "12.4", "9.0", "jax[cuda12]"),
    ("580.95.05", "13.0", "9.0", "jax[cuda13]"),
    ("580.95.05", "13.0", "7.0", "jax[cuda12]"),  # a Volta GPU: CUDA 13 no longer supports it
])
def test_driver_picks_the_cuda_build(tmp_path, driver, cuda, compute, want):
    res = jax_extra(answering(tmp_path, driver, cuda, compute))
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == want
    assert driver in res.stderr


def test_failing_nvidia_smi_means_cpu(tmp_path):
    res = jax_extra(stub(tmp_path, "echo 'NVIDIA-SMI has failed' >&2; exit 9"))
    assert res.returncode == 0 and res.stdout == ""
    assert "failed" in res.stderr and "cpu" in res.stderr


def test_override_wins(tmp_path):
    path = answering(tmp_path, "580.95.05", "13.0")
    assert jax_extra(path, JAX_EXTRA="cuda12").stdout.strip() == "jax[cuda12]"
    assert jax_extra(path, JAX_EXTRA="cpu").stdout == ""
    assert jax_extra(tmp_path / "none", JAX_EXTRA="cuda13").stdout.strip() == "jax[cuda13]"


def test_bad_override_exits_2_with_one_line(tmp_path):
    res = jax_extra(tmp_path, JAX_EXTRA="cuda11")
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "JAX_EXTRA" in lines[0] and "cpu, cuda12, cuda13" in lines[0]


def test_hanging_nvidia_smi_times_out(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(stub(tmp_path, "while :; do :; done")))
    smi = cuda_probe.probe(timeout=0.3)
    assert smi.error is not None and "did not answer" in smi.error


@pytest.mark.parametrize(("driver", "want"), [("535.104.05", "cuda12"), ("470.82.01", "cpu"), ("580.65.06", "cuda13")])
def test_driver_without_cuda_line(driver, want):
    smi = cuda_probe.parse(smi_header(driver, None))
    extra, reason = cuda_probe.choose(env={}, probe_fn=lambda: smi, platform="linux")
    assert extra == want
    assert want != "cpu" or "update the NVIDIA driver" in reason


def test_not_linux_means_cpu():
    extra, reason = cuda_probe.choose(env={}, probe_fn=lambda: pytest.fail("probed"), platform="darwin")
    assert extra == "cpu" and "Linux" in reason


def test_stale_plugins(monkeypatch):
    plugins = ["jax-cuda12-pjrt", "jax-cuda12-plugin", "jax-cuda13-plugin"]
    monkeypatch.setattr(cuda_probe, "installed_plugins", lambda: plugins)
    assert cuda_probe.stale_plugins("cpu") == plugins
    assert cuda_probe.stale_plugins("cuda12") == ["jax-cuda13-plugin"]
    assert cuda_probe.stale_plugins("cuda13") == ["jax-cuda12-pjrt", "jax-cuda12-plugin"]
    with pytest.raises(ValueError, match="JAX_EXTRA"):
        cuda_probe.stale_plugins("rocm")


def make(*args: str, path: str | None = None) -> subprocess.CompletedProcess:
    """``make`` in the repository with the test's Python as PY."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_EXTRA"}
    if path is not None:
        env["PATH"] = path
    return subprocess.run([MAKE or "make", "-C", str(ROOT), f"PY={sys.executable}", *args], capture_output=True,
                          text=True, timeout=30, env=env)


needs_make = pytest.mark.skipif(MAKE is None, reason="make is not installed")


@needs_make
def test_make_dry_run_installs_the_cuda_build(tmp_path):
    venv = tmp_path / "venv"
    res = make("-n", "venv", "JAX_EXTRA=cuda12", f"VENV={venv}")
    assert res.returncode == 0, res.stderr
    assert "-r requirements-dev.txt" in res.stdout
    assert 'pip install --quiet "jax[cuda12]==' in res.stdout
    assert f"touch {venv}/.installed-cuda12" in res.stdout
    cpu = make("-n", "venv", "JAX_EXTRA=cpu", f"VENV={venv}")
    assert "jax[" not in cpu.stdout and "--stale cpu" in cpu.stdout
    assert not venv.exists()


@needs_make
def test_make_detects_the_gpu(tmp_path):
    path = f"{answering(tmp_path, '580.95.05', '13.0')}{os.pathsep}{os.environ['PATH']}"
    res = make("-n", "venv", f"VENV={tmp_path / 'venv'}", path=path)
    assert res.returncode == 0, res.stderr
    assert '"jax[cuda13]==' in res.stdout


@needs_make
def test_stamp_records_the_extra(tmp_path):
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / ".installed-cuda12").touch()
    # the browser bundle counts as installed, whatever the age of this checkout's node_modules: only the stamp is asked
    bundle = tmp_path / "bundle.json"
    bundle.touch()
    where = (f"VENV={venv}", f"BUNDLE={bundle}")
    assert make("-q", "venv", "JAX_EXTRA=cuda12", *where).returncode == 0  # up to date
    assert make("-q", "venv", "JAX_EXTRA=cpu", *where).returncode == 1  # another build: install again


@needs_make
def test_make_rejects_a_bad_extra_before_installing(tmp_path):
    venv = tmp_path / "venv"
    res = make("venv", "JAX_EXTRA=cuda11", f"VENV={venv}")
    assert res.returncode == 2
    assert "JAX_EXTRA must be one of cpu, cuda12, cuda13 (got 'cuda11')" in res.stderr
    assert not venv.exists()


def devices(*args: str) -> int:
    parser = argparse.ArgumentParser()
    devices_cli.add_arguments(parser)
    return devices_cli.run(parser.parse_args(list(args)))


def test_devices_is_a_command():
    assert cli.commands()["devices"] == "safebandit_core.devices_cli"


def test_devices_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert devices("--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"devices", "default", "jax_version", "backend"}
    assert doc["devices"] and all(set(d) == {"id", "platform", "name"} for d in doc["devices"])
    assert doc["default"] in [d["id"] for d in doc["devices"]]


def cpu_only(monkeypatch, plugins: list[str]) -> None:
    """JAX sees only the CPU, whatever this machine has."""
    monkeypatch.setattr(device, "list_devices", lambda: [device.DeviceInfo("cpu:0", "cpu", "cpu")])
    monkeypatch.setattr(cuda_probe, "installed_plugins", lambda: plugins)
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)


def test_devices_says_why_the_gpu_is_unused(tmp_path, monkeypatch, capsys):
    cpu_only(monkeypatch, [])
    monkeypatch.setenv("PATH", str(answering(tmp_path, "550.54.15", "12.4")))
    assert devices() == 0
    out = capsys.readouterr().out
    assert "cpu:0" in out and "(default)" in out
    assert "CPU-only jaxlib" in out and "make venv JAX_EXTRA=cuda12" in out and 'pip install "jax[cuda12]==' in out


def test_devices_without_nvidia_smi_has_no_note(tmp_path, monkeypatch, capsys):
    cpu_only(monkeypatch, [])
    monkeypatch.setenv("PATH", str(tmp_path))
    assert devices() == 0
    assert "note:" not in capsys.readouterr().out


def test_devices_note_names_jax_platforms(monkeypatch):
    cpu_only(monkeypatch, ["jax-cuda12-plugin"])
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    note = devices_cli.gpu_note(device.list_devices(), cuda_probe.Smi(driver="550.54.15", cuda=(12, 4)),
                                ["jax-cuda12-plugin"])
    assert note is not None and "JAX_PLATFORMS=cpu" in note
