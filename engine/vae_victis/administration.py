"""The Administration phase (seed: "Rounds", phase 4), its steps in the seed's order.

1. removal of armies that lost their battle (an assaulting army that lost only its
   assault is not removed);
2. movement of armies that drew (2 hexes away, towards a capital if possible, never
   into another faction's army ZoC; besiegers stay) or won (optional advance into
   the adjacent hex of a removed loser, ties by casualties), and of assaulting
   armies that lost their assault (2 hexes away from the structure);
3. navies' debarkation (the naval issue's hook: nothing happens here yet);
4. siege resolution (:func:`engine.sieges.resolve_sieges`);
5. control of unowned structures in one faction's army ZoC only;
6. placement of the removed losers: the nearest (in hexes) controlled, unsieged,
   unblockaded structure on their faction's logistics lines, else 2 hexes away from
   the enemies they lost to, else irrevocable elimination;
7. other updates of the map (nothing in the land game);
8. army strength: casualties (1 FP per % won, 2 FP per % drawn or lost), then
   reinforcement of armies that neither moved nor fought, then transfers, all
   capped at 1600 FP;
9. miscellaneous: an army at 0 FP or less is eliminated.

:func:`administer` is pure; umpire and player choices (advances, sieges started,
lifted, taken over, surrendered, transfers) are explicit inputs.  Every change is an
:class:`~engine.model.Event` explained in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from tabula.engine.vae_victis.battles import (
    MAX_FP,
    Engagement,
    EngagementResult,
    army_battle_outcomes,
    battle_outcomes,
)
from tabula.engine.vae_victis.logistics import Logistics, LogisticsOptions, logistics_for
from tabula.engine.vae_victis.model import Army, Board, CampaignState, Event, Transfer
from tabula.engine.vae_victis.movement import TERRAIN_MP
from tabula.engine.vae_victis.orders import MAX_TRANSFER_FP as TRANSFER_CAP
from tabula.engine.vae_victis.sieges import SiegeInputs, SiegeOptions, assault_effects, resolve_sieges
from tabula.engine.vae_victis.zoc import army_zoc, controller_of, navy_zoc, structure_exerts_zoc, structure_zoc
from tabula.geo.errors import InputError
from tabula.geo.hexgrid import grid_distance

__all__ = [
    "AdminInputs",
    "AdminOptions",
    "AdminResult",
    "MAX_FP",
    "TRANSFER_CAP",
    "administer",
    "casualty_loss",
    "reinforcement",
    "retreat_destination",
]

PASSABLE = frozenset(TERRAIN_MP)


@dataclass(frozen=True)
class AdminOptions:
    """Choices where the seed is silent (docs/rules/administration.md).

    ``draw_blocked``: a drawn army with no legal retreat "stay"s, or is placed like a
    loser ("as_loser").  ``retreat_like_draw``: armies that retreated from an
    engagement without fighting move like drawn ones.  ``transfer_excess``: FP a
    receiver at 1600 cannot take "return" to the giver, or are "lost".
    """

    retreat_hexes: int = 2
    draw_blocked: str = "stay"
    retreat_like_draw: bool = True
    transfer_excess: str = "return"


@dataclass(frozen=True)
class AdminInputs:
    start_state: CampaignState
    engagements: tuple[Engagement, ...] = ()
    results: tuple[EngagementResult, ...] = ()
    retreats: tuple[tuple[int, int], ...] = ()  # (army, enemy): engagements avoided by retreating
    paths: Mapping[int, tuple[str, ...]] = field(default_factory=dict)  # hexes entered, start first
    advances: Mapping[int, str] = field(default_factory=dict)  # winner -> vacated hex it advances into
    siege_starts: Mapping[int, str] = field(default_factory=dict)
    lifts: frozenset[int] = frozenset()
    take_overs: frozenset[str] = frozenset()
    surrenders: frozenset[str] = frozenset()
    transfers: Mapping[int, tuple[Transfer, ...]] = field(default_factory=dict)  # giver -> transfers
    navies: tuple[tuple[int, str, str], ...] = ()  # (army, faction, cell): naval issue hook
    blockaded: frozenset[str] = frozenset()


@dataclass(frozen=True)
class AdminResult:
    state: CampaignState
    events: tuple[Event, ...]

    @property
    def control_events(self) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.kind == "control_changed")


def casualty_loss(outcome: str, casualties: int) -> int:
    """Seed: 1 FP per % of casualties for a won engagement, 2 FP for a drawn or lost one."""
    return casualties * (1 if outcome == "win" else 2)


def _passable(board: Board, cell: str) -> bool:
    h = board.hexes.get(cell)
    return h is not None and h.kind == "land" and h.terrain in PASSABLE


def _capital_cells(board: Board, faction: str) -> list[str]:
    f = board.factions.get(faction)
    return [board.structures[c].cell for c in (f.capitals if f else ()) if c in board.structures]


def _enemy_army_zoc(board: Board, armies: Iterable[Army], faction: str, navies=()) -> set[str]:
    z: set[str] = set()
    for a in armies:
        if a.faction != faction and not a.eliminated and a.cell is not None:
            z |= army_zoc(board, a.cell)
    for _, f, c in navies:
        if f != faction:
            z |= navy_zoc(board, c)
    return z


def retreat_destination(
    board: Board,
    cell: str,
    away_from: Iterable[str],
    blocked: set[str],
    occupied: set[str],
    towards: Iterable[str] = (),
    hexes: int = 2,
) -> str | None:
    """A hex ``hexes`` away reached through passable land hexes outside ``blocked``.

    Prefer hexes farther from every one of ``away_from`` (else at least not closer),
    then the one nearest a hex of ``towards`` (the faction's capitals), then farther
    from the enemies in total, then the lowest cell id (determinism)."""
    away_from = list(away_from)
    towards = list(towards)
    frontier = {cell}
    for _ in range(hexes):
        frontier = {
            n for c in frontier for n in board.sides.get(c, {}).values()
            if _passable(board, n) and n not in blocked
        }
    cands = [d for d in frontier if d not in occupied and grid_distance(cell, d) == hexes]
    if not cands:
        return None

    def key(d):
        return (
            min((grid_distance(d, t) for t in towards), default=0),
            -sum(grid_distance(d, e) for e in away_from),
            d,
        )

    strict = [d for d in cands if all(grid_distance(d, e) > grid_distance(cell, e) for e in away_from)]
    if strict:
        return min(strict, key=key)
    loose = [d for d in cands if all(grid_distance(d, e) >= grid_distance(cell, e) for e in away_from)]
    return min(loose, key=key) if loose else None


def reinforcement(
    board: Board, state: CampaignState, army: Army, logistics: Logistics, start_state: CampaignState | None = None
) -> tuple[int, str | None]:
    """FP an army that neither moved nor fought recovers in a controlled, unsieged structure's ZoC.

    Town: +16 in its hex; City: +32 in its hex, +16 one hex away; halved when the
    structure has no uninterrupted logistics line to a capital of the army's faction.
    The seed asks for the army to be "the entire round" in the ZoC of a controlled
    structure: with ``start_state`` the structure must also have been the faction's,
    and unsieged, at the start of the round (one gained this round gives nothing yet)."""
    best, why = 0, None
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if controller_of(state, s) != army.faction or state.siege_of(s.name) is not None:
            continue
        if start_state is not None and (
            controller_of(start_state, s) != army.faction or start_state.siege_of(s.name) is not None
        ):
            continue
        if army.cell == s.cell:
            fp = 32 if s.kind == "city" else 16
        elif s.kind == "city" and army.cell in structure_zoc(board, s) and board.hexes[army.cell].kind == "land":
            fp = 16
        else:
            continue
        supplied = logistics.is_supplied(army.faction, s.name)
        if not supplied:
            fp //= 2
        if fp > best:
            best = fp
            why = f"{s.name} ({s.kind}, {'on' if supplied else 'cut off from'} its faction's logistics lines)"
    return best, why


def administer(
    board: Board,
    state: CampaignState,
    inputs: AdminInputs,
    options: AdminOptions = AdminOptions(),
    siege_options: SiegeOptions = SiegeOptions(),
    logistics_options: LogisticsOptions = LogisticsOptions(),
) -> AdminResult:
    """Run the nine administration steps on the state after battles (see the module doc)."""
    rnd = state.round
    events: list[Event] = []
    armies: dict[int, Army] = {a.id: a for a in state.armies}
    start = {a.id: a for a in inputs.start_state.armies}

    def ev(kind, data, text):
        events.append(Event(rnd, "administration", kind, data, text))

    def cur_state(**kw) -> CampaignState:
        return replace(state, armies=tuple(armies[i] for i in sorted(armies)), **kw)

    engagements = tuple(inputs.engagements)
    outcomes = battle_outcomes(board, state, engagements, inputs.results) if engagements else {}
    army_outcome = army_battle_outcomes(state, engagements, outcomes)
    by_result = {(r.engagement, r.army): r for r in inputs.results}
    _, assault_losers = assault_effects(engagements, inputs.results)
    opponents: dict[int, set[int]] = {}
    for e in engagements:
        if e.army_b is not None:
            opponents.setdefault(e.army_a, set()).add(e.army_b)
            opponents.setdefault(e.army_b, set()).add(e.army_a)

    # 1. removal of losers
    removed: dict[int, str] = {}  # army -> hex where it lost
    for a_id, outcome in sorted(army_outcome.items()):
        if outcome != "loss":
            continue
        lost_non_assault = any(
            by_result[(e.number, a_id)].outcome == "loss" for e in engagements if e.assault is None and a_id in e.armies
        )
        if a_id in assault_losers and not lost_non_assault:
            continue  # seed: an assaulting army that loses only its assault is not removed
        a = armies[a_id]
        removed[a_id] = a.cell
        armies[a_id] = replace(a, cell=None)
        ev("army_removed", {"army": a_id, "cell": a.cell}, f"army {a_id} ({a.faction}) lost its battle and is removed from the map")

    # 2a. winners' advances into hexes vacated by removed losers
    wanting: dict[str, list[int]] = {}
    for a_id, target in sorted(inputs.advances.items()):
        a = armies[a_id]
        if army_outcome.get(a_id) != "win":
            raise InputError(f"army {a_id} cannot advance: it did not win a battle this round")
        vacated = {removed[o] for o in opponents.get(a_id, ()) if o in removed}
        if target not in vacated or target not in board.sides.get(a.cell, {}).values():
            raise InputError(f"army {a_id} cannot advance into {target}: only into an adjacent hex vacated by a loser it fought")
        wanting.setdefault(target, []).append(a_id)
    incurred = {a: sum(r.casualties for r in inputs.results if r.army == a) for a in armies}
    inflicted = {
        a: sum(by_result[(e.number, o)].casualties for e in engagements if e.army_b is not None and a in e.armies
               for o in [e.opponent(a)] if (e.number, o) in by_result)
        for a in armies
    }
    for target, ids in sorted(wanting.items()):
        ranked = sorted(ids, key=lambda i: (incurred[i], -inflicted[i]))
        if len(ranked) > 1 and (incurred[ranked[0]], inflicted[ranked[0]]) == (incurred[ranked[1]], inflicted[ranked[1]]):
            ev("advance_tied", {"cell": target, "armies": ids},
               f"armies {', '.join(map(str, ids))} tie for {target} (casualties taken and inflicted): none advances")
            continue
        winner = ranked[0]
        if any(x.cell == target for x in armies.values()):
            continue
        ev("army_moved", {"army": winner, "from": armies[winner].cell, "to": target, "reason": "advance"},
           f"army {winner} advances into {target}, vacated by a removed loser"
           + (f" (fewest casualties among {', '.join(map(str, ids))})" if len(ids) > 1 else ""))
        armies[winner] = replace(armies[winner], cell=target)

    # 2b. draws (and armies that retreated without fighting) retreat; besiegers that drew stay
    besieging = {a for s in state.sieges for a in s.armies}
    retreaters = {a for a, o in army_outcome.items() if o == "draw"}
    if options.retreat_like_draw:
        retreaters |= {a for a, _ in inputs.retreats}
    draw_blocked: list[int] = []
    for a_id in sorted(retreaters):
        a = armies[a_id]
        if a.cell is None or a_id in removed:
            continue
        if a_id in besieging and army_outcome.get(a_id) == "draw":
            ev("army_stays", {"army": a_id, "reason": "besieging"}, f"army {a_id} drew while besieging: it does not retreat")
            continue
        enemies = [armies[o].cell or removed.get(o) for o in opponents.get(a_id, ())] + [
            armies[e].cell for x, e in inputs.retreats if x == a_id and armies[e].cell
        ]
        occupied = {x.cell for x in armies.values() if x.cell is not None and x.id != a_id}
        blocked = _enemy_army_zoc(board, armies.values(), a.faction, inputs.navies)
        dest = retreat_destination(board, a.cell, [e for e in enemies if e], blocked, occupied,
                                   _capital_cells(board, a.faction), options.retreat_hexes)
        if dest is None:
            if options.draw_blocked == "as_loser":
                removed[a_id] = a.cell
                armies[a_id] = replace(a, cell=None)
                ev("army_removed", {"army": a_id, "cell": a.cell}, f"army {a_id} cannot retreat 2 hexes: placed like a loser")
            else:
                draw_blocked.append(a_id)
                ev("army_stays", {"army": a_id, "reason": "no retreat"},
                   f"army {a_id} finds no hex 2 away outside enemy ZoC: it stays")
            continue
        ev("army_moved", {"army": a_id, "from": a.cell, "to": dest, "reason": "retreat"},
           f"army {a_id} ({a.faction}) retreats 2 hexes to {dest}" + (" towards its capital" if _capital_cells(board, a.faction) else ""))
        armies[a_id] = replace(a, cell=dest)

    # 2c. armies that lost their assault move 2 hexes away from the structure
    assault_of = {e.army_a: e.assault for e in engagements if e.assault is not None}
    for a_id in sorted(assault_losers):
        a = armies[a_id]
        if a.cell is None:
            continue
        structure = board.structures[assault_of[a_id]]
        cur = cur_state()
        blocked = _enemy_army_zoc(board, armies.values(), a.faction, inputs.navies)
        for s in board.structures.values():
            if controller_of(cur, s) != a.faction and structure_exerts_zoc(cur, s) and s.name != structure.name:
                blocked |= structure_zoc(board, s)
        occupied = {x.cell for x in armies.values() if x.cell is not None and x.id != a_id}
        dest = retreat_destination(board, a.cell, [structure.cell], blocked, occupied, (), options.retreat_hexes)
        if dest:
            ev("army_moved", {"army": a_id, "from": a.cell, "to": dest, "reason": "assault lost"},
               f"army {a_id} lost its assault on {structure.name}: it lifts the siege and moves 2 hexes away to {dest}")
            armies[a_id] = replace(a, cell=dest)
        else:
            ev("army_stays", {"army": a_id, "reason": "assault lost, no hex"},
               f"army {a_id} lost its assault on {structure.name} and lifts the siege; no hex 2 away is free of enemy ZoC")

    # 3. naval debarkation: the naval issue's step (no navies in the land game)

    # 4. siege resolution
    logistics_now = logistics_for(board, cur_state(), inputs.navies, logistics_options)
    sieged, siege_events = resolve_sieges(
        board,
        cur_state(),
        SiegeInputs(
            start_state=inputs.start_state,
            paths=inputs.paths,
            start_requests=inputs.siege_starts,
            lifts=inputs.lifts | frozenset(assault_losers),
            take_overs=inputs.take_overs,
            surrenders=inputs.surrenders,
            blockaded=inputs.blockaded,
            logistics=logistics_now,
            engagements=engagements,
            results=tuple(inputs.results),
        ),
        siege_options,
    )
    events.extend(siege_events)
    armies = {a.id: a for a in sieged.armies}
    control = dict(sieged.control)
    sieges = sieged.sieges

    # 5. unowned structures in one faction's army ZoC only; an army at sea is a navy, and
    # "navies can neither gain control over structures nor prevent" others from gaining it
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if control.get(s.name, s.start_controller) is not None:
            continue
        factions = sorted({a.faction for a in armies.values() if a.cell and not a.eliminated
                           and board.hexes[a.cell].kind == "land" and s.cell in army_zoc(board, a.cell)})
        if len(factions) == 1:
            events.append(Event(rnd, "administration", "control_changed", {
                "structure": s.name, "structure_kind": s.kind, "from": None, "to": factions[0], "how": "zoc",
                "start_resilience": None, "surrendered": False, "armies": []},
                f"{s.name} ({s.kind}), controlled by nobody, passes to {factions[0]}: in the ZoC of its armies only"))
            control[s.name] = factions[0]

    # 6. placement of losers
    placed_state = replace(state, armies=tuple(armies[i] for i in sorted(armies)), control=control, sieges=sieges)
    logistics_now = logistics_for(board, placed_state, inputs.navies, logistics_options)
    for a_id, lost_at in sorted(removed.items()):
        a = armies[a_id]
        occupied = {x.cell for x in armies.values() if x.cell is not None}
        options_ = sorted(
            (grid_distance(lost_at, board.structures[n].cell), n)
            for n in logistics_now.supplied.get(a.faction, ())
            if n not in inputs.blockaded and board.structures[n].cell not in occupied
        )
        if options_:
            d, name = options_[0]
            armies[a_id] = replace(a, cell=board.structures[name].cell)
            ev("army_placed", {"army": a_id, "cell": board.structures[name].cell, "structure": name},
               f"army {a_id} ({a.faction}) is placed in {name}, its nearest controlled unsieged structure on its lines ({d} hexes)")
            continue
        enemies = [armies[o].cell for o in opponents.get(a_id, ()) if armies[o].cell]
        dest = retreat_destination(board, lost_at, enemies, set(), occupied, (), options.retreat_hexes)
        if dest is not None:
            armies[a_id] = replace(a, cell=dest)
            ev("army_placed", {"army": a_id, "cell": dest, "structure": None},
               f"army {a_id} ({a.faction}) has no structure on its lines to go to: it reappears 2 hexes away at {dest}")
        else:
            armies[a_id] = replace(a, cell=None, eliminated=True)
            ev("army_eliminated", {"army": a_id}, f"army {a_id} ({a.faction}) has nowhere to go and is irrevocably eliminated")

    # 7. other updates of the map: none in the land game

    # 8. strength: casualties, reinforcement, transfers
    for r in sorted(inputs.results, key=lambda r: (r.engagement, r.army)):
        a = armies[r.army]
        loss = casualty_loss(r.outcome, r.casualties)
        if loss:
            armies[r.army] = replace(a, strength=a.strength - loss)
            ev("strength_changed", {"army": r.army, "fp": -loss, "reason": "casualties", "engagement": r.engagement},
               f"army {r.army}: {r.casualties}% casualties in engagement {r.engagement} ({r.outcome}) cost "
               f"{loss} FP ({1 if r.outcome == 'win' else 2} per %): {a.strength} -> {a.strength - loss}")
    fought = {a for e in engagements for a in e.armies} | {a for a, _ in inputs.retreats}
    end_state = replace(placed_state, armies=tuple(armies[i] for i in sorted(armies)))
    for a_id in sorted(armies):
        a = armies[a_id]
        s0 = start.get(a_id)
        path = inputs.paths.get(a_id, ())
        moved = s0 is None or s0.cell != a.cell or len(set(path)) > 1
        if a.eliminated or a.cell is None or moved or a_id in fought:
            continue
        fp, why = reinforcement(board, end_state, a, logistics_now, inputs.start_state)
        fp = min(fp, max(0, MAX_FP - a.strength))
        if fp:
            armies[a_id] = replace(a, strength=a.strength + fp)
            ev("strength_changed", {"army": a_id, "fp": fp, "reason": "reinforcement"},
               f"army {a_id} neither moved nor fought in the ZoC of {why}: +{fp} FP ({a.strength} -> {a.strength + fp})")
    start_links = logistics_for(board, inputs.start_state, inputs.navies, logistics_options)
    per_pair: dict[frozenset[int], int] = {}
    for giver, transfers in sorted(inputs.transfers.items()):
        for t in transfers:
            pair = frozenset((giver, t.to_army))
            per_pair[pair] = per_pair.get(pair, 0) + t.fp
            if t.fp <= 0 or per_pair[pair] > TRANSFER_CAP:
                raise InputError(f"army {giver}: transfers to army {t.to_army} total {per_pair[pair]} FP; the aggregate must be 1-{TRANSFER_CAP}")
            if not start_links.linked(giver, t.to_army):
                raise InputError(f"army {giver} cannot transfer to army {t.to_army}: they were not linked by logistics lines at the round's start")
            g = armies[giver]
            fp = min(t.fp, max(0, g.strength))
            armies[giver] = replace(g, strength=g.strength - fp)
            rcv = armies[t.to_army]
            take = 0 if rcv.eliminated else min(fp, max(0, MAX_FP - rcv.strength))
            # the FP in transit go back to the giver when the receiver is gone or (option) full
            back = fp - take if options.transfer_excess == "return" or rcv.eliminated else 0
            armies[t.to_army] = replace(rcv, strength=rcv.strength + take)
            if back:
                armies[giver] = replace(armies[giver], strength=armies[giver].strength + back)
            ev("strength_transferred", {"from": giver, "to": t.to_army, "fp": take, "returned": back},
               f"army {giver} transfers {fp} FP to army {t.to_army}: {take} arrive at the round's end"
               + (f", {back} return (1600 FP cap)" if back else ""))

    # 9. miscellaneous: an army without strength is eliminated
    for a_id in sorted(armies):
        a = armies[a_id]
        if not a.eliminated and a.strength <= 0:
            armies[a_id] = replace(a, cell=None, eliminated=True, strength=0)
            ev("army_eliminated", {"army": a_id}, f"army {a_id} ({a.faction}) has no strength left and is eliminated")

    final = replace(end_state, armies=tuple(armies[i] for i in sorted(armies)))
    return AdminResult(final, tuple(events))
