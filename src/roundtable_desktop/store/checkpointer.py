"""Folds a session store's write-ahead log back into its file, on a thread of its own.

SQLite's automatic checkpoint runs inside the commit that crosses its threshold (1000
pages): that one commit copies the whole log into the database file and waits for two
fsyncs, 5 to 50 ms on the thread that records the session, every few turns. The store's
writing connection moves that threshold far out (store/connection.py, BACKSTOP_PAGES)
and `WalCheckpointer` runs SQLite's PASSIVE checkpoint instead, on its own connection,
after every few commits and once the writer has been quiet a moment. A PASSIVE
checkpoint never waits for the writer or a reader, and SQLite lets go of the GIL while it
runs, so a turn never waits for one. The log starts over from its beginning when the
writer begins while all of it is folded in: after any pause (a model call, the user).
A writer that never pauses outruns the thread, and the backstop folds it in then.

A checkpoint that fails (a full disk, a reader holding an old snapshot) is logged and
tried again after the next commits: the rows are safe in the log meanwhile.
Must not write rows or hold a transaction open between checkpoints.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger(__name__)

# Commits between checkpoints: a roundtable turn commits three or four times and writes
# about 60 pages, so the log stays near 300 pages (1.2 MB) instead of SQLite's 1000.
EVERY_COMMITS = 16
# After the last commit, how long the writer must be quiet before the rest is folded in.
QUIET_S = 0.5


class WalCheckpointer:
    """A daemon thread that checkpoints the store at `path` as the writer commits."""

    def __init__(self, path: Path, *, every: int = EVERY_COMMITS, quiet_s: float = QUIET_S,
                 busy_timeout_s: float = 5.0) -> None:
        self.path = path
        self.every = every
        self.quiet_s = quiet_s
        self._busy_timeout_s = busy_timeout_s
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._pending = 0  # commits not yet folded in
        self._closing = False
        self.checkpoints = 0  # completed runs, for tests and diagnostics
        self._thread = threading.Thread(target=self._run, name="store-checkpointer",
                                        daemon=True)
        self._thread.start()

    def committed(self) -> None:
        """Called by the writer after each commit; cheap, never blocks on I/O."""
        with self._lock:
            if not self._thread.is_alive():
                return  # stopped (closed, or its file unreadable): the backstop folds in
            self._pending += 1
            self._idle.clear()
            due = self._pending >= self.every
        if due:
            self._wake.set()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every commit so far is folded in (or the thread has stopped)."""
        self._wake.set()
        return self._idle.wait(timeout) or not self._thread.is_alive()

    def close(self) -> None:
        """Fold in what is left and stop the thread."""
        with self._lock:
            self._closing = True
        self._wake.set()
        self._thread.join()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(str(self.path), isolation_level=None,
                                 timeout=self._busy_timeout_s, check_same_thread=True)
            while True:
                # Woken early by a due count or by close; otherwise after a quiet moment.
                self._wake.wait(self.quiet_s)
                self._wake.clear()
                with self._lock:
                    pending, closing = self._pending, self._closing
                    self._pending = 0
                if pending:
                    self._checkpoint(db)
                with self._lock:
                    if not self._pending:
                        self._idle.set()
                if closing:
                    return
        except sqlite3.Error:
            log.warning("the session store's checkpoints stopped", exc_info=True)
        finally:
            if db is not None:
                db.close()
            with self._lock:
                self._idle.set()

    def _checkpoint(self, db: sqlite3.Connection) -> None:
        try:
            # fetchall, not fetchone: a statement left unfinished would hold a read
            # snapshot, and the writer could then never start the log over.
            busy = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0][0]
        except sqlite3.Error:
            log.warning("could not fold the session store's log into %s", self.path,
                        exc_info=True)
            return
        if not busy:
            self.checkpoints += 1
