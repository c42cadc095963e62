"""Phase 3, battles: the round's engagements (listed after movement), their results, retreats."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

from bellica.engine.vae_victis.model import ArmyOrders, Board, CampaignState, Event, Phase
from bellica.engine.vae_victis.rounds.machine import Round, StepRefused, event, next_step, read_round, require
from bellica.engine.vae_victis.rounds.orders_step import row_to_orders
from bellica.geo.errors import InputError

__all__ = ["list_engagements", "engagements_and_results", "record_result", "battle_sheet", "declare_retreat"]


def list_engagements(
    board: Board,
    state: CampaignState,
    orders: Mapping[int, ArmyOrders],
    *,
    mp_spent: Mapping[int, int],
    paths: Mapping[int, tuple[str, ...]],
    start_state: CampaignState,
    start_logistics,
    retreats: Iterable[int],
) -> list[Event]:
    """Engagements after movement (:func:`engine.vae_victis.battles.find_engagements`) as
    ``put_engagement`` events, plus each one's Field of Glory II set-up, worded and kept in the
    ``setups`` note.  ``paths`` (the hexes each army entered) lapse the assault of an army that
    left its siege's ZoC on the way."""
    from bellica.engine.vae_victis.battles import engagement_setup, find_engagements
    from bellica.engine.vae_victis.naval import blockaded_structures

    assaults = {a: o.assault for a, o in orders.items() if o.assault and not o.lift_siege}
    engagements = find_engagements(board, state, assaults=assaults, retreats=tuple(sorted(retreats)), paths=paths)
    initiative = {a: o.initiative for a, o in orders.items()}
    in_transit = {a: sum(t.fp for t in o.transfers) for a, o in orders.items() if o.transfers}
    blockaded = frozenset(blockaded_structures(board, state))  # an assaulted structure's garrison drops with it
    events: list[Event] = []
    setups: dict[str, str] = {}
    rnd = state.round
    for e in engagements:
        events.append(event(rnd, "movement", "put_engagement", {
            "round": rnd, "battle": e.battle, "engagement": e.number, "army_a": e.army_a, "army_b": e.army_b, "assault": e.assault,
        }))
        setup = engagement_setup(
            board, state, e, engagements, mp_spent=mp_spent, initiative=initiative,
            start_logistics=start_logistics, start_state=start_state, in_transit=in_transit, blockaded=blockaded,
        )
        setups[str(e.number)] = setup.text()
        events.append(event(rnd, "movement", "engagement_setup", {"engagement": e.number, "sets_up": setup.sets_up,
                                                                  "fp": [side.fp for side in setup.sides], "map": setup.map},
                            setup.text()))
    if not engagements:
        events.append(event(rnd, "movement", "no_engagements", {}, "no armies of different factions are in each other's ZoC: no battles this round"))
    events.append(event(rnd, "movement", "put_note", {"round": rnd, "key": "setups", "value": setups}))
    return events


def engagements_and_results(r: Round):
    """The round's engagements and recorded results as the rules' value objects."""
    from bellica.engine.vae_victis.battles import Engagement, EngagementResult

    engagements = tuple(
        Engagement(number=row[2], battle=row[1], army_a=row[3], army_b=row[4], assault=row[5]) for row in r.engagement_rows()
    )
    results = tuple(
        EngagementResult(engagement=k[1], army=k[2], outcome=row[3], casualties=row[4])
        for k, row in sorted(r.snap.tables["engagement_results"].items())
        if k[0] == r.round
    )
    return engagements, results


def _results_text(results: Mapping[int, tuple]) -> str:
    return "; ".join(f"army {a} {row[3]}, {row[4]}% casualties" for a, row in sorted(results.items()))


def result_outcomes(winner: int | str, casualties: Mapping[int, int]) -> dict[int, tuple[str, int]]:
    """The outcomes :func:`record_result` takes, from how the umpire states a result: ``winner`` an
    army of ``casualties`` (it won, the others lost), ``"defender"`` (an assault failed: every army
    given lost) or ``"draw"``; ``casualties`` {army: % as Field of Glory II shows them}."""
    if winner == "draw":
        return {a: ("draw", c) for a, c in casualties.items()}
    if winner == "defender":
        return {a: ("loss", c) for a, c in casualties.items()}
    if winner not in casualties:
        given = ", ".join(map(str, sorted(casualties))) or "none"
        raise InputError(f"winner {winner!r}: name an army whose casualties are given ({given}), `defender` or `draw`")
    return {a: ("win" if a == winner else "loss", c) for a, c in casualties.items()}


def record_result(campaign, engagement: int, outcomes: Mapping[int, tuple[str, int]], correction: bool = False) -> list[Event]:
    """Phase 3: record one Field of Glory II engagement's result: ``{army: (outcome, casualties %)}``.

    Every army of the engagement needs a row (an assault has only the assaulting army: the
    defender is the structure's garrison and suffers no strength loss).  Outcomes must agree:
    one win and one loss, or two draws.

    A result is recorded once: a second recording for the same engagement is refused, naming
    what was recorded (a repeated command, or a typo in the engagement number, must not flip
    a winner silently).  ``correction=True`` (``bellica round result --replace``) replaces it,
    until administration runs, and the log keeps a ``result_corrected`` event saying what the
    result was; ``correction=True`` with nothing recorded yet is refused too.
    """
    from bellica.engine.vae_victis.battles import OUTCOMES

    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "result")
        rows = {row[2]: row for row in r.engagement_rows()}
        if engagement not in rows:
            known = ", ".join(map(str, sorted(rows))) or "none"
            raise InputError(f"round {r.round} has no engagement {engagement}: its engagements are {known} (see `bellica round battles`)")
        _rnd, _battle, _e, army_a, army_b, assault = rows[engagement]
        armies = [a for a in (army_a, army_b) if a is not None]
        given = sorted(outcomes)
        if given != sorted(armies):
            raise InputError(
                f"engagement {engagement} is fought by army {' and army '.join(map(str, armies))}: "
                f"give a result for exactly {'that army' if len(armies) == 1 else 'those armies'} (got {', '.join(map(str, given)) or 'none'})"
            )
        for army, (outcome, casualties) in sorted(outcomes.items()):
            if outcome not in OUTCOMES:
                raise InputError(f"army {army}: outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
            if isinstance(casualties, bool) or not isinstance(casualties, int) or not 0 <= casualties <= 100:
                raise InputError(f"army {army}: casualties {casualties!r} must be a whole percentage 0-100 (as FoG II shows it)")
        if len(armies) == 2:
            pair = sorted(outcomes[a][0] for a in armies)
            if pair not in (["draw", "draw"], ["loss", "win"]):
                raise InputError(
                    f"engagement {engagement}: outcomes {outcomes[army_a][0]} for army {army_a} and {outcomes[army_b][0]} "
                    f"for army {army_b} disagree: one wins and the other loses, or both draw"
                )
        before = r.results_for(engagement)
        if before and not correction:
            raise InputError(
                f"engagement {engagement} already has a result ({_results_text(before)}): to correct it, "
                "give the whole result again with --replace (the log keeps both)"
            )
        if correction and not before:
            raise InputError(f"engagement {engagement} has no result yet, there is nothing to replace: leave out --replace")
        factions = {a.id: a.faction for a in r.state.armies}
        events = []
        if before:
            was = [{"army": a, "outcome": row[3], "casualties": row[4]} for a, row in sorted(before.items())]
            events.append(event(r.round, "battles", "result_corrected", {"round": r.round, "engagement": engagement, "was": was},
                                f"the umpire corrects the result of engagement {engagement} (was: {_results_text(before)})"))
        for army, (outcome, casualties) in sorted(outcomes.items()):
            verb = {"win": "wins", "draw": "draws", "loss": "loses"}[outcome]
            against = f"the assault on {assault}" if army_b is None else f"engagement {engagement}"
            events.append(event(
                r.round, "battles", "put_result",
                {"round": r.round, "engagement": engagement, "army": army, "outcome": outcome, "casualties": casualties},
                f"army {army} ({factions.get(army)}) {verb} {against}, {casualties}% casualties",
            ))
        if campaign.board.rules.battles.result_window_days:  # 0: a campaign from before the window rule
            events.append(_reporter_event(campaign.board, r, engagement, assault, factions, outcomes))
        campaign.append(events, before=r.snap)
    return events


def _reporter_event(board, r: Round, engagement: int, assault, factions, outcomes) -> Event:
    """The seed's reporter of a result (engine.vae_victis.battles.result_reporter), recorded."""
    from bellica.engine.vae_victis.battles import garrison_player, result_reporter
    from bellica.engine.vae_victis.zoc import controller_of

    garrison = None
    if assault is not None:
        attacker = factions[next(iter(outcomes))]
        garrison = garrison_player(board, controller_of(r.state, board.structures[assault]), attacker)[0]
    army, faction, why = result_reporter(factions, outcomes, garrison)
    by = f"{faction} (army {army}, {why})" if army is not None else f"{faction} ({why})"
    return event(r.round, "battles", "result_reporter", {"engagement": engagement, "army": army, "faction": faction},
                 f"the result of engagement {engagement} is reported by {by}")


def battle_sheet(campaign) -> list[str]:
    """Phase 3 at a glance: every engagement of the round, its set-up and its result so far (read-only)."""
    campaign.require_state()
    r = read_round(campaign)
    rows = r.engagement_rows()
    if not rows:
        if r.state.phase is Phase.BATTLES:
            return [f"round {r.round}: no engagements; next: {next_step(r)}"]
        return [f"round {r.round} is in the {r.phase} phase: no engagements listed yet; next: {next_step(r)}"]
    setups = r.note("setups") or {}
    out = []
    battle = None
    for _rnd, b, e, army_a, army_b, assault in rows:
        if b != battle:
            battle = b
            out.append(f"battle {b}")
        out.append("  " + setups.get(str(e), f"engagement {e}: army {army_a} v {'army ' + str(army_b) if army_b is not None else assault}"))
        results = r.results_for(e)
        if results:
            out.append("    result: " + "; ".join(f"army {a} {row[3]}, {row[4]}% casualties" for a, row in sorted(results.items())))
        else:
            out.append("    result: awaiting (`bellica round result`)")
    if campaign.board.rules.battles.result_window_days:  # 0: a campaign from before the window rule
        out.append(_results_due(campaign, r))
    out.append(f"next: {next_step(r)}")
    return out


def _results_due(campaign, r: Round) -> str:
    """When this round's results are due: the rules' window (seed: three weeks) from the time the
    log recorded the engagements' listing (read from the log, so nothing reads the clock)."""
    from datetime import timedelta

    days = campaign.board.rules.battles.result_window_days
    listed = [e.at for e in campaign.events(round=r.round) if e.kind == "engagement_setup" and e.at is not None]
    if not listed:
        return f"results due within {days} days of the engagements' listing"
    due = max(listed) + timedelta(days=days)
    return f"results due by {due:%Y-%m-%d %H:%M} UTC ({days} days from the listing of the engagements)"


def declare_retreat(campaign, army: int) -> list[Event]:
    """Phase 3: ``army`` retreats rather than fight its engagements (seed, "Engagements and battles").

    Declared before any engagement of the round is fought: the engagements are listed
    again without the army (their numbers may change).  The victory points and where the
    army goes are administration's (``retreats`` note).
    """
    from bellica.engine.vae_victis.logistics import logistics_for

    with campaign.transaction():
        r = read_round(campaign)
        require(campaign, r, "retreat")
        rows = r.engagement_rows()
        mine = [row for row in rows if army in (row[3], row[4])]
        if not mine:
            fighting = sorted({a for row in rows for a in (row[3], row[4]) if a is not None})
            raise InputError(
                f"army {army} fights no engagement this round: armies in engagements are {', '.join(map(str, fighting)) or 'none'}"
            )
        recorded = sorted({k[1] for k in r.snap.tables["engagement_results"] if k[0] == r.round})
        if recorded:
            raise StepRefused(
                f"cannot take a retreat: results are already recorded for engagement{'s' if len(recorded) > 1 else ''} "
                f"{', '.join(map(str, recorded))}; retreats are declared before any engagement is fought"
            )
        # (retreating army, enemy) per engagement given up: the VP table counts each one.
        against_pairs = [[army, row[4] if row[3] == army else row[3]] for row in mine if row[4] is not None]
        before = r.note("retreats") or {"armies": [], "pairs": []}
        pairs = sorted({tuple(p) for p in before["pairs"]} | {tuple(p) for p in against_pairs})
        retreats = sorted(set(before["armies"]) | {army})
        board = campaign.board
        start_state = r.start_state()
        movement = r.note("movement") or {"mp_spent": {}, "paths": {}}
        orders = {a: row_to_orders(row) for a, row in r.orders_rows().items()}
        faction = r.state.army(army).faction
        against = sorted({enemy for _, enemy in against_pairs})
        events = [event(r.round, "battles", "retreat", {"army": army, "faction": faction, "against": against},
                        f"army {army} ({faction}) retreats rather than fight"
                        + (f" army {', army '.join(map(str, against))}" if against else ""))]
        events += [event(r.round, "battles", "drop_engagement", {"round": r.round, "engagement": row[2]}) for row in rows]
        events.append(event(r.round, "battles", "put_note", {"round": r.round, "key": "retreats", "value": {"armies": retreats, "pairs": [list(p) for p in pairs]}}))
        events += list_engagements(
            board, r.state, orders, mp_spent={int(k): v for k, v in movement["mp_spent"].items()},
            paths={int(k): tuple(v) for k, v in movement.get("paths", {}).items()},
            start_state=start_state, start_logistics=logistics_for(board, start_state), retreats=retreats,
        )
        events = [replace(e, phase="battles") for e in events]
        campaign.append(events, before=r.snap)
    return events
