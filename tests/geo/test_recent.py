"""geo.recent.Recent: the latest few values by key, the one read or written last kept longest."""

from __future__ import annotations

import threading

from bellica.geo.recent import Recent


def test_the_oldest_value_goes_first_and_a_read_makes_a_value_new():
    kept = Recent(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "a" is now the newest
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (1, None, 3)
    kept.put("a", 4)  # written again: the newest, with its new value
    kept.put("d", 5)
    assert (kept.get("a"), kept.get("c"), kept.get("d")) == (4, None, 5)
    assert kept.get("missing") is None


def test_threads_keep_it_within_its_size():
    kept = Recent(8)

    def write(base: int) -> None:
        for i in range(500):
            kept.put((base, i), i)
            kept.get((base, i - 1))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(kept.values) == 8
