"""Sweeps across processes and hosts on JAX's multi-controller runtime.

Every process runs the same command. :func:`start` joins them (``jax.distributed.initialize``;
on CPU the collectives go through gloo); afterwards ``jax.devices()`` lists the devices of every
process and :func:`safebandit_core.model.device_mesh` spans them all. For a mesh that spans
several processes, :func:`plan` splits the work: the grid cells when there are at least as many
cells as devices, else the seeds (a one-cell preset at the paper's 50 seeds, the battery replay).
The rows are padded to a multiple of the device count by repeating the last one, each process
runs its contiguous block on its own devices (cells are independent and every seed's key is
``PRNGKey(base_seed + i)`` whatever the split, so nothing is exchanged while running), and
:func:`allgather` joins every chunk's outputs in process order, the padding dropped: every
process ends with the whole result, identical to a one-process run's. Only process 0
(:func:`is_writer`) prints the results and writes files, each through :func:`safebandit_core.outputs.write`.

Faults: a process that cannot join within ``connect_timeout`` seconds stops with exit code 2 and
one line naming the coordinator (:class:`JoinError`); a process that dies makes the others stop
within ``heartbeat_timeout`` seconds (JAX's coordination service ends them, aborting the process
itself), and a file is either complete or absent. A peer that leaves after process 0 has written
everything costs nothing: process 0 says so in one line (:func:`left_during_shutdown`) and exits 0.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import math
import os
import re
import socket
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from . import device as _device

DEFAULT_CONNECT_TIMEOUT = 60
DEFAULT_HEARTBEAT_TIMEOUT = 60
GRACE_S = 5
"""JAX's own initialization deadline is this much later than ours, so ours always fires first."""
JOIN_EXIT = 2
MESH_AXIS = "grid"
"""The axis of the mesh over one process's own devices (the rows of its share)."""


class JoinError(Exception):
    """This process could not join the others: one line naming the coordinator (exit code 2)."""


@dataclasses.dataclass(frozen=True)
class Options:
    """How this process joins a multi-process run.

    ``auto``: JAX reads the cluster's environment (SLURM, Open MPI, ...); otherwise
    ``coordinator`` (``HOST:PORT`` of process 0), ``num_processes`` and ``process_id`` say it.
    ``connect_timeout``: seconds to wait for every process to join; ``heartbeat_timeout``: seconds
    after which a silent process counts as dead and the others stop.
    """

    coordinator: str | None = None
    num_processes: int | None = None
    process_id: int | None = None
    auto: bool = False
    connect_timeout: int = DEFAULT_CONNECT_TIMEOUT
    heartbeat_timeout: int = DEFAULT_HEARTBEAT_TIMEOUT


@dataclasses.dataclass(frozen=True)
class Role:
    """This process's place in the run: its index and the number of processes (0 of 1 when local)."""

    process: int = 0
    processes: int = 1

    @property
    def writer(self) -> bool:
        """Only process 0 prints results and writes files."""
        return self.process == 0

    @property
    def multi(self) -> bool:
        """Several processes take part."""
        return self.processes > 1


LOCAL = Role()


def split_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` too) as (host, port); ValueError when it is not one."""
    host, sep, port = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(address)
    return host, int(port)


def _answers(address: str | None) -> bool:
    """Whether anything accepts a TCP connection at ``address`` now."""
    if not address:
        return False
    try:
        host, port = split_address(address)
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except (OSError, ValueError):
        return False


def _port_taken(address: str) -> bool:
    """Whether the port of ``address`` is already in use on this machine (process 0 listens on it)."""
    _, port = split_address(address)
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port in TIME_WAIT is free
                s.bind((host, port))
            return False
        except OSError as err:
            if family == socket.AF_INET6 and err.errno in (97, 99):  # no IPv6 here: try IPv4
                continue
            return True
    return True


def _coordinator_seen() -> str | None:
    """The coordinator address JAX is joining (set before it connects; auto-detected ones too)."""
    from jax._src import distributed as _state

    return _state.global_state.coordinator_address


def _join_line(address: str | None, timeout: int, processes: int | None) -> str:
    where = address or "the auto-detected coordinator"
    if not _answers(address):
        return f"error: --coordinator {where}: no coordinator answered within {timeout} s"
    many = f"all {processes}" if processes else "every"
    return f"error: --coordinator {where}: not {many} processes joined within {timeout} s"


def start(options: Options | None) -> Role:
    """Join the run ``options`` describe (None: a local run, nothing is initialised) and return this process's role.

    Must come before anything touches a JAX device. Within one process it may be called again
    with the same options (the second call only returns the role). JAX ends a process whose
    initialisation times out without a Python error, so a watchdog thread ends it first, with
    :data:`JOIN_EXIT` and one line (see :func:`_join_line`).
    """
    if options is None:
        return LOCAL
    if jax.distributed.is_initialized():
        role = Role(jax.process_index(), jax.process_count())
        if (options.process_id not in (None, role.process)
                or options.num_processes not in (None, role.processes)):
            raise JoinError(f"error: --process-id {options.process_id}: this process already joined as "
                            f"{role.process} of {role.processes}")
        return role
    if options.process_id == 0 and options.coordinator and _port_taken(options.coordinator):
        raise JoinError(f"error: --coordinator {options.coordinator}: port {split_address(options.coordinator)[1]} "
                        "is already in use on this machine (process 0 listens there)")
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    joined = threading.Event()

    def watchdog() -> None:
        if not joined.wait(options.connect_timeout):
            line = _join_line(options.coordinator or _coordinator_seen(), options.connect_timeout,
                              options.num_processes)
            print(line, file=sys.stderr, flush=True)
            os._exit(JOIN_EXIT)

    threading.Thread(target=watchdog, name="safebandit-join", daemon=True).start()
    try:
        jax.distributed.initialize(
            options.coordinator, options.num_processes, options.process_id,
            cluster_detection_method=None if options.auto else "deactivate",
            initialization_timeout=options.connect_timeout + GRACE_S,
            heartbeat_timeout_seconds=options.heartbeat_timeout,
            shutdown_timeout_seconds=options.heartbeat_timeout)
    except (ValueError, TypeError) as err:
        joined.set()
        if options.auto:
            raise JoinError("error: --distributed auto found no cluster environment (SLURM, Open MPI, ...); "
                            "give --coordinator HOST:PORT --num-processes N --process-id I") from None
        raise JoinError(f"error: --coordinator {options.coordinator}: {err}") from None
    except RuntimeError as err:
        joined.set()
        raise JoinError(f"error: --coordinator {options.coordinator}: {str(err).splitlines()[0]}") from None
    joined.set()
    return Role(jax.process_index(), jax.process_count())


def role() -> Role:
    """This process's role now (0 of 1 unless :func:`start` joined a multi-process run)."""
    if not jax.distributed.is_initialized():
        return LOCAL
    return Role(jax.process_index(), jax.process_count())


def device_count() -> int:
    """Devices of every process together."""
    return jax.device_count()


def is_writer() -> bool:
    """True on process 0 (and in a local run): the one process that prints results and writes files."""
    return role().writer


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send what native code prints on stdout to stderr (gloo announces its connections on stdout),
    so ``--json`` still prints exactly one document."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        ctypes.CDLL(None).fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


def left_during_shutdown(err: BaseException, role: Role) -> str:
    """The one line process 0 prints when the final barrier fails after it wrote every file: a peer left
    during shutdown, which loses nothing. The peer is read from the error (JAX names it ``task:N``); with
    two processes it can only be the other one."""
    found = re.search(r"task[: ](\d+)", str(err))
    if found:
        peer = f"process {found.group(1)}"
    elif role.processes == 2:
        peer = f"process {1 - role.process}"
    else:
        peer = "another process"
    return f"results complete; {peer} left during shutdown"


def barrier(name: str) -> None:
    """Wait until every process reaches the barrier called ``name`` (nothing in a local run)."""
    if role().multi:
        with _stdout_to_stderr():
            multihost_utils.sync_global_devices(name)


def allgather(arrays: Mapping[str, np.ndarray], axis: int) -> dict[str, np.ndarray]:
    """Every process's ``arrays`` joined along ``axis`` in process order (each process's shapes equal).

    All arrays travel as one byte buffer in one collective, so dtypes (bool, ints, floats) come back
    bit for bit; each result keeps its input's memory layout (the order of its strides), so numpy
    reduces it in the same order as a one-process run's and even sums agree to the last bit.
    """
    names = sorted(arrays)
    local = [np.asarray(arrays[k]) for k in names]
    perms = [tuple(int(i) for i in np.argsort([-st for st in a.strides], kind="stable")) for a in local]
    phys = [np.ascontiguousarray(a.transpose(p)) for a, p in zip(local, perms, strict=True)]
    flat = np.concatenate([m.reshape(-1).view(np.uint8) for m in phys]) if phys else np.zeros(0, np.uint8)
    with _stdout_to_stderr():
        every = np.asarray(multihost_utils.process_allgather(flat, tiled=False))
    out: dict[str, np.ndarray] = {}
    offset = 0
    for k, a, perm, m in zip(names, local, perms, phys, strict=True):
        parts = [every[p, offset:offset + m.nbytes].copy().view(m.dtype).reshape(m.shape)
                 for p in range(every.shape[0])]
        joined = np.concatenate(parts, axis=perm.index(axis % a.ndim))
        out[k] = joined.transpose(np.argsort(perm))
        offset += m.nbytes
    return out


@dataclasses.dataclass(frozen=True)
class Plan:
    """This process's share of a run over a mesh that spans several processes.

    ``axis`` is ``"cells"`` or ``"seeds"``; ``n`` rows are padded to ``padded`` (a multiple of
    the mesh size) and this process runs rows ``start:stop`` on ``devices`` (its own devices in
    the mesh); ``device`` is the id of the first of them (how the runner names a device).
    """

    axis: str
    n: int
    padded: int
    start: int
    stop: int
    process: int
    processes: int
    devices: tuple[Any, ...]
    device: str

    @property
    def size(self) -> int:
        """Rows this process runs."""
        return self.stop - self.start

    @property
    def out_axis(self) -> int:
        """The outputs' axis of the split rows: cells lead, seeds come second to last (…, seed, t)."""
        return 0 if self.axis == "cells" else -2

    def take(self, tree: Any, axes: Any) -> Any:
        """This process's rows of every leaf whose axis (in ``axes``, a matching tree) is 0; None leaves stay."""
        def rows(a: int | None, v: jax.Array) -> jax.Array:
            if a is None:
                return v
            pad = self.padded - v.shape[0]
            if pad:
                v = jnp.concatenate([v, jnp.repeat(v[-1:], pad, axis=0)])
            return v[self.start:self.stop]

        return jax.tree.map(rows, axes, tree, is_leaf=lambda x: x is None)

    def place(self, params: Any, keys: Any, axes: Any) -> tuple[Any, Any, tuple[Any, Any] | None]:
        """This process's rows of the params (cells split; ``axes`` as for :meth:`take`) or of the keys
        (seeds split), and their shardings over this process's devices (None for one: the runner puts
        everything on :attr:`device`)."""
        if self.axis == "cells":
            params = self.take(params, axes)
        else:
            keys = self.take(keys, 0)
        if len(self.devices) < 2:
            return params, keys, None
        mesh = Mesh(np.asarray(self.devices), (MESH_AXIS,))
        rows, rep = NamedSharding(mesh, PartitionSpec(MESH_AXIS)), NamedSharding(mesh, PartitionSpec())
        if self.axis == "seeds":
            return params, keys, (rep, rows)
        per_leaf = jax.tree.map(lambda a, _: rep if a is None else rows, axes, params, is_leaf=lambda x: x is None)
        return params, keys, (per_leaf, rep)

    def gather(self, piece: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Every process's rows of one chunk's outputs, in order, the padding dropped."""
        whole = allgather(piece, self.out_axis)
        keep = (slice(0, self.n),) if self.axis == "cells" else (..., slice(0, self.n), slice(None))
        return {k: v[keep] for k, v in whole.items()}

    def describe(self, platform: str) -> str:
        """How a result names where it ran, e.g. ``2 × cpu over 2 processes (cells split)``."""
        return f"{self.processes * len(self.devices)} × {platform} over {self.processes} processes ({self.axis} split)"


def local_device_id(device: str | None) -> str:
    """The id (``cpu:2048``, ``gpu:3``) of a device of ``device``'s platform that this process can address."""
    wanted = _device.resolve(device)
    if wanted.process_index == jax.process_index():
        dev = wanted
    else:
        dev = jax.local_devices(backend=wanted.platform)[0]
    plat = "gpu" if dev.platform in ("gpu", "cuda", "rocm") else dev.platform
    return f"{plat}:{dev.id}"


def plan(mesh: Any, cells: int | None, seeds: int) -> Plan | None:
    """This process's share of ``cells`` grid cells (None: a single run) × ``seeds`` over ``mesh``.

    None when the mesh is None or lies in this process alone (the one-process path). Cells are
    split when there are at least as many as devices, else seeds. Every process must have the same
    number of devices in the mesh (as :func:`jax.experimental.multihost_utils.process_allgather` needs).
    """
    if mesh is None:
        return None
    devices = list(mesh.devices.flat)
    procs = sorted({d.process_index for d in devices})
    if len(procs) < 2:
        return None
    counts = {p: sum(d.process_index == p for d in devices) for p in procs}
    if len(set(counts.values())) > 1:
        raise ValueError("every process needs the same number of devices (" +
                         ", ".join(f"process {p}: {c}" for p, c in counts.items()) + ")")
    me = jax.process_index()
    mine = tuple(d for d in devices if d.process_index == me)
    axis, n = ("cells", cells) if cells is not None and cells >= len(devices) else ("seeds", seeds)
    padded = math.ceil(n / len(devices)) * len(devices)
    per = padded // len(procs)
    pos = procs.index(me)
    plat = "gpu" if mine[0].platform in ("gpu", "cuda", "rocm") else mine[0].platform
    return Plan(axis=axis, n=n, padded=padded, start=pos * per, stop=(pos + 1) * per, process=me,
                processes=len(procs), devices=mine, device=f"{plat}:{mine[0].id}")
