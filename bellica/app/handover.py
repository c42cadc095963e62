"""A re-entrant lock handed to its waiters in the order they asked: the app's one lock on its campaign.

Every request of ``bellica serve`` takes the campaign's lock in turn
(:class:`bellica.app.server.CampaignAccess`).  With :class:`threading.RLock` a
thread that asks at the moment the lock is released can take it ahead of the
threads already waiting, so under 50 concurrent clients some requests waited
many turns: p95 came to 1.6-1.8 times the mean latency (issue 23 item 9,
``benchmarks/bench_app.py``).  Handed over in turn, every request waits for
the ones before it and no more, and p95 stays near the mean.
"""

from __future__ import annotations

import threading
from collections import deque

__all__ = ["HandOverLock"]


class HandOverLock:
    """A re-entrant lock (``acquire``/``release``/``with``, like :class:`threading.RLock`) that a
    releasing owner hands straight to the longest-waiting thread, so no later thread overtakes it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._owner: int | None = None
        self._count = 0
        #: (thread id, a held lock it waits on), oldest first; the owner hands over by releasing it.
        self._waiters: deque[tuple[int, threading.Lock]] = deque()

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        me = threading.get_ident()
        with self._guard:
            if self._owner == me:
                self._count += 1
                return True
            if self._owner is None:  # free, so nobody waits: a release hands the lock over directly
                self._owner, self._count = me, 1
                return True
            if not blocking:
                return False
            gate = threading.Lock()
            gate.acquire()
            entry = (me, gate)
            self._waiters.append(entry)
        if gate.acquire(timeout=-1 if timeout is None or timeout < 0 else timeout):
            return True  # handed over: the releaser made this thread the owner
        with self._guard:
            try:
                self._waiters.remove(entry)  # gave up still waiting
            except ValueError:
                return True  # handed over just as the wait ran out: this thread owns it
        return False

    def release(self) -> None:
        with self._guard:
            if self._owner != threading.get_ident():
                raise RuntimeError("cannot release a lock this thread does not hold")
            self._count -= 1
            if self._count:
                return
            if self._waiters:
                owner, gate = self._waiters.popleft()
                self._owner, self._count = owner, 1
                gate.release()
            else:
                self._owner = None

    def __enter__(self) -> bool:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
