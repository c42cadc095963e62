"""Rise of Rome's engine players (:mod:`bellica.engine.core.players`): Rome's seat played by a bot.

The seed is solo: Rome's player takes every decision and the engine plays the other powers.  A bot
in Rome's seat answers the decision the turn waits for, with the step a person types:

* **random**: :class:`~bellica.engine.core.players.RandomSteps`, one open step drawn with values
  drawn among those offered; it never enters dice rolled at the table (``roll``), nor a table
  battle's result (``result``: a battle is the table's, as for a person, or the generator's when
  the campaign's rules generate Rome's battles), nor takes a battle to the table (``table``).
* **heuristic** (also ``prudent``), ``conqueror``, ``builder``: the named policies ``bellica
  simulate`` plays (:mod:`.policies`), asked the same questions on the state the seat's player
  view shows (:func:`public_state`), never the campaign's: ``attack`` (the target, or none),
  ``spend`` (attack, defence, civic), ``province`` (the province taken, or the seed's rule), and
  ``next`` when the engine is to run.  The policy's rule is given as the reason of each choice.

The view holds the whole board (:data:`~.player_view.HIDDEN_FROM_ROME`: nothing is hidden but dice
not yet rolled): who holds each province, the external armies, every power's revenue this turn,
Rome's free revenue and the turn's attacks.  That is what the policies read.  The board and the
rules (the printed map and rule book, public) are the seat's aid (:func:`bot_aid`).
"""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.players import Answer, BoardAid, RandomSteps, Seat, board_aid

from .attacks import Attack, AttackPlan
from .model import ExternalArmy, TurnState
from .policies import Builder, Conqueror, Prudent, weakest_neighbour

__all__ = ["BOTS", "PolicyBot", "RandomRome", "bot_aid", "public_state"]


#: The seat's aid: the board and the rules (engine.core.players.board_aid).
Aid = BoardAid
bot_aid = board_aid


def public_state(view, scenario) -> tuple[TurnState, AttackPlan]:
    """The turn's state as the player view shows it (the parts the policies read) and its attacks."""
    status: Mapping = view.status
    layer = next((l for l in view.layers if l.name == "provinces"), None)
    control = {f.properties["province"]: f.properties["holder"] for f in (layer.features if layer else ())}
    externals = {e["power"]: ExternalArmy(e["power"], e["province"], int(e["points"]), 0, e.get("paymaster"))
                 for e in status.get("externals", ())}
    revenue = {p["power"]: int(p["revenue"]) for p in status.get("powers", ()) if p.get("revenue") is not None}
    player = scenario.player
    civic_only = {}
    if status.get("rome_revenue") is not None and status.get("rome_free") is not None:
        civic_only[player] = int(status["rome_revenue"]) - int(status["rome_free"])
    state = TurnState(turn=int(status.get("turn") or 0), control=control, externals=externals, revenue=revenue,
                      civic_only=civic_only)
    plan = AttackPlan(tuple(Attack(a["attacker"], a["target"], a.get("roll"), bool(a.get("external")), bool(a.get("player")))
                            for a in status.get("plan", ())))
    return state, plan


#: The policy of each named bot kind, made with the campaign's rules (Prudent reads its numbers).
POLICY_KINDS = {"heuristic": lambda rules: Prudent(name="prudent", rules=rules),
                "prudent": lambda rules: Prudent(rules=rules),
                "conqueror": lambda rules: Conqueror(),
                "builder": lambda rules: Builder()}

_RULES = {"prudent": "it defends first and attacks with one 20-point step only when not attacked and able to pay",
          "conqueror": "it always attacks the weakest neighbour",
          "builder": "it always builds"}


class PolicyBot:
    """Rome's seat played by a named policy of :mod:`.policies` (module doc)."""

    def __init__(self, kind: str = "heuristic") -> None:
        self.kind = kind

    def decide(self, seat: Seat) -> list[Answer]:
        aid: Aid = seat.aid
        status = seat.view.status
        step = status.get("next_step")
        if aid is None or seat.faction != aid.scenario.player or not step:
            return []
        if step not in ("attack", "spend", "province", "result"):  # an engine phase: `next` runs it
            step = "next"
        if not seat.action(step):
            return []
        scenario = aid.scenario
        policy = POLICY_KINDS[self.kind](aid.rules)
        if isinstance(policy, Prudent):
            policy = Prudent(name=policy.name, rules=aid.rules, _homes=scenario.homes(scenario.player))
        why = _RULES.get(policy.name, policy.name)
        if step == "next":
            return [Answer("next", {}, ("the engine is to run the turn until Rome's next decision",))]
        state, plan = public_state(seat.view, scenario)
        if step == "attack":
            return [_attack(policy, scenario, state, plan, why)]
        if step == "spend":
            return [_spend(policy, scenario, state, plan, int(status.get("rome_free") or 0), why)]
        if step == "province":
            return [_province(policy, state, status.get("pending_province") or {}, why)]
        return []  # a table battle's result: the table's (or the umpire's), not a policy's


def _attack(policy, scenario, state: TurnState, plan: AttackPlan, why: str) -> Answer:
    target = policy.attack(scenario, state, plan)
    if target is None:
        on_rome = plan.attacks_on(scenario.player)
        return Answer("attack", {"none": "on"}, (f"no attack this turn ({policy.name}: {why}; Rome is attacked "
                                                 f"{on_rome} time(s))",))
    weakest = weakest_neighbour(scenario, state)
    what = "the weakest neighbour (least revenue this turn)" if target == weakest else "its target"
    return Answer("attack", {"target": target}, (f"attacks {target}, {what} ({policy.name}: {why})",))


def _spend(policy, scenario, state: TurnState, plan: AttackPlan, free: int, why: str) -> Answer:
    s = policy.spend(scenario, state, plan, free)
    lift = " (enough to lift each defence to the next 20-point step)" if isinstance(policy, Prudent) and s.defence else ""
    reason = (f"spends {free} free revenue: {s.attack} on Attack, {s.defence} on Defense{lift}, {s.civic} on Civic "
              f"Improvement ({policy.name}: {why})")
    return Answer("spend", {"attack": str(s.attack), "defence": str(s.defence), "civic": str(s.civic)}, (reason,))


def _province(policy, state: TurnState, pending: Mapping, why: str) -> Answer:
    options = tuple(pending.get("options") or ())
    pick = policy.province(state, options, str(pending.get("why") or ""))
    if pick is None:
        return Answer("province", {"by_rule": "on"}, (f"leaves the province to the seed's rule among {', '.join(options)} "
                                                      f"(no lost Roman home among them; {policy.name})",))
    return Answer("province", {"province": pick}, (f"takes {pick} back: a lost Roman home ({policy.name})",))


class RandomRome(RandomSteps):
    """:class:`RandomSteps` in Rome's seat; dice at the table and table results are not its to give."""

    skip = frozenset({"roll", "result", "table"})


BOTS = {"random": RandomRome, **{kind: (lambda k=kind: PolicyBot(k)) for kind in POLICY_KINDS}}
