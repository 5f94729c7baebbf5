"""Uploaded files, read without trusting them: one size limit, one way to write sizes, compressed content inflated
under a cap.

A zip's headers state each member's size and nothing makes them true: a member whose headers say 200 bytes may
inflate to gigabytes. :func:`read_member` streams a member in chunks, counts the bytes it actually inflates and stops
at the cap; a damaged, encrypted or oddly compressed member, and a file that is not a zip at all, is one
:class:`UploadError` naming the file and the member. A MATLAB v5 file's compressed variables are the same risk for
its parser: :func:`mat_inflated_size` inflates them in chunks, keeping nothing, and stops at a cap before the parser
sees the file.

Sizes are decimal (1 MB = 1,000,000 bytes), as the browser's uploader counts them on every system but Windows, so
the limit the app states, the one the uploader enforces (``server.maxUploadSize`` and ``max_upload_size=`` are in
MB) and the one the command line applies are the same number of bytes.
"""

from __future__ import annotations

import copy
import io
import struct
import zipfile
import zlib
from typing import BinaryIO

from .settings import SettingsError, shorten

MB = 1_000_000
MAX_UPLOAD_MB = 64
"""The largest file a person may upload or give the command line (``.streamlit/config.toml`` says the same)."""
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * MB
MAX_MEMBERS = 10_000
"""The most members a zip may list."""
CHUNK_BYTES = 1 << 16
"""How much is inflated at a time: the memory a lying member can take beyond what it is allowed."""
_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}
MAX_MAT_INFLATED_BYTES = 8 * MAX_UPLOAD_BYTES
"""The most a MATLAB file's compressed variables may inflate to, in all: eight times the largest upload (NASA's
battery files inflate about 5.4 times, so the largest real one fits)."""
_MAT_HEADER = 128
_MI_COMPRESSED = 15


class UploadError(SettingsError):
    """A file that cannot be read as it is: the message is one sentence naming the file (and member) and what is
    wrong; ``field`` is the setting it was given for (``file``, ``data``)."""

    def __init__(self, field: str, message: str) -> None:
        ValueError.__init__(self, message)
        self.field, self.allowed, self.value = field, message, None


def format_size(n_bytes: int) -> str:
    """A size in words, one way everywhere: ``64 MB``, ``1.5 MB``, ``12.3 kB``, ``200 bytes`` (decimal units; a size
    that would round to a whole number of MB or kB is given in bytes, so it never reads as equal to a limit)."""
    for unit, size in (("MB", MB), ("kB", 1000)):
        if n_bytes >= size:
            if n_bytes % size == 0:
                return f"{n_bytes // size:,} {unit}"
            text = f"{n_bytes / size:,.1f}"
            return f"{n_bytes:,} bytes" if text.endswith(".0") else f"{text} {unit}"
    return f"{n_bytes:,} byte{'' if n_bytes == 1 else 's'}"


def too_big(field: str, name: str, size: int, limit: int, what: str = "a file") -> UploadError:
    """The error for ``name`` of ``size`` bytes over ``limit``: both sizes written by :func:`format_size`."""
    return UploadError(field, f"{name} is {format_size(size)}; {what} may be at most {format_size(limit)}")


def open_zip(data: bytes, name: str, field: str = "file", max_members: int = MAX_MEMBERS) -> zipfile.ZipFile:
    """``data`` opened as a zip (nothing inflated yet), or an :class:`UploadError` for a file that is not a zip, is cut
    short or lists more than ``max_members`` members."""
    name = shorten(name)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError,
            struct.error) as err:
        why = "it is cut short or is not a zip" if "not a zip" in str(err) else shorten(str(err))
        raise UploadError(field, f"{name} cannot be read as a zip ({why}); upload the whole file as it was "
                                 "saved") from None
    if len(infos) > max_members:
        zf.close()
        raise UploadError(field, f"{name} lists {len(infos):,} members; a zip may hold at most {max_members:,}")
    return zf


def read_member(zf: zipfile.ZipFile, member: str, name: str, max_bytes: int, field: str = "file") -> bytes:
    """The bytes of ``member`` of the zip ``name``, inflated ``CHUNK_BYTES`` at a time and refused once more than
    ``max_bytes`` come out, whatever its headers say (they are not trusted). A missing, encrypted, damaged or oddly
    compressed member is an :class:`UploadError` naming the file and the member."""
    where = f"{shorten(name)}: member {shorten(member)}"
    try:
        info = zf.getinfo(member)
    except KeyError:
        raise UploadError(field, f"{shorten(name)} holds no {shorten(member)}") from None
    if info.flag_bits & 0x1:
        raise UploadError(field, f"{where} is encrypted; upload an unencrypted zip")
    if info.compress_type not in _METHODS:
        raise UploadError(field, f"{where} uses compression method {info.compress_type}; use deflate or stored")
    if info.file_size > max_bytes:
        raise UploadError(field, f"{where} is {format_size(info.file_size)}; it may be at most "
                                 f"{format_size(max_bytes)}")
    unbounded = copy.copy(info)
    unbounded.file_size = 1 << 62  # read to the member's real end (or past the cap), not to the size its headers state
    chunks, total = [], 0
    try:
        with zf.open(unbounded) as handle:
            while chunk := handle.read(CHUNK_BYTES):
                total += len(chunk)
                if total > max_bytes:
                    raise UploadError(field, f"{where} inflates to more than {format_size(max_bytes)}, the most it "
                                             "may hold (its headers understate its size)")
                chunks.append(chunk)
    except UploadError:
        raise
    except zipfile.BadZipFile as err:
        why = "CRC mismatch" if "CRC" in str(err) else "its headers disagree"
        raise UploadError(field, f"{where} is damaged ({why})") from None
    except zlib.error:
        raise UploadError(field, f"{where} is damaged (its compressed data does not inflate)") from None
    except EOFError:
        raise UploadError(field, f"{where} is damaged (cut short)") from None
    except RuntimeError:  # encrypted by a local header's flag alone
        raise UploadError(field, f"{where} is encrypted; upload an unencrypted zip") from None
    except NotImplementedError:
        raise UploadError(field, f"{where} uses a compression method this app cannot read; use deflate or "
                                 "stored") from None
    except (OSError, ValueError, struct.error) as err:
        raise UploadError(field, f"{where} is damaged ({shorten(str(err))})") from None
    if total != info.file_size:
        raise UploadError(field, f"{where} is damaged (its headers say {format_size(info.file_size)}, it holds "
                                 f"{format_size(total)})")
    return b"".join(chunks)


def mat_inflated_size(stream: BinaryIO, max_bytes: int) -> int | None:
    """The bytes the compressed variables of the MATLAB v5 file ``stream`` inflate to, counted ``CHUNK_BYTES`` at a
    time without keeping them; None once more than ``max_bytes`` come out (a file crafted to inflate without bound).

    Reads from the stream's position and puts it back. A file that is not MATLAB v5, or whose elements are damaged,
    is counted as far as it reads: its parser names what is wrong with it."""
    start, total = stream.tell(), 0
    try:
        head = stream.read(_MAT_HEADER)
        if len(head) < _MAT_HEADER or not head.startswith(b"MATLAB 5.0") or head[126:128] not in (b"IM", b"MI"):
            return 0
        order = "<" if head[126:128] == b"IM" else ">"
        while len(tag := stream.read(8)) == 8:
            kind, size = struct.unpack(order + "II", tag)
            if kind >> 16:  # a small element: its data sits inside the tag
                continue
            if kind != _MI_COMPRESSED:
                stream.seek(size + (-size % 8), io.SEEK_CUR)
                continue
            inflate, left = zlib.decompressobj(), size
            while left > 0 and (data := stream.read(min(CHUNK_BYTES, left))):
                left -= len(data)
                while data:
                    out = inflate.decompress(data, CHUNK_BYTES)
                    total += len(out)
                    if total > max_bytes:
                        return None
                    if not out and len(inflate.unconsumed_tail) == len(data):
                        break
                    data = inflate.unconsumed_tail
    except (zlib.error, OSError, ValueError):
        return total  # damaged: counted as far as it reads; its parser names what is wrong
    finally:
        stream.seek(start)
    return total
