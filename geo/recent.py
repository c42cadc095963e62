"""A small cache of the latest few values by key, shared by every thread of a process.

The app serves its pages from many threads; what they keep (the terrain of the maps drawn lately,
each viewer's player view and map clicks at a log head) is kept here, the oldest let go first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["Recent"]


class Recent:
    """The latest ``size`` values by key (the one read or written last is the newest)."""

    def __init__(self, size: int):
        self.size, self.values, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key):
        with self.lock:
            if key in self.values:
                self.values.move_to_end(key)
            return self.values.get(key)

    def put(self, key, value) -> None:
        with self.lock:
            self.values[key] = value
            self.values.move_to_end(key)
            while len(self.values) > self.size:
                self.values.popitem(last=False)
