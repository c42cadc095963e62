"""Where a Mare Nostrum campaign stands: which step its position allows (:func:`require`), what
comes next in words (:func:`next_decision`) and the umpire's and players' view
(:class:`TurnView`, :func:`turn_view`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from bellica.engine.core.machine import StepRefused, position_of, require_step
from bellica.engine.core.tables import Snapshot

from . import battles as battles_mod
from .model import Works, provinces_of
from .storage import state_of
from .victory import standings

__all__ = ["ACTION_STEPS", "OVER", "TurnView", "next_decision", "require", "standings_now", "turn_view"]

OVER = "over"
#: The steps a nation takes in its own turn (input ``nation`` must be the acting one).
ACTION_STEPS = ("build", "peace", "alliance", "grain", "attack", "amphibious", "naval", "destroy", "done")


def require(c, snap: Snapshot, name: str, nation: str | None = None) -> None:
    """Refuse step ``name`` (exit 3) unless the campaign's position allows it (and, for a
    nation's action, unless it is ``nation``'s turn to act)."""
    step = c.ruleset.step(name)
    pos = position_of(snap)
    words = lambda: next_decision(c, snap)[1]  # noqa: E731
    if name == "lottery":
        if pos.winner is not None or pos.phase == OVER:
            raise StepRefused(f"cannot {step.action}: the campaign is over")
        return
    own_turn = name == "artworks" and c.rules.options.artworks_until == "own_turn"
    if name == "artworks" and not own_turn and pos.phase == "battles" and pos.winner is None:
        return
    if nation is not None and (name in ACTION_STEPS or own_turn):
        row = snap.tables["mn_nations_state"].get((nation,))
        cols = c.ruleset.schema.tables["mn_nations_state"].column_names
        out = dict(zip(cols, row)) if row else {}
        if out.get("left_game"):  # a knocked-out nation is told so, not whose turn it is (issue 22)
            raise StepRefused(f"cannot {step.action}: {nation} left the game in turn {out.get('left_turn')} "
                              f"({out['left_game']}) and takes no more actions")
    require_step(step, pos, words)
    if nation is not None and (name in ACTION_STEPS or own_turn) and pos.stage != nation:
        raise StepRefused(f"cannot {step.action}: it is {_poss(pos.stage)} turn to act, not {_poss(nation)}; {words()}")


def next_decision(c, snap: Snapshot) -> tuple[str | None, str]:
    """(what comes next: "begin", "actions", "result", "end" or None at the end; in words what to do)."""
    phase, stage = snap.campaign("phase"), snap.campaign("stage")
    rnd = int(snap.campaign("round"))
    if phase == OVER:
        v = snap.tables["mn_game"].get(("verdict",))
        return None, f"the campaign is over: {v[1] if v else 'ended'}"
    if phase == "begin":
        turn = int(dict((k[0], r[1]) for k, r in snap.tables["mn_game"].items()).get("turn", 0)) + 1
        entered = {k[1] for k in snap.tables["mn_wheels"] if int(k[0]) == turn}
        if not entered:
            return "begin", (f"begin turn {turn}: `bellica turn begin CAMPAIGN` (enter the real draw first, if any: "
                             "`bellica turn lottery CAMPAIGN --wheel BA N N N N N`)")
        # The wheels already entered are not asked for again (issue 22).
        missing = [n.wheel for n in c.board.nations.values() if n.wheel not in entered]
        more = (f"the draws of {', '.join(missing)} still to enter, if any: `bellica turn lottery CAMPAIGN --wheel "
                f"{missing[0]} N N N N N`" if missing else "every wheel's draw is entered")
        return "begin", f"begin turn {turn}: `bellica turn begin CAMPAIGN` ({', '.join(sorted(entered))} entered; {more})"
    if phase == "actions":
        row = snap.tables["mn_nations_state"].get((stage,))
        left = (int(row[3]) - int(row[4])) if row else 0
        return "actions", (f"{stage} acts ({left} action{'s' if left != 1 else ''} left): `bellica turn build|attack|"
                           f"peace|ally|grain|naval CAMPAIGN --nation {stage} ...`, then "
                           f"`bellica turn done CAMPAIGN --nation {stage}`")
    if phase == "battles":
        entered = {k[1] for k in snap.tables["mn_results"] if k[0] == rnd}
        waiting = [r[3] for r in sorted(snap.tables["mn_attacks"].values()) if r[3] not in entered]
        if waiting:
            return "result", (f"enter the Field of Glory result of the battle for {waiting[0]}: "
                              f"`bellica turn result CAMPAIGN {waiting[0]} --winner attacker|defender`"
                              + (f" ({len(waiting) - 1} more to enter)" if len(waiting) > 1 else ""))
        return "end", "end the turn: `bellica turn end CAMPAIGN`"
    return None, f"the campaign stands at phase {phase}, which the rules do not know"


@dataclass(frozen=True)
class TurnView:
    """What the umpire and the players see: where the turn stands, the nations, the battles."""

    turn: int
    turns: int
    years: tuple[int, int] | None
    phase: str
    acting: str | None
    next_step: str | None
    next_words: str
    order: tuple[dict, ...]
    nations: tuple[dict, ...]
    attacks: tuple[dict, ...]
    fleets: tuple[dict, ...]
    works: tuple[dict, ...]
    options: dict | None
    winner: str | None
    verdict: str | None

    def lines(self) -> list[str]:
        y = f" ({-self.years[0]}-{-self.years[1]} BC)" if self.years else ""
        out = [f"turn {self.turn} of {self.turns}{y}, phase {self.phase}" + (f": {self.acting} acts" if self.acting else "")]
        if self.order:
            out.append("order of play: " + ", ".join(f"{o['nation']} ({o['wheel']} {o['first']})" for o in self.order))
        for n in self.nations:
            if n["out"]:
                out.append(f"  {n['nation']}: out of the game ({n['out']})")
                continue
            ev = f", event {n['event']}" if n["event"] else ""
            pend = f", may still: {', '.join(n['pending'])}" if n["pending"] else ""
            out.append(f"  {n['nation']}: {n['provinces']} provinces, stability {n['stability']}, treasury {n['treasury']}, "
                       f"{n['used']} of {n['actions']} actions used{ev}{pend}")
        for w in self.works:
            out.append(f"  works in {w['province']} ({w['holder'] or 'independent'}): " + ", ".join(
                f"{w[k]} {k}" for k in ("fortifications", "suburbs", "temples") if w[k]))
        for f in self.fleets:
            out.append(f"  fleet {f['fleet']} ({f['owner']}) in {f['sea']}")
        for a in self.attacks:
            by = a["attacker"] or f"invaders ({a['army']}, played by {a['terms']['attacker_played_by']})"
            how = f" from {a['base']}" if a["base"] else ""
            how += f" across {a['sea']}" if a["sea"] else ""
            res = f": {a['result']} won" if a["result"] else ""
            out.append(f"  battle for {a['target']}: {by}{how} against {a['defender'] or 'the independents'} "
                       f"({a['attacker_army']} vs {a['defender_army']}){res}")
        if self.options:
            o = self.options
            out.append(f"{self.acting} may attack by land: " + (", ".join(f"{t} (from {', '.join(b)})"
                                                                         for t, b in o["land"].items()) or "nothing"))
            if o["peace"]:
                out.append(f"{self.acting} may impose peace on: {', '.join(o['peace'])}")
        if self.verdict:
            out.append(f"verdict: {self.verdict}")
        out.append(f"next: {self.next_words}")
        return out

    def as_json(self) -> dict:
        return asdict(self)


def turn_view(c) -> TurnView:
    snap = c.snapshot()
    scenario, rules = c.board, c.rules
    state = state_of(scenario, snap)
    phase = snap.campaign("phase")
    step, words = next_decision(c, snap)
    rnd = int(snap.campaign("round"))
    results = {p: w for (t, p), (_t, _p, w) in snap.tables["mn_results"].items() if t == state.turn}
    first = rules.lottery.order_number
    order = tuple({"nation": n, "wheel": scenario.nations[n].wheel, "first": state.draws.get(n, (None,))[first - 1]
                   if len(state.draws.get(n, ())) >= first else None} for n in state.order)
    nations = []
    for n, s in state.nations.items():
        key = state.events.get(n)
        nations.append({"nation": n, "provinces": len(provinces_of(scenario, state, n)), "stability": s.stability,
                        "treasury": s.treasury, "actions": s.actions, "used": s.used,
                        "event": rules.event_by_key(key).title if key and phase != "begin" else None,
                        "pending": list(s.pending) if phase != "begin" else [], "out": s.out,
                        "draws": list(state.draws.get(n, ()))})
    attacks = []
    for a in state.attacks:
        terms = battles_mod.battle_terms(scenario, state, rules, a)
        attacks.append({**asdict(a), "attacker_army": terms["attacker_army"], "defender_army": terms["defender_army"],
                        "terms": terms, "result": results.get(a.target)})
    options = None
    acting = state.acting if phase == "actions" else None
    if acting:
        land: dict[str, list[str]] = {}
        for b, t in battles_mod.land_targets(scenario, state, rules, acting):
            land.setdefault(t, []).append(b)
        peace = [n for n in state.order[state.current + 1:] if state.nations[n].playing]
        options = {"land": land, "peace": peace, "actions_left": state.nations[acting].actions_left}
    v = snap.tables["mn_game"].get(("verdict",))
    shown = state.turn + 1 if phase == "begin" else state.turn or rnd
    return TurnView(
        turn=shown, turns=rules.game.turns, years=rules.game.years(shown), phase=phase, acting=acting,
        next_step=step, next_words=words, order=order, nations=tuple(nations), attacks=tuple(attacks),
        fleets=tuple({"fleet": f.id, "owner": f.owner, "sea": f.sea} for f in state.fleets),
        works=tuple({"province": p, "holder": state.control.get(p), "fortifications": w.fortifications,
                     "suburbs": w.suburbs, "temples": w.temples} for p, w in state.works.items() if w != Works()),
        options=options, winner=state.winner, verdict=v[1] if v else None)


def standings_now(c) -> list[dict]:
    """Provinces and richness of every nation still playing, best first."""
    state = state_of(c.board, c.snapshot())
    return [asdict(s) for s in standings(c.board, state, c.rules)]


def _poss(name: str | None) -> str:
    """``Romans'``, ``Roma's``."""
    name = name or "nobody"
    return name + ("'" if name.endswith("s") else "'s")
