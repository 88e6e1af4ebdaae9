"""One process at a time writes a session: an operating-system lock on a file per session.

A process that starts or continues a session takes its lock; another process asking for
it is refused with a message naming the holder (pid, host, since when). The lock is the
OS's own, taken through filelock (flock on POSIX, LockFileEx on Windows) on
`<store>.locks/<session id>.lock`, so a process that crashes or is killed releases it as
it dies: nothing stale is left to clean up, and a lock file left by a dead process is
simply taken over. The file holds who took the lock (JSON, after its first byte: the byte
Windows locks, which no other process may read), for the message. A released lock's file
is removed (and the folder, once empty); a process that opened the file just before it
was removed is not given the lock on it (filelock checks) and tries again on the new one.
Must not touch the database; read-only commands take no lock (they create no file).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import filelock

from roundtable_desktop.store.errors import SessionLocked, StoreError

# The holder's note starts after the byte a Windows lock covers (LockFileEx on byte 0 is
# mandatory: a refused process could not read it).
_NOTE_AT = 1
_NOTE_MAX = 4096
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

    def __init__(self, path: Path, lock: filelock.BaseFileLock) -> None:
        self.path = path
        self._lock: filelock.BaseFileLock | None = lock

    def release(self) -> None:
        lock, self._lock = self._lock, None
        if lock is None:
            return
        # Remove the file while still holding it: whoever opens the path next gets a new
        # file, and whoever already opened this one is refused it and tries again.
        # Windows cannot remove an open file: filelock removes it after the release.
        with contextlib.suppress(OSError):
            self.path.unlink()
        with contextlib.suppress(OSError):
            lock.release(force=True)
        # The folder stays while another session's lock is in it.
        with contextlib.suppress(OSError):
            self.path.parent.rmdir()


def lock_folder(store_path: Path) -> Path:
    return store_path.with_name(store_path.name + ".locks")


def lock_session(store_path: Path, session_id: str, *, short_id: str = "") -> SessionLock:
    """Take the lock of one session of the store at `store_path`, or raise SessionLocked."""
    folder = lock_folder(store_path)
    path = folder / f"{session_id}.lock"
    name = short_id or session_id
    for _ in range(_ATTEMPTS):
        # Not thread-local: the window may release a lock from another thread than took it.
        lock = filelock.FileLock(path, timeout=0, thread_local=False,
                                 on_acquired=_write_holder)
        try:
            folder.mkdir(exist_ok=True)
            lock.acquire()
        except filelock.Timeout:
            holder = _read_holder(path)
            if holder is None and not path.exists():
                continue  # released and removed meanwhile: lock the new file instead
            raise SessionLocked(_refusal(name, holder)) from None
        except FileNotFoundError:
            continue  # the folder was removed by a holder releasing its lock: again
        except OSError as exc:
            raise StoreError(
                f"Cannot lock the session {name} ({exc.strerror}: {folder}). Check that the "
                "folder of the session store is writable."
            ) from None
        return SessionLock(path, lock)
    raise StoreError(f"Could not lock the session {name}: its lock file in {folder} keeps "
                     "changing. Try again.")


def _write_holder(fd: int) -> None:
    """Write who holds the lock into the locked file (filelock's `on_acquired`)."""
    note = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()})
    try:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, b"\n" * _NOTE_AT + note.encode("utf-8"))
    except OSError:
        pass  # the note only names us in a refusal; the lock holds without it


def _read_holder(path: Path) -> LockHolder | None:
    try:
        with path.open("rb") as file:
            file.seek(_NOTE_AT)
            note = json.loads(file.read(_NOTE_MAX).decode("utf-8"))
        return LockHolder(pid=int(note["pid"]), host=str(note["host"])[:100],
                          since=float(note["since"]))
    except (OSError, ValueError, KeyError, TypeError, OverflowError):
        return None  # being written right now, removed, or not ours to read


def _refusal(short_id: str, holder: LockHolder | None) -> str:
    who = f" ({holder.describe()})" if holder is not None else ""
    return (f"The session {short_id} is open in another roundtable process{who}. Close it "
            "there, or wait for that run to end, then try again.")
