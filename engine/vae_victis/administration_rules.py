"""The Administration's rules as pure functions of the board and a state.

Casualties in FP (:func:`casualty_loss`), where a retreating army goes
(:func:`retreat_destination`), reinforcement (:func:`reinforcement`) and the land a beaten army
may be placed on (:func:`reachable_land`).  :mod:`engine.vae_victis.administration` runs the
steps that use them; every number comes from ``board.rules``
(datasets/rules/vae-victis-ii.toml).
"""

from __future__ import annotations

from typing import Iterable

from bellica.engine.vae_victis.logistics import Logistics
from bellica.engine.vae_victis.model import Army, Board, CampaignState
from bellica.engine.vae_victis.naval_superiority import is_navy, superiority_level, zones_of
from bellica.engine.vae_victis.rules import AdministrationRules, default_rules
from bellica.engine.vae_victis.zoc import army_zoc, controller_of, navy_zoc, structure_zoc

__all__ = [
    "casualty_fp_per_percent",
    "casualty_loss",
    "reachable_land",
    "reinforcement",
    "retreat_destination",
]


def casualty_fp_per_percent(rules: AdministrationRules, outcome: str) -> int:
    """Seed: 1 FP per % of casualties for a won engagement, 2 FP for a drawn or lost one."""
    return rules.casualty_fp_won if outcome == "win" else rules.casualty_fp_drawn_or_lost


def casualty_loss(outcome: str, casualties: int, rules: AdministrationRules | None = None) -> int:
    """FP an army loses for ``casualties`` % in an engagement with ``outcome``."""
    return casualties * casualty_fp_per_percent(rules if rules is not None else default_rules().administration, outcome)


def _passable(board: Board, cell: str) -> bool:
    h = board.hexes.get(cell)
    return h is not None and h.kind == "land" and h.terrain in board.rules.movement.terrain_mp


def _capital_cells(board: Board, faction: str) -> list[str]:
    f = board.factions.get(faction)
    return [board.structures[c].cell for c in (f.capitals if f else ()) if c in board.structures]


def _enemy_army_zoc(board: Board, armies: Iterable[Army], faction: str) -> set[str]:
    """Hexes in the ZoC of another faction's armies, and of its navies (armies at sea)."""
    z: set[str] = set()
    for a in armies:
        if a.faction != faction and not a.eliminated and a.cell is not None:
            z |= navy_zoc(board, a.cell) if is_navy(board, a) else army_zoc(board, a.cell)
    return z


def retreat_destination(
    board: Board,
    cell: str,
    away_from: Iterable[str],
    blocked: set[str],
    occupied: set[str],
    towards: Iterable[str] = (),
    hexes: int | None = None,
) -> str | None:
    """A hex ``hexes`` away reached through passable land hexes outside ``blocked``.

    Prefer hexes farther from every one of ``away_from`` (else at least not closer),
    then the one nearest a hex of ``towards`` (the faction's capitals), then farther
    from the enemies in total, then the lowest cell id (determinism).  ``hexes``: default
    ``rules.administration.retreat_hexes``."""
    if hexes is None:
        hexes = board.rules.administration.retreat_hexes
    away_from = list(away_from)
    towards = list(towards)
    frontier = {cell}
    for _ in range(hexes):
        frontier = {
            n for c in frontier for n in board.sides.get(c, {}).values()
            if _passable(board, n) and n not in blocked
        }
    from bellica.engine.vae_victis.grid import grid_distance  # h3 alone (engine/vae_victis/grid.py), loaded on first use

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

    Town: +16 in its hex; City: +32 in its hex, +16 one hex away; +8/+16/+8 when the
    structure has no uninterrupted logistics line to a capital of the army's faction
    (``rules.administration.reinforcement`` / ``reinforcement_cut_off``).
    The seed asks for the army to be "the entire round" in the ZoC of a controlled
    structure: with ``start_state`` the structure must also have been the faction's,
    and unsieged, at the start of the round (one gained this round gives nothing yet)."""
    rules = board.rules.administration
    best, why = 0, None
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if controller_of(state, s) != army.faction or state.siege_of(s.name) is not None:
            continue
        if start_state is not None and (
            controller_of(start_state, s) != army.faction or start_state.siege_of(s.name) is not None
        ):
            continue
        if army.cell == s.cell:
            where = s.kind
        elif s.kind == "city" and army.cell in structure_zoc(board, s) and board.hexes[army.cell].kind == "land":
            where = "city_adjacent"
        else:
            continue
        supplied = logistics.is_supplied(army.faction, s.name)
        fp = (rules.reinforcement if supplied else rules.reinforcement_cut_off)[where]
        if fp > best:
            best = fp
            why = f"{s.name} ({s.kind}, {'on' if supplied else 'cut off from'} its faction's logistics lines)"
    return best, why


def reachable_land(board: Board, state: CampaignState, faction: str, cell: str) -> frozenset[str]:
    """The land hexes an army beaten at ``cell`` may be placed on: its own land mass, and every land
    mass it reaches across water hexes of zones where ``faction``'s naval superiority is at least
    ``rules.naval.retreat_min_superiority`` (seed: a beaten army does not cross a sea zone where its
    faction's level is 0).  Land masses are connected land hexes (Peaks and Lakes included as land is)."""
    floor = board.rules.naval.retreat_min_superiority
    masses = _land_masses(board)
    if cell not in masses:
        return frozenset()
    mass = masses[cell]
    reached = {mass}
    open_water = {c for c, h in board.hexes.items() if h.kind in ("coast", "sea")
                  and any(superiority_level(board, state, z, faction) >= floor for z in zones_of(board, c))}
    frontier = [n for c, m in masses.items() if m == mass for n in board.sides.get(c, {}).values() if n in open_water]
    seen = set(frontier)
    while frontier:
        c = frontier.pop()
        for n in board.sides.get(c, {}).values():
            if n in masses:
                reached.add(masses[n])
            elif n in open_water and n not in seen:
                seen.add(n)
                frontier.append(n)
    return frozenset(c for c, m in masses.items() if m in reached)


def _land_masses(board: Board) -> dict[str, int]:
    """{land hex: the number of its land mass} (connected land hexes), kept on the board."""
    out = board.derived.get("land_masses")
    if out is None:
        out: dict[str, int] = {}
        mark = -1
        for start in sorted(c for c, h in board.hexes.items() if h.kind == "land"):
            if start in out:
                continue
            mark += 1
            out[start] = mark
            stack = [start]
            while stack:
                c = stack.pop()
                for n in board.sides.get(c, {}).values():
                    if n not in out and board.hexes[n].kind == "land":
                        out[n] = mark
                        stack.append(n)
        board.derived["land_masses"] = out
    return out
