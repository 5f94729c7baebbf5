"""Every file the command line reads or writes goes through here.

- :func:`check_file` / :func:`check_folder` check an output target *before* any computing: the
  folder exists, is a folder and is writable, the target is not a folder (nor a device or other
  special file), and its suffix is allowed. A bad target raises :class:`OutputError` with exit
  code 2 and one line naming the flag and the path.
- :func:`write` writes to a temporary file in the target's folder and renames it into place
  (``os.replace``): the file is complete or absent, and an existing file is never damaged. The
  temporary file is removed on any error; an I/O failure (a full disk, a folder that refuses new
  files) raises :class:`OutputError` with exit code 1 and one line.
- :func:`read_capped` reads an input file (a settings file) up to a size limit, reading at most
  one byte past it, so ``/dev/zero`` or a huge file is refused instead of filling the memory.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from .uploads import format_size

BAD_PATH = 2
IO_FAILED = 1


class OutputError(Exception):
    """A file the command line cannot read or write: one line (``str(err)``) and an exit ``code``."""

    def __init__(self, line: str, code: int = BAD_PATH) -> None:
        super().__init__(line)
        self.code = code


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def _folder_problem(folder: Path) -> str | None:
    """Why files cannot be created in ``folder``, or None."""
    if not folder.exists():
        return f"the folder {str(folder)!r} does not exist"
    if not folder.is_dir():
        return f"{str(folder)!r} is not a folder"
    if not _writable(folder):
        return f"the folder {str(folder)!r} is not writable"
    return None


def check_file(path: str | os.PathLike[str] | None, flag: str, suffixes: tuple[str, ...]) -> Path | None:
    """``path`` as a :class:`Path` once it can take a new file (None stays None); :class:`OutputError` (exit 2)
    naming ``flag`` otherwise. ``suffixes`` are the allowed endings, lower case with the dot (``.csv``)."""
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise OutputError(f"error: {flag} must end in {' or '.join(suffixes)} (got {str(path)!r})")
    if p.is_dir():
        raise OutputError(f"error: {flag} {str(path)!r} is a folder; give a file name ending in "
                          f"{' or '.join(suffixes)}")
    if p.exists() and not p.is_file():
        raise OutputError(f"error: {flag} {str(path)!r} exists and is not a regular file")
    problem = _folder_problem(p.resolve().parent)
    if problem:
        raise OutputError(f"error: {flag} {str(path)!r}: {problem}")
    return p


def check_folder(path: str | os.PathLike[str] | None, flag: str) -> Path | None:
    """``path`` as a :class:`Path` once it is a writable folder or one that can be made (its parent is a writable
    folder); None stays None; :class:`OutputError` (exit 2) naming ``flag`` otherwise."""
    if path is None:
        return None
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"error: {flag} must be a folder (got the file {str(path)!r})")
    problem = _folder_problem(p) if p.exists() else _folder_problem(p.resolve().parent)
    if problem:
        raise OutputError(f"error: {flag} {str(path)!r}: {problem}")
    return p


def make_folder(path: Path, flag: str) -> Path:
    """Create the folder ``path`` if it is missing; :class:`OutputError` (exit 1) when that fails."""
    try:
        path.mkdir(exist_ok=True)
    except OSError as err:
        raise OutputError(f"error: {flag} {str(path)!r}: cannot create the folder ({err.strerror or err})",
                          IO_FAILED) from None
    return path


def write(path: str | os.PathLike[str], content: bytes | Callable[[BinaryIO], object], flag: str) -> Path:
    """Write ``content`` (bytes, or a function writing into a binary file) to ``path``, complete or not at all.

    The data goes to a temporary file in the same folder, is flushed to disk, then renamed over
    ``path``; on any error the temporary file is removed and ``path`` is as it was. An ``OSError``
    becomes :class:`OutputError` with exit code 1 and one line naming ``flag`` and the path.
    """
    target = Path(path)
    real = target.resolve() if target.is_symlink() else target
    tmp = real.with_name(f".{real.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as fh:
            if isinstance(content, bytes):
                fh.write(content)
            else:
                content(fh)
            fh.flush()
            os.fsync(fh.fileno())
        if real.exists():
            os.chmod(tmp, stat.S_IMODE(real.stat().st_mode))
        os.replace(tmp, real)
    except OSError as err:
        _remove(tmp)
        kept = "the existing file is unchanged" if real.exists() else "nothing was written"
        raise OutputError(f"error: {flag} {str(path)!r}: cannot write ({err.strerror or err}); {kept}",
                          IO_FAILED) from None
    except BaseException:
        _remove(tmp)
        raise
    return target


def _remove(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        tmp.unlink()


def read_capped(path: str | os.PathLike[str], flag: str, max_bytes: int, what: str = "a settings file") -> bytes:
    """The bytes of the file ``path``, reading at most ``max_bytes + 1`` of them; :class:`OutputError` (exit 2)
    naming ``flag`` and the limit for ``what`` when the file is larger or cannot be read."""
    limit = format_size(max_bytes)
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as err:
        raise OutputError(f"error: {flag} cannot read {str(path)!r} ({err.strerror or err})") from None
    if len(data) > max_bytes:
        raise OutputError(f"error: {flag} {str(path)!r} is larger than {limit}, the limit for {what}")
    return data
