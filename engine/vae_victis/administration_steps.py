"""The Administration's steps, one function each, on the state they share (:class:`_Admin`).

:func:`engine.vae_victis.administration.administer` builds the :class:`_Admin` from the
:class:`AdminInputs` and runs these steps in the seed's order (its module doc lists them);
:class:`AdminResult` is what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from bellica.engine.vae_victis.administration_rules import (
    _capital_cells,
    _enemy_army_zoc,
    casualty_fp_per_percent,
    reachable_land,
    reinforcement,
    retreat_destination,
)
from bellica.engine.vae_victis.battles import Engagement, EngagementResult
from bellica.engine.vae_victis.logistics import Logistics, LogisticsOptions, logistics_for
from bellica.engine.vae_victis.model import Army, Board, CampaignState, Event, Transfer
from bellica.engine.vae_victis.naval_landing import debark, lost_at_sea
from bellica.engine.vae_victis.rules import AdministrationRules, SiegeRules
from bellica.engine.vae_victis.sieges import SiegeInputs, resolve_sieges
from bellica.engine.vae_victis.zoc import army_zoc, controller_of, structure_exerts_zoc, structure_zoc
from bellica.geo.errors import InputError

__all__ = [
    "AdminInputs",
    "AdminResult",
]


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
    blockaded: frozenset[str] = frozenset()  # structures blockaded at the end of movement
    debarks: Mapping[int, int] = field(default_factory=dict)  # navy -> clock side of its hex it debarks through
    nmp_left: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # faction -> zone -> NMP left after movement


@dataclass(frozen=True)
class AdminResult:
    state: CampaignState
    events: tuple[Event, ...]

    @property
    def control_events(self) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.kind == "control_changed")


@dataclass
class _Admin:
    """What the administration steps share: the inputs, the rules and the state being built."""

    board: Board
    state: CampaignState  # after battles
    inputs: AdminInputs
    rules: AdministrationRules
    siege_rules: SiegeRules
    logistics_options: LogisticsOptions
    armies: dict[int, Army]
    engagements: tuple[Engagement, ...]
    army_outcome: Mapping[int, str]
    by_result: Mapping[tuple[int, int], EngagementResult]
    assault_losers: set[int]
    opponents: dict[int, set[int]]
    events: list[Event] = field(default_factory=list)
    removed: dict[int, str] = field(default_factory=dict)  # army -> hex where it lost
    control: dict = field(default_factory=dict)
    sieges: tuple = ()
    logistics_now: Logistics | None = None

    @property
    def max_fp(self) -> int:
        return self.board.rules.battles.max_fp

    def ev(self, kind, data, text) -> None:
        self.events.append(Event(self.state.round, "administration", kind, data, text))

    def cur_state(self, **kw) -> CampaignState:
        return replace(self.state, armies=tuple(self.armies[i] for i in sorted(self.armies)), **kw)

    def placed_state(self) -> CampaignState:
        return self.cur_state(control=self.control, sieges=self.sieges)


def _remove_losers(ad: _Admin) -> None:
    """Step 1: armies that lost their battle leave the map (an assaulting army that lost only
    its assault stays)."""
    for a_id, outcome in sorted(ad.army_outcome.items()):
        if outcome != "loss":
            continue
        lost_non_assault = any(
            ad.by_result[(e.number, a_id)].outcome == "loss" for e in ad.engagements if e.assault is None and a_id in e.armies
        )
        if a_id in ad.assault_losers and not lost_non_assault:
            continue  # seed: an assaulting army that loses only its assault is not removed
        a = ad.armies[a_id]
        ad.removed[a_id] = a.cell
        ad.armies[a_id] = replace(a, cell=None)
        ad.ev("army_removed", {"army": a_id, "cell": a.cell}, f"army {a_id} ({a.faction}) lost its battle and is removed from the map")


def _advance_winners(ad: _Admin) -> None:
    """Step 2, winners: the optional advance into a hex vacated by a removed loser (ties:
    fewest casualties taken, then most inflicted, else nobody)."""
    armies, inputs = ad.armies, ad.inputs
    wanting: dict[str, list[int]] = {}
    for a_id, target in sorted(inputs.advances.items()):
        a = armies[a_id]
        if ad.army_outcome.get(a_id) != "win":
            raise InputError(f"army {a_id} cannot advance: it did not win a battle this round")
        vacated = {ad.removed[o] for o in ad.opponents.get(a_id, ()) if o in ad.removed}
        if target not in vacated or target not in ad.board.sides.get(a.cell, {}).values():
            raise InputError(f"army {a_id} cannot advance into {target}: only into an adjacent hex vacated by a loser it fought")
        wanting.setdefault(target, []).append(a_id)
    incurred = {a: sum(r.casualties for r in inputs.results if r.army == a) for a in armies}
    inflicted = {
        a: sum(ad.by_result[(e.number, o)].casualties for e in ad.engagements if e.army_b is not None and a in e.armies
               for o in [e.opponent(a)] if (e.number, o) in ad.by_result)
        for a in armies
    }
    for target, ids in sorted(wanting.items()):
        ranked = sorted(ids, key=lambda i: (incurred[i], -inflicted[i]))
        if len(ranked) > 1 and (incurred[ranked[0]], inflicted[ranked[0]]) == (incurred[ranked[1]], inflicted[ranked[1]]):
            ad.ev("advance_tied", {"cell": target, "armies": ids},
                  f"armies {', '.join(map(str, ids))} tie for {target} (casualties taken and inflicted): none advances")
            continue
        winner = ranked[0]
        if any(x.cell == target for x in armies.values()):
            continue
        ad.ev("army_moved", {"army": winner, "from": armies[winner].cell, "to": target, "reason": "advance"},
              f"army {winner} advances into {target}, vacated by a removed loser"
              + (f" (fewest casualties among {', '.join(map(str, ids))})" if len(ids) > 1 else ""))
        armies[winner] = replace(armies[winner], cell=target)


def _retreat_draws(ad: _Admin) -> None:
    """Step 2, draws (and armies that retreated without fighting): retreat ``retreat_hexes``
    away, towards a capital if possible, never into another faction's ZoC; besiegers that drew stay."""
    board, armies, inputs, rules = ad.board, ad.armies, ad.inputs, ad.rules
    besieging = {a for s in ad.state.sieges for a in s.armies}
    retreaters = {a for a, o in ad.army_outcome.items() if o == "draw"}
    if rules.retreat_like_draw:
        retreaters |= {a for a, _ in inputs.retreats}
    for a_id in sorted(retreaters):
        a = armies[a_id]
        if a.cell is None or a_id in ad.removed:
            continue
        if a_id in besieging and ad.army_outcome.get(a_id) == "draw":
            ad.ev("army_stays", {"army": a_id, "reason": "besieging"}, f"army {a_id} drew while besieging: it does not retreat")
            continue
        enemies = [armies[o].cell or ad.removed.get(o) for o in ad.opponents.get(a_id, ())] + [
            armies[e].cell for x, e in inputs.retreats if x == a_id and armies[e].cell
        ]
        occupied = {x.cell for x in armies.values() if x.cell is not None and x.id != a_id}
        blocked = _enemy_army_zoc(board, armies.values(), a.faction)
        dest = retreat_destination(board, a.cell, [e for e in enemies if e], blocked, occupied,
                                   _capital_cells(board, a.faction), rules.retreat_hexes)
        if dest is None:
            if rules.draw_blocked == "as_loser":
                ad.removed[a_id] = a.cell
                armies[a_id] = replace(a, cell=None)
                ad.ev("army_removed", {"army": a_id, "cell": a.cell},
                      f"army {a_id} cannot retreat {rules.retreat_hexes} hexes: placed like a loser")
            else:
                ad.ev("army_stays", {"army": a_id, "reason": "no retreat"},
                      f"army {a_id} finds no hex {rules.retreat_hexes} away outside enemy ZoC: it stays")
            continue
        ad.ev("army_moved", {"army": a_id, "from": a.cell, "to": dest, "reason": "retreat"},
              f"army {a_id} ({a.faction}) retreats {rules.retreat_hexes} hexes to {dest}"
              + (" towards its capital" if _capital_cells(board, a.faction) else ""))
        armies[a_id] = replace(a, cell=dest)


def _withdraw_assault_losers(ad: _Admin) -> None:
    """Step 2, lost assaults: the army lifts its siege and moves ``retreat_hexes`` away from the
    structure, not into the ZoC of another faction's army or structure."""
    board, armies, rules = ad.board, ad.armies, ad.rules
    assault_of = {e.army_a: e.assault for e in ad.engagements if e.assault is not None}
    for a_id in sorted(ad.assault_losers):
        a = armies[a_id]
        if a.cell is None:
            continue
        structure = board.structures[assault_of[a_id]]
        cur = ad.cur_state()
        blocked = _enemy_army_zoc(board, armies.values(), a.faction)
        for s in board.structures.values():
            if controller_of(cur, s) != a.faction and structure_exerts_zoc(cur, s) and s.name != structure.name:
                blocked |= structure_zoc(board, s)
        occupied = {x.cell for x in armies.values() if x.cell is not None and x.id != a_id}
        dest = retreat_destination(board, a.cell, [structure.cell], blocked, occupied, (), rules.retreat_hexes)
        if dest:
            ad.ev("army_moved", {"army": a_id, "from": a.cell, "to": dest, "reason": "assault lost"},
                  f"army {a_id} lost its assault on {structure.name}: it lifts the siege and moves "
                  f"{rules.retreat_hexes} hexes away to {dest}")
            armies[a_id] = replace(a, cell=dest)
        else:
            ad.ev("army_stays", {"army": a_id, "reason": "assault lost, no hex"},
                  f"army {a_id} lost its assault on {structure.name} and lifts the siege; "
                  f"no hex {rules.retreat_hexes} away is free of enemy ZoC")


def _debark_navies(ad: _Admin) -> None:
    """Step 3: navies debark their armies where their players ordered, paying the NMP left in their
    zone's pool; an order the position no longer allows (the hex turned hostile) leaves the navy at
    sea, as the umpire ruled in the seed's thread."""
    left = {f: dict(z) for f, z in ad.inputs.nmp_left.items()}
    for a_id, clock in sorted(ad.inputs.debarks.items()):
        result = debark(ad.board, ad.cur_state(), a_id, clock, left)
        ad.events.append(result.event)
        if result.landed:
            ad.armies = {a.id: a for a in result.state.armies}
            faction = ad.armies[a_id].faction
            left.setdefault(faction, {})[result.zone] = left.get(faction, {}).get(result.zone, 0) - result.nmp


def _sink_navies_at_sea(ad: _Admin) -> None:
    """Step 7: a navy that ends the round on a Sea (not Coast) hex is lost with its army."""
    state, events = lost_at_sea(ad.board, ad.cur_state())
    ad.armies = {a.id: a for a in state.armies}
    ad.events.extend(replace(e, phase="administration") for e in events)


def _resolve_sieges(ad: _Admin) -> None:
    """Step 4: siege resolution (:func:`engine.sieges.resolve_sieges`)."""
    inputs = ad.inputs
    logistics_now = logistics_for(ad.board, ad.cur_state(), options=ad.logistics_options)
    sieged, siege_events = resolve_sieges(
        ad.board,
        ad.cur_state(),
        SiegeInputs(
            start_state=inputs.start_state,
            paths=inputs.paths,
            start_requests=inputs.siege_starts,
            lifts=inputs.lifts | frozenset(ad.assault_losers),
            take_overs=inputs.take_overs,
            surrenders=inputs.surrenders,
            blockaded=inputs.blockaded,
            logistics=logistics_now,
            engagements=ad.engagements,
            results=tuple(inputs.results),
        ),
        ad.siege_rules,
    )
    ad.events.extend(siege_events)
    ad.armies = {a.id: a for a in sieged.armies}
    ad.control = dict(sieged.control)
    ad.sieges = sieged.sieges


def _gain_unowned_structures(ad: _Admin) -> None:
    """Step 5: an unowned structure in the ZoC of one faction's armies only passes to it; an army
    at sea is a navy, and "navies can neither gain control over structures nor prevent" others."""
    board, armies, control = ad.board, ad.armies, ad.control
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if control.get(s.name, s.start_controller) is not None:
            continue
        factions = sorted({a.faction for a in armies.values() if a.cell and not a.eliminated
                           and board.hexes[a.cell].kind == "land" and s.cell in army_zoc(board, a.cell)})
        if len(factions) == 1:
            ad.events.append(Event(ad.state.round, "administration", "control_changed", {
                "structure": s.name, "structure_kind": s.kind, "from": None, "to": factions[0], "how": "zoc",
                "start_resilience": None, "surrendered": False, "armies": []},
                f"{s.name} ({s.kind}), controlled by nobody, passes to {factions[0]}: in the ZoC of its armies only"))
            control[s.name] = factions[0]


def _place_losers(ad: _Admin) -> None:
    """Step 6: a removed loser goes to the closest (in hexes) controlled, unsieged, unblockaded
    structure on its lines; if reaching that structure would cross a sea zone where its faction's
    naval superiority is 0 (seed: "it will instead reappear 2 hexes away"), or no such structure
    exists, it goes ``retreat_hexes`` away from its enemies; else it is irrevocably eliminated.
    The closest is chosen first and the sea checked after: a farther structure reachable by land
    is not taken instead (issue 22).  Of structures equally close, one reached without crossing
    such a zone is taken (then the first by name)."""
    from bellica.engine.vae_victis.grid import grid_distance  # h3 alone (engine/vae_victis/grid.py), loaded on first use

    board, armies, inputs = ad.board, ad.armies, ad.inputs
    ad.logistics_now = logistics_for(board, ad.placed_state(), options=ad.logistics_options)
    for a_id, lost_at in sorted(ad.removed.items()):
        a = armies[a_id]
        occupied = {x.cell for x in armies.values() if x.cell is not None}
        reachable = reachable_land(board, ad.placed_state(), a.faction, lost_at)
        choices = sorted(
            (grid_distance(lost_at, board.structures[n].cell), board.structures[n].cell not in reachable, n)
            for n in ad.logistics_now.supplied.get(a.faction, ())
            if n not in inputs.blockaded and board.structures[n].cell not in occupied
        )
        if choices and not choices[0][1]:
            d, _, name = choices[0]
            armies[a_id] = replace(a, cell=board.structures[name].cell)
            ad.ev("army_placed", {"army": a_id, "cell": board.structures[name].cell, "structure": name},
                  f"army {a_id} ({a.faction}) is placed in {name}, its nearest controlled unsieged structure on its lines ({d} hexes)")
            continue
        enemies = [armies[o].cell for o in ad.opponents.get(a_id, ()) if armies[o].cell]
        dest = retreat_destination(board, lost_at, enemies, set(), occupied, (), ad.rules.retreat_hexes)
        why = (f"its nearest structure on its lines, {choices[0][2]} ({choices[0][0]} hexes), lies across a sea zone "
               f"where it has no naval superiority" if choices else "it has no controlled unsieged structure on its lines")
        if dest is not None:
            armies[a_id] = replace(a, cell=dest)
            ad.ev("army_placed", {"army": a_id, "cell": dest, "structure": None,
                                  "across_sea": choices[0][2] if choices else None},
                  f"army {a_id} ({a.faction}): {why}: it reappears {ad.rules.retreat_hexes} hexes away at {dest}")
        else:
            armies[a_id] = replace(a, cell=None, eliminated=True)
            ad.ev("army_eliminated", {"army": a_id}, f"army {a_id} ({a.faction}) has nowhere to go and is irrevocably eliminated")


def _apply_casualties(ad: _Admin) -> None:
    """Step 8, casualties: FP per % of casualties by outcome (seed, "Reduction of army strength")."""
    for r in sorted(ad.inputs.results, key=lambda r: (r.engagement, r.army)):
        a = ad.armies[r.army]
        per = casualty_fp_per_percent(ad.rules, r.outcome)
        loss = r.casualties * per
        if loss:
            ad.armies[r.army] = replace(a, strength=a.strength - loss)
            ad.ev("strength_changed", {"army": r.army, "fp": -loss, "reason": "casualties", "engagement": r.engagement},
                  f"army {r.army}: {r.casualties}% casualties in engagement {r.engagement} ({r.outcome}) cost "
                  f"{loss} FP ({per} per %): {a.strength} -> {a.strength - loss}")


def _reinforce(ad: _Admin) -> None:
    """Step 8, reinforcement of armies that neither moved nor fought, up to ``max_fp``."""
    armies, inputs = ad.armies, ad.inputs
    start = {a.id: a for a in inputs.start_state.armies}
    fought = {a for e in ad.engagements for a in e.armies} | {a for a, _ in inputs.retreats}
    end_state = ad.placed_state()
    for a_id in sorted(armies):
        a = armies[a_id]
        s0 = start.get(a_id)
        path = inputs.paths.get(a_id, ())
        moved = s0 is None or s0.cell != a.cell or len(set(path)) > 1
        if a.eliminated or a.cell is None or moved or a_id in fought:
            continue
        fp, why = reinforcement(ad.board, end_state, a, ad.logistics_now, inputs.start_state)
        fp = min(fp, max(0, ad.max_fp - a.strength))
        if fp:
            armies[a_id] = replace(a, strength=a.strength + fp)
            ad.ev("strength_changed", {"army": a_id, "fp": fp, "reason": "reinforcement"},
                  f"army {a_id} neither moved nor fought in the ZoC of {why}: +{fp} FP ({a.strength} -> {a.strength + fp})")


def _transfer_strength(ad: _Admin) -> None:
    """Step 8, transfers between armies linked at the round's start, at most ``max_transfer_fp``
    per pair; what a full receiver cannot take returns (option ``transfer_excess``)."""
    armies, inputs, cap = ad.armies, ad.inputs, ad.rules.max_transfer_fp
    start_links = logistics_for(ad.board, inputs.start_state, options=ad.logistics_options)
    per_pair: dict[frozenset[int], int] = {}
    for giver, transfers in sorted(inputs.transfers.items()):
        for t in transfers:
            pair = frozenset((giver, t.to_army))
            per_pair[pair] = per_pair.get(pair, 0) + t.fp
            if t.fp <= 0 or per_pair[pair] > cap:
                raise InputError(f"army {giver}: transfers to army {t.to_army} total {per_pair[pair]} FP; the aggregate must be 1-{cap}")
            if not start_links.linked(giver, t.to_army):
                raise InputError(f"army {giver} cannot transfer to army {t.to_army}: they were not linked by logistics lines at the round's start")
            g = armies[giver]
            fp = min(t.fp, max(0, g.strength))
            armies[giver] = replace(g, strength=g.strength - fp)
            rcv = armies[t.to_army]
            take = 0 if rcv.eliminated else min(fp, max(0, ad.max_fp - rcv.strength))
            # the FP in transit go back to the giver when the receiver is gone or (option) full
            back = fp - take if ad.rules.transfer_excess == "return" or rcv.eliminated else 0
            armies[t.to_army] = replace(rcv, strength=rcv.strength + take)
            if back:
                armies[giver] = replace(armies[giver], strength=armies[giver].strength + back)
            ad.ev("strength_transferred", {"from": giver, "to": t.to_army, "fp": take, "returned": back},
                  f"army {giver} transfers {fp} FP to army {t.to_army}: {take} arrive at the round's end"
                  + (f", {back} return ({ad.max_fp} FP cap)" if back else ""))


def _eliminate_spent_armies(ad: _Admin) -> None:
    """Step 9, miscellaneous: an army at 0 FP or less is eliminated."""
    for a_id in sorted(ad.armies):
        a = ad.armies[a_id]
        if not a.eliminated and a.strength <= 0:
            ad.armies[a_id] = replace(a, cell=None, eliminated=True, strength=0)
            ad.ev("army_eliminated", {"army": a_id}, f"army {a_id} ({a.faction}) has no strength left and is eliminated")
