"""Land movement, the simulation: the MP clock's movers and the steps run every tick.

:func:`engine.vae_victis.movement.resolve_movement` builds the :class:`_Sim` and calls these
steps (its module doc states the rules they apply); :func:`_report` turns the finished
simulation into a :class:`MovementResult`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from bellica.engine.vae_victis.costs import MoveCost
from bellica.engine.vae_victis.model import Army, Board, CampaignState, Event, Halt
from bellica.engine.vae_victis.movement_entry import PRIORITY_STEPS, _deciding_step, entry_cost, priority_key
from bellica.engine.vae_victis.rules import MovementRules
from bellica.engine.vae_victis.straits import crossing_problem
from bellica.engine.vae_victis.zoc import army_zoc

__all__ = [
    "MovementResult",
]


@dataclass(frozen=True)
class MovementResult:
    state: CampaignState
    events: tuple[Event, ...]
    mp_spent: Mapping[int, int]
    paths: Mapping[int, tuple[str, ...]]  # hexes entered, starting hex first (0s add nothing)
    halted: Mapping[int, Halt]
    timeline: tuple[Mapping[int, str], ...] = ()
    """Positions at the start (index 0) and at the end of every tick 1..12, as simulated,
    before armies that would end on a friendly army go back (see :attr:`stepped_back`)."""
    stepped_back: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    """Armies that went back along their path at the end, with the hexes they gave up."""


# --- the simulation -------------------------------------------------------------------


@dataclass
class _Move:
    index: int  # 1-based number in the move string
    clock: int
    target: str | None  # None for a 0
    cost: MoveCost
    start: int  # MP spent before it
    end: int  # tick at whose end it happens
    strait: str | None = None  # the strait hex crossed: the move is two orders, into it and out
    span: int = 1  # orders the move uses (2 for a strait crossing)


@dataclass
class _Mover:
    army: Army
    moves: tuple[int, ...]
    cell: str
    next_index: int = 0
    spent: int = 0
    current: _Move | None = None
    done: bool = False
    halt: Halt | None = None
    arrivals: list = field(default_factory=list)  # (tick, cell, spent before the move, move number)
    crossed: list = field(default_factory=list)  # (number of arrivals after landing, strait hex)
    by_sea: bool = False  # embarking: holds its hex, never moves on land, exerts no army ZoC


@dataclass
class _Sim:
    """Everything the movement steps share while the MP clock runs."""

    board: Board
    state: CampaignState
    rules: MovementRules
    logistics: Mapping[str, frozenset]
    navy: Mapping[str, frozenset]
    movers: dict[int, _Mover]
    structure_zoc: dict[str, list]  # cell -> enemy-structure ZoC sources (fixed during movement)
    events: list[Event] = field(default_factory=list)
    fixed_positions: Mapping[int, str] = field(default_factory=dict)  # armies not moving on land: where they stand
    timeline: list[dict[int, str]] = field(default_factory=list)

    def cost(self, m: _Mover, frm: str, to: str) -> MoveCost:
        return entry_cost(self.board, frm, to, m.army.faction, logistics_road_edges=self.logistics,
                          navy_zoc=self.navy, options=self.rules)

    def plan(self, m: _Mover, frm: str, index: int) -> tuple[str | None, MoveCost, str | None, str | None]:
        """Order ``index`` (0-based) of army ``m`` made from ``frm``: (hex entered, its cost, strait
        crossed, why the crossing is refused).  A "0" enters nothing.  The orders passed the legality
        check, so a move into water is the first half of a strait crossing."""
        clock = m.moves[index]
        if clock == 0:
            still = self.rules.stand_still_mp
            return None, MoveCost(still, still, f"stand still {still}"), None, None
        target = self.board.sides[frm][clock]
        if self.board.hexes[target].kind == "land":
            return target, self.cost(m, frm, target), None, None
        strait, land_to = target, self.board.sides[target][m.moves[index + 1]]
        positions = dict(self.fixed_positions)
        positions.update({aid: o.cell for aid, o in self.movers.items()})
        refused = crossing_problem(self.board, self.state, m.army.faction, strait, land_to, positions=positions)
        return land_to, self.cost(m, strait, land_to), strait, refused

    def enemy_army_zoc_at(self, positions: Mapping[int, str]) -> dict[str, list[tuple[str, int]]]:
        out: dict[str, list[tuple[str, int]]] = {}
        for aid, c in positions.items():
            if self.movers[aid].by_sea:
                continue
            for z in army_zoc(self.board, c):
                out.setdefault(z, []).append((self.movers[aid].army.faction, aid))
        return out

    def zoc_halters(self, faction: str, cell: str, army_zoc_map) -> list[str]:
        names = [f"army {aid} ({f})" for f, aid in sorted(army_zoc_map.get(cell, []), key=lambda x: x[1])
                 if f != faction]
        names += [src.describe() for src in self.structure_zoc.get(cell, []) if src.faction != faction]
        return names

    def can_pass_through(self, m: _Mover, cell: str, tick: int, army_zoc_map) -> bool:
        """Would the army, having entered ``cell`` at ``tick``, leave it with the MP it has?"""
        if self.zoc_halters(m.army.faction, cell, army_zoc_map):
            return False
        if m.current is not None and m.current.strait is not None:
            return False  # it stops after crossing a strait
        zeros = 0
        first = m.next_index + (m.current.span if m.current is not None else 1)
        for i in range(first, len(m.moves)):
            if m.moves[i] == 0:
                zeros += 1
                continue
            if self.board.sides.get(cell, {}).get(m.moves[i]) is None:
                return False
            _to, cost, _strait, refused = self.plan(m, cell, i)
            if refused:
                return False
            return tick + zeros * self.rules.stand_still_mp + cost.mp <= self.rules.points_per_round
        return False

    def priority(self, m: _Mover, target: str) -> tuple:
        return priority_key(self.board, self.state, m.army, m.cell, target, m.current.cost.raw, m.current.start)


def _stop(m: _Mover, halt: Halt | None) -> None:
    m.done = True
    m.current = None
    if halt is not None and m.halt is None:
        m.halt = halt


def _start_next_moves(sim: _Sim) -> None:
    """Armies between moves start their next one, or stop when it costs more MP than they have
    left (seed: a move never skips to a cheaper later one)."""
    mp_total = sim.rules.points_per_round
    for aid in sorted(sim.movers):
        m = sim.movers[aid]
        if m.done or m.current is not None:
            continue
        if m.next_index >= len(m.moves):
            _stop(m, None)
            continue
        clock = m.moves[m.next_index]
        target, mc, strait, refused = sim.plan(m, m.cell, m.next_index)
        if refused:
            _stop(m, Halt("strait_closed", f"stopped: may not cross the strait at {strait} (moves {m.next_index + 1}-"
                                           f"{m.next_index + 2}): {refused}", m.next_index + 1, m.cell))
            continue
        left = mp_total - m.spent
        if mc.mp > left:
            what = f"moves {m.next_index + 1}-{m.next_index + 2} (across the strait at {strait})" if strait else \
                f"move {m.next_index + 1} (clock {clock})"
            _stop(m, Halt("mp", f"stopped: {what} costs {mc.mp} MP ({mc.why}) "
                                f"but only {left} MP are left", m.next_index + 1, m.cell))
            continue
        m.current = _Move(m.next_index + 1, clock, target, mc, m.spent, m.spent + mc.mp, strait, 2 if strait else 1)


def _spend_stand_stills(sim: _Sim, tick: int) -> dict[int, str]:
    """Moves that happen at the end of ``tick``: a "0" is spent in place; returns {army: hex it enters}."""
    completing = [m for _, m in sorted(sim.movers.items()) if m.current is not None and m.current.end == tick]
    for m in completing:
        if m.current.target is None:
            m.spent += m.current.cost.mp
            m.next_index += m.current.span
            m.current = None
    return {m.army.id: m.current.target for m in completing if m.current is not None}


def _resolve_contests(sim: _Sim, tick: int, entries: dict[int, str]) -> None:
    """Armies of different factions moving into one hex at the same time: the seed's seven
    steps pick the one that enters; the others stop for the round (removed from ``entries``)."""
    for target in sorted(set(entries.values())):
        if sim.rules.contest_window == "move":
            contenders = [m for _, m in sorted(sim.movers.items())
                          if m.current is not None and m.current.target == target]
        else:
            contenders = [sim.movers[aid] for aid, t in sorted(entries.items()) if t == target]
        if len({m.army.faction for m in contenders}) < 2:
            continue
        keyed = sorted((sim.priority(m, target), m) for m in contenders)
        (wkey, winner), rest = keyed[0], keyed[1:]
        losers = [(k, m) for k, m in rest if m.army.faction != winner.army.faction]
        step = _deciding_step(wkey, losers[0][0])
        for k, m in losers:
            s = _deciding_step(wkey, k)
            _stop(m, Halt("contest", f"lost the hex {target} to army {winner.army.id} ({winner.army.faction}) "
                                     f"at MP {tick}: step {s + 1}, {PRIORITY_STEPS[s]}", m.current.index,
                          target, (f"army {winner.army.id}",)))
            entries.pop(m.army.id, None)
        sim.events.append(Event(sim.state.round, "movement", "contest", {
            "cell": target, "tick": tick, "winner": winner.army.id,
            "losers": [m.army.id for _, m in losers], "step": step + 1,
        }, f"armies {', '.join(str(m.army.id) for m in contenders)} moved into {target} at the same time "
           f"(MP {tick}); army {winner.army.id} goes first by step {step + 1} ({PRIORITY_STEPS[step]}), "
           f"{', '.join(str(m.army.id) for _, m in losers)} move no further"))


def _entry_refusals(sim: _Sim, tick: int, entries: Mapping[int, str]) -> dict[int, Halt]:
    """Entries that cannot happen: one army per hex, except a friendly army passing through."""
    movers = sim.movers
    failed: dict[int, Halt] = {}
    while True:
        positions = {aid: (entries[aid] if aid in entries and aid not in failed else m.cell)
                     for aid, m in movers.items()}
        zmap = sim.enemy_army_zoc_at(positions)
        at: dict[str, list[int]] = {}
        for aid, c in positions.items():
            at.setdefault(c, []).append(aid)
        new_fail: dict[int, Halt] = {}
        for aid in sorted(entries):
            if aid in failed:
                continue
            m, target = movers[aid], entries[aid]
            others = [o for o in at[target] if o != aid]
            enemies = [o for o in others if movers[o].army.faction != m.army.faction]
            swap = [o for o, t in entries.items() if o not in failed and t == m.cell and movers[o].cell == target
                    and movers[o].army.faction != m.army.faction]
            if swap:
                new_fail[aid] = Halt("occupied", f"army {swap[0]} ({movers[swap[0]].army.faction}) is coming the "
                                     f"other way between {m.cell} and {target}: armies cannot pass each other",
                                     m.current.index, target, (f"army {swap[0]}",))
                continue
            stayers = [o for o in others if o not in entries or o in failed]
            if enemies:
                e = min(enemies)
                new_fail[aid] = Halt("occupied", f"hex {target} is held by army {e} ({movers[e].army.faction})",
                                     m.current.index, target, (f"army {e}",))
                continue
            if not others or sim.can_pass_through(m, target, tick, zmap):
                continue
            # It would end the round (or halt) here on a friendly army: only one may.
            enders = [o for o in others if o in entries and o not in failed
                      and not sim.can_pass_through(movers[o], target, tick, zmap)]
            if stayers:
                holder = min(stayers)
            else:
                holder = sorted((sim.priority(movers[o], target), o) for o in enders + [aid])[0][1]
                if holder == aid:
                    continue
            new_fail[aid] = Halt("friendly", f"would end the round in hex {target} with friendly army {holder}; "
                                 f"stops in {m.cell}", m.current.index, target, (f"army {holder}",))
        if not new_fail:
            return failed
        failed.update(new_fail)


def _settle_entries(sim: _Sim, tick: int, entries: dict[int, str]) -> None:
    """Refused entries stop their army; the others enter their hex and pay its MP."""
    for aid, halt in sorted(_entry_refusals(sim, tick, entries).items()):
        _stop(sim.movers[aid], halt)
        entries.pop(aid)
    for aid, target in sorted(entries.items()):
        m = sim.movers[aid]
        m.arrivals.append((tick, target, m.current.start, m.current.index))
        m.spent += m.current.cost.mp
        m.cell = target
        m.next_index += m.current.span
        strait, index = m.current.strait, m.current.index
        m.current = None
        if strait is not None:
            # Seed: "the army will be considered to have completed its movement in that land hex".
            _stop(m, Halt("strait", f"crossed the strait at {strait} into {target} and stops there (a strait "
                                    "crossing ends the army's movement)", index, target))
            m.crossed.append((len(m.arrivals), strait))


def _halt_in_zoc(sim: _Sim, tick: int, entries: Mapping[int, str]) -> None:
    """Armies that entered an enemy ZoC (positions after this tick) halt; with the option
    ``halt_when_enemy_arrives`` so do armies an enemy army moved next to."""
    positions = {aid: m.cell for aid, m in sim.movers.items()}
    zmap = sim.enemy_army_zoc_at(positions)
    for aid in sorted(entries):
        m = sim.movers[aid]
        by = sim.zoc_halters(m.army.faction, m.cell, zmap)
        if by:
            _stop(m, Halt("zoc", f"halted by ZoC of {', '.join(by)}", m.arrivals[-1][3], m.cell, tuple(by)))
    if sim.rules.halt_when_enemy_arrives:
        before = sim.enemy_army_zoc_at(sim.timeline[-1])
        for aid, m in sorted(sim.movers.items()):
            if m.done or aid in entries:
                continue
            now = [f"army {o} ({f})" for f, o in zmap.get(m.cell, []) if f != m.army.faction]
            was = [o for f, o in before.get(m.cell, []) if f != m.army.faction]
            if now and not was:
                _stop(m, Halt("arrival", f"halted: {', '.join(now)} moved next to it at MP {tick}",
                              m.current.index if m.current else None, m.cell, tuple(now)))
    sim.timeline.append(positions)


def _stop_unfinished(sim: _Sim) -> None:
    """Armies with moves left when the clock runs out stop where they are."""
    for _, m in sorted(sim.movers.items()):
        if not m.done and m.next_index < len(m.moves):
            clock = m.moves[m.next_index]
            _stop(m, Halt("mp", f"stopped: no MP left for move {m.next_index + 1} (clock {clock})",
                          m.next_index + 1, m.cell))


def step_back(movers: Mapping[int, Any], standing: Mapping[int, str],
              give_back: Callable[[int, int, tuple], None]) -> dict[int, list[str]]:
    """No two armies end the round in one hex: while two share one (the first hex by name), the
    later arrival of those that moved goes back along its path, one hex at a time; one displaced
    already goes back first.  ``movers``: {army: its record, with ``cell`` and ``arrivals`` (tick,
    hex, ...), the first where it started}; ``standing``: {army: hex} of those that never move;
    ``give_back(army, other, arrival)``: the army gives up ``arrival`` (popped) for the hex of its
    previous one, where ``other`` (the lowest other army of the hex) stood.  Returns the hexes each
    army gave up."""
    stepped: dict[int, list[str]] = {}
    displaced: set[int] = set()
    while True:
        at: dict[str, list[int]] = {}
        for aid, m in movers.items():
            at.setdefault(m.cell, []).append(aid)
        for aid, cell in standing.items():
            at.setdefault(cell, []).append(aid)
        shared = sorted(c for c, ids in at.items() if len(ids) > 1)
        if not shared:
            return stepped
        ids = at[shared[0]]
        movable = [i for i in ids if i in movers and len(movers[i].arrivals) > 1]
        yielder = max(movable, key=lambda i: (i in displaced, movers[i].arrivals[-1][0], i))
        arrival = movers[yielder].arrivals.pop()
        stepped.setdefault(yielder, []).append(arrival[1])
        displaced.add(yielder)
        give_back(yielder, min(i for i in ids if i != yielder), arrival)


def _step_back_from_shared_hexes(sim: _Sim) -> dict[int, list[str]]:
    """No two armies end in one hex: the later arrival goes back along its path (:func:`step_back`;
    its MP spent return); returns the hexes each army gave up."""
    movers = sim.movers

    def give_back(yielder: int, other: int, arrival: tuple) -> None:
        m = movers[yielder]
        _tick, cell, spent_before, _ = arrival
        m.cell = m.arrivals[-1][1]
        m.spent = spent_before
        m.halt = Halt("friendly" if movers[other].army.faction == m.army.faction else "occupied",
                      f"would have ended the round in hex {cell} with army {other}; goes back to {m.cell}",
                      None, cell, (f"army {other}",))

    return step_back(movers, {}, give_back)


def _report(sim: _Sim, stepped: Mapping[int, list[str]]) -> MovementResult:
    """The new state, one event per army in words, and the result's tables."""
    board, state, movers = sim.board, sim.state, sim.movers
    movers = {aid: m for aid, m in movers.items() if not m.by_sea}  # embarking armies: the naval simulation's
    mp_spent = {aid: m.spent for aid, m in sorted(movers.items())}
    paths = {aid: tuple(a[1] for a in m.arrivals) for aid, m in sorted(movers.items())}
    halted = {aid: m.halt for aid, m in sorted(movers.items()) if m.halt is not None}
    new_armies = tuple(replace(a, cell=movers[a.id].cell) if a.id in movers else a for a in state.armies)

    def label(cell: str) -> str:
        s = board.structure_at(cell)
        return f"{cell} ({s.name})" if s else cell

    for aid, m in sorted(movers.items()):
        path = paths[aid]
        moved = len(path) > 1
        text = f"army {aid} ({m.army.faction}) " + (
            f"moved {' → '.join(map(label, path))}" if moved else f"stayed in {label(path[0])}"
        ) + f", spent {m.spent} MP"
        if m.halt is not None:
            text += f", {m.halt.text}"
        straits = [s for n, s in m.crossed if n <= len(m.arrivals)]  # not those it went back across
        if straits and (m.halt is None or m.halt.kind != "strait"):
            text += f" (it crossed the strait at {', '.join(straits)})"
        sim.events.append(Event(state.round, "movement", "army_moved" if moved else "army_stayed", {
            "army": aid, "faction": m.army.faction, "path": list(path), "mp_spent": m.spent,
            "halt": None if m.halt is None else {"kind": m.halt.kind, "move": m.halt.move, "cell": m.halt.cell,
                                                 "by": list(m.halt.by), "text": m.halt.text},
            "stepped_back": stepped.get(aid, []),
            "straits": straits,
        }, text))
    return MovementResult(
        state=replace(state, armies=new_armies),
        events=tuple(sim.events),
        mp_spent=mp_spent,
        paths=paths,
        halted=halted,
        timeline=tuple(sim.timeline),
        stepped_back={aid: tuple(c) for aid, c in sorted(stepped.items())},
    )
