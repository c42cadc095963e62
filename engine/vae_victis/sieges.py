"""Sieges, Resilience, assaults and surrender (seed: "Sieges", "Assaults").

:func:`resolve_sieges` is the Siege resolution part of the Administration phase, in
this order (docs/rules/administration.md says why):

1. assaults: a besieging army that won its assault and lost no other engagement
   takes the structure; an assault lost means that army lifts its siege;
2. running sieges: the armies that besieged the full round (in the siege at the
   round's start, never letting the structure out of their ZoC while moving, and
   still there) each cost the structure 1 Resilience, after suffering attrition of
   10 x Resilience when more than 12 MP from their faction's lines; Resilience
   below 1 hands control to the besiegers.  A siege no army besieges any more is
   lifted, or continued at the current Resilience by the armies of one faction
   (another one, or the besieging faction's armies that were not in the siege)
   that have the structure in their ZoC, when that faction chooses so;
3. new sieges (and armies joining a running siege) as the players ask;
4. surrenders chosen by the controlling faction.

Every number (Resilience modifiers, attrition, the blockade's -1) comes from
``board.rules.sieges`` (datasets/rules/vae-victis-ii.toml, the scenario's ``[rules]``
over it), the same values the ``structure_resilience`` SQL view reads.

Control changes are events of kind ``control_changed`` whose data the victory
points read (``structure_kind``, ``from``, ``to``, ``how``, ``start_resilience``,
``surrendered``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from bellica.engine.vae_victis.battles import Engagement, EngagementResult
from bellica.engine.vae_victis.logistics import Logistics
from bellica.engine.vae_victis.model import Board, CampaignState, Event, Siege
from bellica.engine.vae_victis.rules import SiegeRules
from bellica.engine.vae_victis.zoc import army_zoc, controller_of, kept_within_army_zoc
from bellica.geo.errors import InputError

__all__ = [
    "SiegeInputs",
    "assault_effects",
    "effective_resilience",
    "resolve_sieges",
    "siege_refusal",
    "start_resilience",
]

@dataclass(frozen=True)
class SiegeInputs:
    """What the siege resolution needs besides the board and the state after battles.

    ``start_state``: the state at the round's start (who besieged then);
    ``paths``: the hexes each army entered this round, its start hex first;
    ``start_requests``: {army: structure} sieges to start or join (the players' choice);
    ``lifts``: armies lifting their siege by order; ``take_overs``: structures whose
    running siege another faction continues at the current Resilience;
    ``surrenders``: structures their controller surrenders; ``blockaded``: structures
    blockaded now (naval issue hook); ``logistics``: for the 12 MP attrition rule;
    ``engagements``/``results``: for assaults.
    """

    start_state: CampaignState
    paths: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    start_requests: Mapping[int, str] = field(default_factory=dict)
    lifts: frozenset[int] = frozenset()
    take_overs: frozenset[str] = frozenset()
    surrenders: frozenset[str] = frozenset()
    blockaded: frozenset[str] = frozenset()
    logistics: Logistics | None = None
    engagements: tuple[Engagement, ...] = ()
    results: tuple[EngagementResult, ...] = ()


def start_resilience(board: Board, structure: str, options: SiegeRules | None = None) -> tuple[int, tuple[tuple[str, int], ...]]:
    """Resilience at the start of a siege (before any blockade) and its parts.

    Seed: Ravenna 4 (City +2, Marshes +1, coast +1); Hipponium -1 (Town -1, Farmlands -1, coast +1).
    ``options``: the siege rules, default ``board.rules.sieges``."""
    s = board.structures[structure]
    mods = (options if options is not None else board.rules.sieges).resilience
    parts = [(s.kind, mods.get(s.kind, 0))]
    terrain = board.hexes[s.cell].terrain
    if terrain in mods:
        parts.append((terrain, mods[terrain]))
    coastal = s.coastal or any(board.hexes[n].kind == "coast" for n in board.sides.get(s.cell, {}).values())
    if coastal:
        parts.append(("adjacent to coast", mods.get("coast", 0)))
    if s.capital:
        parts.append(("capital", mods.get("capital", 0)))
    return sum(v for _, v in parts), tuple(parts)


def effective_resilience(siege: Siege, blockaded: bool, rules: SiegeRules) -> int:
    """Resilience with the blockade adjustment (``rules.blockade_resilience``, the seed's -1)
    while a navy of another faction blockades it."""
    return siege.resilience + (rules.blockade_resilience if blockaded else 0)


def _on_land(board: Board, a) -> bool:
    """A live army on land.  Navies (armies at sea) take no part in sieges: "navies can neither gain
    control over structures nor prevent any other factions' armies from gaining control" (seed)."""
    return not a.eliminated and a.cell is not None and board.hexes[a.cell].kind == "land"


def _in_other_faction_army_zoc(board: Board, state: CampaignState, cell: str, faction: str) -> list[int]:
    return [
        a.id for a in state.armies
        if _on_land(board, a) and a.faction != faction and cell in army_zoc(board, a.cell)
    ]


def siege_refusal(board: Board, state: CampaignState, army_id: int, structure: str) -> str | None:
    """Why ``army_id`` may not start (or join) a siege of ``structure`` now; None when it may."""
    if structure not in board.structures:
        return f"there is no structure {structure!r}"
    a = state.army(army_id)
    s = board.structures[structure]
    if a.eliminated or a.cell is None:
        return f"army {army_id} is not on the map"
    if not _on_land(board, a):
        return f"it is a navy at sea in {a.cell} (navies neither besiege nor gain control); debark it first"
    controller = controller_of(state, s)
    if controller is None:
        return f"{structure} is controlled by nobody (it is gained by ZoC at the round's end, not by siege)"
    if controller == a.faction:
        return f"{structure} is controlled by {a.faction}, the army's own faction"
    if s.cell not in army_zoc(board, a.cell):
        return f"{structure} is not in army {army_id}'s ZoC"
    others = _in_other_faction_army_zoc(board, state, s.cell, a.faction)
    if others:
        return f"{structure} is also in the ZoC of army {', '.join(map(str, others))} of another faction"
    siege = state.siege_of(structure)
    if siege is not None and siege.faction != a.faction:
        return f"{structure} is already besieged by {siege.faction}: one faction at a time"
    return None


def assault_effects(
    engagements: Iterable[Engagement], results: Iterable[EngagementResult]
) -> tuple[dict[str, list[int]], set[int]]:
    """({structure: armies that take it}, armies that lost their assault).

    Seed: an assault won by an army that loses no other engagement gains control;
    a draw continues the siege; a loss lifts the siege for that army."""
    engagements = tuple(engagements)
    outcome = {(r.engagement, r.army): r.outcome for r in results}
    takers: dict[str, list[int]] = {}
    losers: set[int] = set()
    for e in engagements:
        if e.assault is None:
            continue
        o = outcome.get((e.number, e.army_a))
        lost_other = any(
            outcome.get((f.number, e.army_a)) == "loss" for f in engagements if f.assault is None and e.army_a in f.armies
        )
        if o == "win" and not lost_other:
            takers.setdefault(e.assault, []).append(e.army_a)
        elif o == "loss":
            losers.add(e.army_a)
    return takers, losers


def _control_event(board, state, structure, to, how, siege: Siege | None, surrendered=False, armies=()) -> Event:
    s = board.structures[structure]
    frm = controller_of(state, s)
    data = {
        "structure": structure,
        "structure_kind": s.kind,
        "from": frm,
        "to": to,
        "how": how,
        "start_resilience": siege.start_resilience if siege else None,
        "surrendered": surrendered,
        "armies": list(armies),
    }
    why = {
        "assault": f"army {', '.join(map(str, armies))} won the assault",
        "siege": "its Resilience fell below 1",
        "surrender": f"{frm} surrendered it",
        "zoc": "it is in the ZoC of that faction's armies only",
    }[how]
    text = f"{structure} ({s.kind}) passes from {frm or 'nobody'} to {to}: {why}"
    return Event(state.round, "administration", "control_changed", data, text)


@dataclass
class _SiegeRun:
    """What the siege resolution changes as it goes: control, armies, sieges and the events said."""

    board: Board
    state: CampaignState
    inputs: SiegeInputs
    options: SiegeRules
    control: dict
    armies: dict
    sieges: dict
    events: list = field(default_factory=list)

    def ev(self, kind, data, text) -> None:
        self.events.append(Event(self.state.round, "administration", kind, data, text))

    def set_control(self, structure, to, how, siege, surrendered=False, who=()) -> None:
        cur = replace(self.state, control=self.control)
        self.events.append(_control_event(self.board, cur, structure, to, how, siege, surrendered, who))
        self.control[structure] = to
        self.sieges.pop(structure, None)

    def current(self) -> CampaignState:
        return replace(self.state, control=self.control, armies=tuple(self.armies[i] for i in sorted(self.armies)),
                       sieges=tuple(self.sieges.values()))


def resolve_sieges(
    board: Board, state: CampaignState, inputs: SiegeInputs, options: SiegeRules | None = None
) -> tuple[CampaignState, tuple[Event, ...]]:
    """The Siege resolution part of the Administration phase (see the module doc).
    ``options``: the siege rules, default ``board.rules.sieges``."""
    run = _SiegeRun(board, state, inputs, options if options is not None else board.rules.sieges,
                    dict(state.control), {a.id: a for a in state.armies}, {s.structure: s for s in state.sieges})
    # 1. assaults
    takers, assault_losers = assault_effects(inputs.engagements, inputs.results)
    for structure, who in sorted(takers.items()):
        siege = run.sieges.get(structure)
        if siege is not None:
            run.set_control(structure, siege.faction, "assault", siege, who=who)
    # 2. running sieges
    start_armies = {s.structure: set(s.armies) for s in inputs.start_state.sieges}
    for name in sorted(list(run.sieges)):
        _run_siege(run, name, start_armies.get(name, set()), assault_losers)
    # 3. new sieges and armies joining
    _start_sieges(run)
    # 4. surrenders
    for name in sorted(inputs.surrenders):
        siege = run.sieges.get(name)
        if siege is None:
            raise InputError(f"{name} cannot surrender: it is not besieged")
        run.set_control(name, siege.faction, "surrender", siege, surrendered=True, who=siege.armies)

    new_state = replace(
        state,
        control=run.control,
        armies=tuple(run.armies[i] for i in sorted(run.armies)),
        sieges=tuple(sorted(run.sieges.values(), key=lambda s: s.structure)),
    )
    return new_state, tuple(run.events)


def _besiegers(run: _SiegeRun, siege: Siege, cell, started: set, assault_losers) -> list:
    """The armies of ``siege`` that keep it this round: ashore, in it since the round began, not
    lifted or beaten in an assault, the structure in their ZoC and kept there all along their path."""
    inputs, board = run.inputs, run.board
    out = []
    for a_id in siege.armies:
        a = run.armies.get(a_id)
        path = inputs.paths.get(a_id, (a.cell,) if a else ())
        if (
            a is not None and _on_land(board, a)
            and a_id in started
            and a_id not in inputs.lifts and a_id not in assault_losers
            and cell in army_zoc(board, a.cell)
            and kept_within_army_zoc(board, path, cell)
        ):
            out.append(a_id)
    return out


def _lose_siege(run: _SiegeRun, name: str, siege: Siege, cell, assault_losers) -> None:
    """No besieging army keeps ``siege``: taken over by another army where its faction chooses, else lifted."""
    # Seed: the siege is lifted once no army but the controller's has the structure in its
    # ZoC.  Armies that were in this siege and lost it (moved away, lifted, lost their
    # assault) do not keep it; any other army may continue it at the current Resilience
    # when its faction chooses to (take_overs), the besieging faction itself included.
    armies, inputs = run.armies, run.inputs
    keepers = [
        i for i in _in_other_faction_army_zoc(run.board, run.state, cell, run.control.get(name) or "")
        if not (armies[i].faction == siege.faction
                and (i in siege.armies or i in inputs.lifts or i in assault_losers))
    ]
    newcomers = sorted({armies[i].faction for i in keepers})
    if name in inputs.take_overs and len(newcomers) == 1:
        f = newcomers[0]
        ids = tuple(sorted(i for i in keepers if armies[i].faction == f))
        run.sieges[name] = replace(siege, faction=f, armies=ids, started_round=run.state.round)
        run.ev("siege_taken_over", {"structure": name, "from": siege.faction, "to": f, "armies": list(ids),
                                    "resilience": siege.resilience},
               (f"{f} takes over the siege of {name} from {siege.faction}" if f != siege.faction else
                f"{f} continues the siege of {name} with army {', '.join(map(str, ids))}")
               + f" at Resilience {siege.resilience}")
    else:
        run.sieges.pop(name)
        run.ev("siege_lifted", {"structure": name, "faction": siege.faction, "armies": list(siege.armies)},
               f"the siege of {name} by {siege.faction} is lifted: no besieging army keeps it in its ZoC")


def _attrition(run: _SiegeRun, name: str, besiegers: list, resilience: int) -> None:
    """Each besieger farther than the rules allow from its lines loses FP by the Resilience."""
    options, logistics = run.options, run.inputs.logistics
    for a_id in besiegers:
        dist = logistics.army_distance.get(a_id, math.inf) if logistics else math.inf
        if dist > options.attrition_beyond_mp:
            loss = options.attrition_fp_per_resilience * resilience
            a = run.armies[a_id]
            run.armies[a_id] = replace(a, strength=max(0, a.strength - loss))
            run.ev("siege_attrition", {"army": a_id, "structure": name, "fp": loss,
                                       "distance_mp": None if math.isinf(dist) else dist},
                   f"army {a_id} loses {loss} FP to attrition besieging {name} (Resilience {resilience}), "
                   f"{'beyond reach of' if math.isinf(dist) else f'{dist:g} MP from'} its lines")


def _run_siege(run: _SiegeRun, name: str, started: set, assault_losers) -> None:
    """A running siege this round: lost, or its besiegers wear its Resilience down (and it falls below 1)."""
    siege = run.sieges[name]
    cell = run.board.structures[name].cell
    besiegers = _besiegers(run, siege, cell, started, assault_losers)
    gone = [a for a in siege.armies if a not in besiegers]
    if not besiegers:
        _lose_siege(run, name, siege, cell, assault_losers)
        return
    blockaded = name in run.inputs.blockaded
    before = effective_resilience(siege, blockaded, run.options)
    if before >= 1:
        _attrition(run, name, besiegers, before)
    new = replace(siege, resilience=siege.resilience - len(besiegers), armies=tuple(besiegers))
    after = effective_resilience(new, blockaded, run.options)
    run.ev("siege_progress", {"structure": name, "faction": siege.faction, "armies": besiegers,
                              "resilience_before": before, "resilience_after": after, "left": gone},
           f"{name}: {len(besiegers)} besieging army{'ies' if len(besiegers) > 1 else ''} "
           f"({', '.join(map(str, besiegers))}) bring Resilience from {before} to {after}")
    run.sieges[name] = new
    if after < 1:
        run.set_control(name, siege.faction, "siege", siege, who=besiegers)


def _start_sieges(run: _SiegeRun) -> None:
    """The armies asking to siege: each starts a siege or joins the running one (refused where it may not)."""
    cur = run.current()
    for a_id, name in sorted(run.inputs.start_requests.items()):
        why = siege_refusal(run.board, cur, a_id, name)
        if why:
            raise InputError(f"army {a_id} cannot siege {name}: {why}")
        a = run.armies[a_id]
        siege = run.sieges.get(name)
        if siege is None:
            value, parts = start_resilience(run.board, name, run.options)
            run.sieges[name] = Siege(name, a.faction, (a_id,), value, value, run.state.round)
            run.ev("siege_started", {"structure": name, "faction": a.faction, "armies": [a_id], "resilience": value,
                                     "parts": [list(p) for p in parts]},
                   f"army {a_id} ({a.faction}) starts sieging {name}: Resilience {value} ("
                   + ", ".join(f"{k} {v:+d}" for k, v in parts) + ")")
        elif a_id not in siege.armies:
            run.sieges[name] = replace(siege, armies=tuple(sorted(siege.armies + (a_id,))))
            run.ev("siege_joined", {"structure": name, "army": a_id}, f"army {a_id} joins the siege of {name}")
        cur = replace(cur, sieges=tuple(run.sieges.values()))
