"""Where a Rise of Rome campaign stands: the step that comes next and, in words, what to do
(:func:`next_decision`), and what the player sees (:class:`TurnView`, :func:`turn_view`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from bellica.engine.core.tables import Snapshot
from bellica.engine.rise_of_rome.attacks import Attack, candidate_targets
from bellica.engine.rise_of_rome.civic import VERDICTS
from bellica.engine.rise_of_rome.model import Scenario, TurnState
from bellica.engine.rise_of_rome.storage import plan_of, state_of

__all__ = ["DECISIONS", "ENGINE_STEPS", "OVER", "TurnView", "campaign_over", "next_decision", "position",
           "rome_free_revenue", "turn_view"]

#: Where Rome decides: (phase, stage) -> the step it gives.
DECISIONS = {("attacks", "rome"): "attack", ("spending", None): "spend", ("battles", "result"): "result",
             ("battles", "province"): "province"}
#: Where the engine runs: (phase, stage) -> its step.
ENGINE_STEPS = {("revenue", None): "revenue", ("rulers", None): "rulers", ("attacks", "engine"): "attacks",
                ("battles", "fight"): "battles", ("end", None): "end"}
OVER = "over"


def position(snap: Snapshot) -> tuple[str, str | None]:
    """The campaign's (phase, stage)."""
    return snap.campaign("phase"), snap.campaign("stage")


def next_decision(c, snap: Snapshot) -> tuple[str | None, str]:
    """(the step that comes next, in words what to do): an engine step, Rome's decision, or None at the end."""
    phase, stage = position(snap)
    if phase == OVER:
        v = snap.tables["ror_game"].get(("verdict",))
        return None, f"the campaign is over: {VERDICTS.get(v[1], v[1]) if v else 'ended'}"
    step = ENGINE_STEPS.get((phase, stage)) or DECISIONS.get((phase, stage))
    words = {
        "revenue": "run the turn with `bellica turn next CAMPAIGN`",
        "rulers": "run the turn with `bellica turn next CAMPAIGN`",
        "attacks": "run the turn with `bellica turn next CAMPAIGN`",
        "battles": "fight the battles with `bellica turn next CAMPAIGN`",
        "end": "end the turn with `bellica turn next CAMPAIGN`",
        "attack": "give Rome's attack: `bellica turn attack CAMPAIGN --target POWER` (or --none)",
        "spend": "give Rome's spending: `bellica turn spend CAMPAIGN --attack N --defence N --civic N`",
    }
    if step == "province":
        q = snap.note(int(snap.campaign("round")), "pending_province") or {}
        return step, (f"choose the province Rome takes (battle {q.get('battle')}, {q.get('why')}): `bellica turn province "
                      f"CAMPAIGN --choose PROVINCE` (one of {', '.join(q.get('options') or ())}) or --by-rule")
    if step == "result":
        pending = snap.note(int(snap.campaign("round")), "pending_battle") or {}
        return step, (f"enter the result of battle {pending.get('index')}: `bellica turn result CAMPAIGN "
                      f"{pending.get('index')} --winner attacker|defender --margin major|minor`")
    if step is None:
        return None, f"the campaign stands at phase {phase} stage {stage}, which the rules do not know"
    return step, words[step]


def rome_free_revenue(scenario: Scenario, state: TurnState) -> int:
    """The revenue Rome may spend freely this turn (not the part only Civic Improvement may take)."""
    return state.revenue.get(scenario.player, 0) - state.civic_only.get(scenario.player, 0)


@dataclass(frozen=True)
class TurnView:
    """What the player sees: where the turn stands, the powers, Rome's options."""

    turn: int
    turns: int
    phase: str
    stage: str | None
    next_step: str | None
    next_words: str
    civic_total: int
    civic_spent: int
    civic_penalty: int
    rome_revenue: int | None
    rome_free: int | None
    targets: tuple[str, ...]
    plan: tuple[Attack, ...]
    pending_battle: dict | None
    pending_province: dict | None
    powers: tuple[dict, ...]
    externals: tuple[dict, ...]
    verdict: str | None

    def lines(self) -> list[str]:
        out = [f"turn {self.turn} of {self.turns}, phase {self.phase}" + (f" ({self.stage})" if self.stage else ""),
               f"Rome's Civic Development: {self.civic_total} ({self.civic_spent} spent - {self.civic_penalty} lost)"]
        if self.rome_revenue is not None:
            out.append(f"Rome's revenue this turn: {self.rome_revenue} ({self.rome_free} may be spent freely)")
        for p in self.powers:
            rev = "" if p["revenue"] is None else f", revenue {p['revenue']}"
            ruler = f", ruler A{p['aggressor']}/P{p['protector']}/B{p['builder']}" if p.get("aggressor") is not None else ""
            out.append(f"  {p['power']}: {p['status']}, {p['provinces']} provinces{rev}{ruler}")
        for e in self.externals:
            out.append(f"  the {e['power']} army: {e['points']} points in {e['province']}")
        if self.plan:
            # numbered as their battles are (`table BATTLE` takes one to the table)
            out.append("attacks: " + ", ".join(f"{n}. {a.attacker} on {a.target}" + (f" (roll {a.roll})" if a.roll is not None else "")
                                               for n, a in enumerate(self.plan, start=1)))
        if self.next_step == "attack":
            out.append("Rome may attack: " + (", ".join(self.targets) or "nobody (no Active neighbour)"))
        if self.pending_battle:
            b = self.pending_battle
            out.append(f"battle {b['index']} (on the table): {b['attacker']} ({b['attack_points']} pts, {b['attacker_cards']} cards, "
                       f"up to {b['attacker_generals']} Generals) attack {b['province']}, defended by {b['army']} "
                       f"({b['defence_points']} pts, {b['defender_cards']} cards, up to {b['defender_generals']} Generals)")
        if self.pending_province:
            q = self.pending_province
            out.append(f"battle {q['battle']}: Rome takes a province of {q['power']} ({q['why']}): "
                       f"choose one of {', '.join(q['options'])}")
        if self.verdict:
            out.append(f"verdict: {self.verdict}: {VERDICTS.get(self.verdict, '')}")
        out.append(f"next: {self.next_words}")
        return out

    def as_json(self) -> dict:
        d = asdict(self)
        d["plan"] = [asdict(a) for a in self.plan]
        return d


def turn_view(c) -> TurnView:
    snap = c.snapshot()
    scenario, rules = c.board, c.rules
    state = state_of(scenario, snap)
    rnd = int(snap.campaign("round"))
    phase, stage = position(snap)
    step, words = next_decision(c, snap)
    plan = plan_of(snap.note(rnd, "plan")).attacks if phase in ("attacks", "spending", "battles") else ()
    in_turn = phase not in ("revenue", OVER) and state.turn == rnd
    powers = []
    for row in sorted(snap.tables["ror_powers_state"].values(), key=lambda r: scenario.nations.index(r[0])):
        ruler = state.rulers.get(row[0])
        powers.append({"power": row[0], "status": row[1], "suzerain": row[2], "provinces": row[3],
                       "revenue": row[4] if in_turn else None,
                       "aggressor": ruler.aggressor if ruler else None, "protector": ruler.protector if ruler else None,
                       "builder": ruler.builder if ruler else None})
    v = snap.tables["ror_game"].get(("verdict",))
    player = scenario.player
    return TurnView(
        turn=rnd, turns=rules.game.turns, phase=phase, stage=stage, next_step=step, next_words=words,
        civic_total=state.civic_total, civic_spent=state.civic_spent, civic_penalty=state.civic_penalty,
        rome_revenue=state.revenue.get(player) if in_turn else None,
        rome_free=rome_free_revenue(scenario, state) if in_turn else None,
        targets=candidate_targets(scenario, state, player) if step == "attack" else (),
        plan=plan, pending_battle=snap.note(rnd, "pending_battle") if step == "result" else None,
        pending_province=snap.note(rnd, "pending_province") if step == "province" else None,
        powers=tuple(powers),
        externals=tuple({"power": e.power, "province": e.province, "points": e.points, "paymaster": e.paymaster}
                        for e in state.externals.values()),
        verdict=v[1] if v else None)


def campaign_over(c) -> bool:
    return c.snapshot().campaign("phase") == OVER
