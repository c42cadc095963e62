"""One game of a study on a campaign file as its row (:func:`game_row`), for the rulesets whose
games are won by a score: who leads and by how much, each side's score and its series.

The study's summary and report (:mod:`engine.core.simulate`, ``campaign_study``) read the keys
named here: ``seats``, ``winner``, ``how``, ``margin``, ``<score>_<side>`` and the series.
"""

from __future__ import annotations

from typing import Mapping, Sequence

__all__ = ["game_row"]


def game_row(sides: Sequence[str], seats: Mapping[str, str], ranked: Sequence[tuple[str, int]], how: str,
             span: Mapping[str, int], tally: Mapping[str, int], *, score: str, series: str,
             by_round: Mapping[str, Sequence[int]]) -> dict:
    """The row of a game whose sides ``ranked`` ((side, score) pairs, best first) stand so at its end:
    the ``seats`` of ``sides``, the leader (``tie`` when the first two have the same score), ``how``
    it was won, the ``span`` keys (how long it lasted), ``margin`` (the leader's lead over the second;
    with one side, its score), the run's ``tally``, then each side's score as ``<score>_<side>`` (0
    for a side not ranked) and its scores after each round of the game, ``by_round``, as
    ``<series><side>``."""
    margin = ranked[0][1] - ranked[1][1] if len(ranked) > 1 else ranked[0][1]
    scores = dict(ranked)
    row = {"seats": ",".join(f"{s}={seats[s]}" for s in sides), "winner": ranked[0][0] if margin > 0 else "tie",
           "how": how, **span, "margin": margin, **tally}
    row.update({f"{score}_{s}": int(scores.get(s, 0)) for s in sides})
    row.update({f"{series}{s}": [*by_round[s]] for s in sides})
    return row
