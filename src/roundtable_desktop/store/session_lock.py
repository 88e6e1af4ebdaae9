"""One process at a time writes a session: an operating-system lock on a file per session.

A process that starts or continues a session takes its lock; another process asking for
it is refused with a message naming the holder (pid, host, since when). The lock is the
OS's own (flock on POSIX, msvcrt.locking on Windows) on `<store>.locks/<session id>`, so
a process that crashes or is killed releases it as it dies: nothing stale is left to
clean up, and a lock file left by a dead process is simply taken over. The file holds
who took the lock (JSON), for the message. A released lock's file is removed (and the
folder, once empty); a process that opened the file just before it was removed notices
and tries again on the new one.
Must not touch the database; read-only commands take no lock (they create no file).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from roundtable_desktop.store.errors import SessionLocked, StoreError

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    # Windows locks are mandatory: lock a byte far past the holder's note, so the note
    # stays readable by the process that is refused.
    _LOCK_AT = 1 << 20

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _LOCK_AT, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _LOCK_AT, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


# Tries before giving up when the file keeps being replaced under us (a holder releasing).
_ATTEMPTS = 20


@dataclass(frozen=True)
class LockHolder:
    pid: int
    host: str
    since: float

    def describe(self) -> str:
        when = datetime.fromtimestamp(self.since).strftime("%Y-%m-%d %H:%M:%S")
        return f"pid {self.pid} on host {self.host}, since {when}"


class SessionLock:
    """A held session lock; `release()` gives it up (closing the process does too)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        # Remove the file while still holding it: whoever opens the path next gets a new
        # file, and whoever already opened this one sees it was removed and tries again.
        # Windows cannot remove an open file: the next holder reuses it.
        with contextlib.suppress(OSError):
            self.path.unlink()
        with contextlib.suppress(OSError):
            _unlock(fd)
        os.close(fd)
        # The folder stays while another session's lock is in it.
        with contextlib.suppress(OSError):
            self.path.parent.rmdir()


def lock_folder(store_path: Path) -> Path:
    return store_path.with_name(store_path.name + ".locks")


def lock_session(store_path: Path, session_id: str, *, short_id: str = "") -> SessionLock:
    """Take the lock of one session of the store at `store_path`, or raise SessionLocked."""
    folder = lock_folder(store_path)
    path = folder / f"{session_id}.lock"
    for _ in range(_ATTEMPTS):
        try:
            folder.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:
            continue  # the folder was removed by a holder releasing its lock: again
        except OSError as exc:
            raise StoreError(
                f"Cannot lock the session {short_id or session_id} ({exc.strerror}: "
                f"{folder}). Check that the folder of the session store is writable."
            ) from None
        if not _try_lock(fd):
            holder = _read_holder(fd)
            os.close(fd)
            raise SessionLocked(_refusal(short_id or session_id, holder))
        if not _is_current(fd, path):
            os.close(fd)  # released and removed meanwhile: lock the new file instead
            continue
        _write_holder(fd, LockHolder(os.getpid(), socket.gethostname(), time.time()))
        return SessionLock(path, fd)
    raise StoreError(f"Could not lock the session {short_id or session_id}: its lock file "
                     f"in {folder} keeps changing. Try again.")


def _is_current(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (mine.st_dev, mine.st_ino)


def _write_holder(fd: int, holder: LockHolder) -> None:
    note = json.dumps({"pid": holder.pid, "host": holder.host, "since": holder.since})
    try:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, note.encode("utf-8"))
    except OSError:
        pass  # the note only names us in a refusal; the lock holds without it


def _read_holder(fd: int) -> LockHolder | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        note = json.loads(os.read(fd, 4096).decode("utf-8"))
        return LockHolder(pid=int(note["pid"]), host=str(note["host"])[:100],
                          since=float(note["since"]))
    except (OSError, ValueError, KeyError, TypeError, OverflowError):
        return None  # being written right now, or not ours to read


def _refusal(short_id: str, holder: LockHolder | None) -> str:
    who = f" ({holder.describe()})" if holder is not None else ""
    return (f"The session {short_id} is open in another roundtable process{who}. Close it "
            "there, or wait for that run to end, then try again.")
