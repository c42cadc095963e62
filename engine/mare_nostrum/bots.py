"""Mare Nostrum's engine players (:mod:`bellica.engine.core.players`): a nation's seat played by a bot.

A bot acts when its nation is the acting one (the ``actions`` phase): one action a step, as a
person types it (``build``, ``attack``, ``peace``, ``ally``, ``grain``), and ``done`` when it has
nothing more it wants.  The umpire's steps stay the umpire's: the lottery, beginning and ending a
turn, a battle's result played on the table.

* **random**: :class:`~bellica.engine.core.players.RandomSteps` (one open step, values drawn
  among those offered; a draw the step refuses is drawn again).
* **heuristic** (the ``diplomat`` policy), ``aggressor``, ``builder``: the named policies ``bellica
  simulate`` plays (:mod:`.policies`), asked the same question (the nation's next action, or
  none) and answered with the step a person would type, the policy's rule as the reason.

What a policy reads.  The campaign is played in the open (:data:`~.player_view.HIDDEN_IN_MARE_NOSTRUM`:
the umpire posts the whole map after every turn; only lottery numbers not yet drawn are
unknown), so a nation's player view hides nothing (``PlayerView.hidden`` is empty) and the seat's
aid (:func:`bot_aid`) holds the published position as the policies take it: the board, the
rules and the turn's state, which holds no undrawn number (entered lottery draws for later turns
are in their own table, never in it).  A bot refuses to read that state if its view ever hides
something (:meth:`PolicyBot.decide`): then the state would tell it more than its view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bellica.engine.core.players import Answer, RandomSteps, Ranked, Seat

from .policies import Aggressor, Builder, Diplomat

__all__ = ["BOTS", "PolicyBot", "bot_aid"]


@dataclass(frozen=True)
class Aid:
    """The published position: the scenario (the board), the rules and the turn's state."""

    scenario: Any
    rules: Any
    state: Any


def bot_aid(campaign, viewer: str) -> Aid | None:
    from .storage import state_of

    if not campaign.has_state():
        return None
    return Aid(campaign.board, campaign.rules, state_of(campaign.board, campaign.snapshot()))


#: Each bot kind's policy, and its rule in words (the reason of every choice it makes).
POLICY_KINDS = {"heuristic": Diplomat, "diplomat": Diplomat, "aggressor": Aggressor, "builder": Builder}
_RULES = {
    "build": "the cheapest work first (fortification, then suburbs, then a temple), in the provinces' order",
    "attack": "the weakest target in reach: a province nobody holds first, then the smallest nation's, the fewest "
              "fortifications",
    "peace": "that nation can reach one of ours by land: bind the largest such, with two actions to spare",
    "ally": "the invaders threaten the smallest enemy nation's province",
    "grain": "stability is one above the penalty: grain first",
}


def _answer(action: tuple, policy: str) -> Answer:
    kind = action[0]
    why = f"({policy}: {_RULES['ally' if kind == 'ally' else kind]})"
    if kind == "build":
        _, work, province, sea = action
        given = {"work": work, "province": province, **({"sea": sea} if sea else {})}
        return Answer("build", given, (f"builds a {work} in {province}{' on ' + sea if sea else ''} {why}",))
    if kind == "attack":
        _, base, target = action
        return Answer("attack", {"base": base, "into": target}, (f"attacks {target} from {base} {why}",))
    if kind == "peace":
        return Answer("peace", {"partner": action[1]}, (f"imposes peace on {action[1]} {why}",))
    if kind == "ally":
        return Answer("ally", {"against": action[1]}, (f"allies with the invaders against {action[1]} {why}",))
    return Answer("grain", {}, (f"distributes grain {why}",))


class PolicyBot(Ranked):
    """A nation's seat played by a named policy of :mod:`.policies` (module doc): the policy's
    action, or ``done`` when it has none (or the step refuses the one it chose)."""

    def __init__(self, kind: str = "heuristic") -> None:
        super().__init__()
        self.kind = kind

    def candidates(self, seat: Seat) -> list[list[Answer]]:
        aid: Aid | None = seat.aid
        status = seat.view.status
        if aid is None or seat.view.hidden or status.get("acting") != seat.faction or not seat.action("done"):
            return []
        nation = seat.faction
        policy = POLICY_KINDS[self.kind]()
        used = next((int(n["used"]) for n in status.get("nations", ()) if n["nation"] == nation), 0)
        action = policy.choose(aid.scenario, aid.state, aid.rules, nation, used)
        done = [Answer("done", {}, (f"finishes its actions: {policy.name} wants nothing more this turn",))]
        if action is None or not seat.action(_answer(action, policy.name).action):
            return [done]
        refused = [Answer("done", {}, (f"finishes its actions: the step refused {policy.name}'s choice "
                                       f"({_answer(action, policy.name).action})",))]
        return [[_answer(action, policy.name)], refused]


BOTS = {"random": RandomSteps, **{kind: (lambda k=kind: PolicyBot(k)) for kind in POLICY_KINDS}}
