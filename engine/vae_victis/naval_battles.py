"""Naval battles (the seed's "Naval battles" section): random numbers, battle groups,
Naval Battle Strengths, outcomes, the losers' retreat to port, draws and the winners' advance.

Everything here is pure: functions of the static :class:`~engine.vae_victis.model.Board`, a
:class:`~engine.vae_victis.model.CampaignState` and the round's inputs.  Every number comes from
``board.rules.naval`` (datasets/rules/vae-victis-ii.toml): the random numbers' modulus and
minimum armies, the outcome table, the draw retreat, the least superiority of a retreat port and
the options ``numbers_exhausted`` and ``no_port``.

The seed's rules, and the decisions taken where it is silent (docs/rules/naval.md, "Naval battles"):

* **When.**  Naval battles are fought right after movement (phase 3 needs no game); their
  retreats and advances happen then, before the land engagements are listed.
* **Who fights whom.**  A battle is every navy linked to another through enemy navies' ZoC
  (:func:`battle_groups`; the ZoC of a navy is its hex and every hex around, ``zoc.navy_zoc``):
  the seed's #1 next to #9 and #10, #10 next to #2, is one battle of four navies.  Navies of one
  faction are never "enemies"; allies in the rules are army lists, not factions.
* **Random numbers.**  One sequence per round, from the move strings of every army that was live
  when it wrote its orders (eliminated armies give none).  The n-th number is the sum of the n-th
  moves modulo ``random_modulus`` ("remove the factor ten"), computed only while at least
  ``random_min_armies`` armies gave an n-th move.  A stand (0) is a move.  **Orientation:** the
  seed's clock sides are the even 2..12, ours on pointy-topped H3 cells (res 5 around the
  Mediterranean) the odd 1..11; summing those as written would give odd numbers and change the
  battle odds, so each odd side ``s`` counts as the seed's ``s + 1`` (1->2, 3->4, ..., 11->12; 0
  stays 0): a one-to-one map onto the seed's alphabet, hence exactly the seed's distribution
  (every number even, 0..8).  Flat-topped cells (res 6 there) already use the even sides.
* **Handing numbers out.**  The navies of *all* the round's battles, sorted by army number, take
  the numbers in order (the seed: "navy #1 gets the first random number ...").  When they run out:
  ``numbers_exhausted = "cycle"`` starts again from the first number; ``"rng"`` draws even
  numbers 0..modulus-2 (uniformly) from the campaign's seeded source.  No number at all (fewer
  than ``random_min_armies`` armies moved): with "cycle" every number is 0 (the event says so);
  with "rng" all are drawn.
* **Strength.**  A navy's strength is its number plus its faction's superiority in the zone where
  it is; on a border hex (two zones) the higher of the two levels counts (the event names both).
  A water hex in no zone counts level 0 (map data without zones gives no superiority).  A faction's
  Naval Battle Strength is the sum over its navies in that battle.  Army FP play no part.
* **Net and outcome.**  Factions are listed in the order of their lowest navy number (the seed's
  example: Carthaginian #1 first, net = Carthago - Roma = -4).  Net = own strength - the strongest
  other faction's (with two factions: the seed's difference; with three or more each faction is
  compared with the strongest other).  A faction whose net is at most minus the smallest band's net
  is beaten: the largest band of ``outcomes`` whose net it reaches (minor 3, major 6, total 9);
  one whose net reaches the smallest band wins; every other faction draws.
* **Losers** (every navy of a beaten faction in that battle): each goes to the closest Town or City
  that its faction controls, unbesieged, unblockaded (``naval.blockaded_structures`` on the state
  after movement, before any retreat), adjacent to a Coast hex of a zone where its level is at least
  ``retreat_min_superiority``, not occupied by another army, and at least the band's
  ``retreat_hexes`` away.  Distance = the length of the shortest path over Coast and Sea hexes
  (never Ocean, Lake or land) from the navy's hex to a Coast hex adjacent to the port; the path is
  pure geography (other navies do not block it).  Ties: the structure's name.  It lands there as an
  army (its cell = the structure's cell) and rests: ``navy_rest[army] = round + inactive_rounds``
  (it may not act as a navy through that round).  No qualifying port that far: ``no_port =
  "nearest"`` takes the nearest qualifying port at any distance, ``"eliminate"`` eliminates it;
  no qualifying port at all: irrevocably eliminated.  Losers of every battle choose in army-number
  order: the lower number gets a port two want, the next takes its next closest.
* **Draws** (every navy of a drawing faction): in army-number order, each moves
  ``draw_retreat_hexes`` times one hex to an adjacent Coast hex (never Sea: it would sink at round
  end) free of armies (as they stand now, earlier movers included) and farther (in steps) from the
  nearest of the hexes where the enemy navies of its battle fought (both sides fall back at once);
  a hex outside every enemy navy's ZoC (where they stand now) is preferred, then the farthest, then
  the lowest clock side.  No such hex: it stays.
* **Winners' advance**, after the losers and draws moved: for each hex vacated by a beaten navy
  (retreated or eliminated; in army order of the losers), the lowest-numbered winning navy of that
  battle adjacent to it that has not advanced yet advances into it, if it is a Coast hex (never a
  Sea hex, which would sink it) and free of armies.  One advance per navy.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from bellica.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState, Event, Phase
from bellica.engine.vae_victis.naval_superiority import NAVAL_KINDS, blockaded_structures, is_navy, superiority_level, zones_of
from bellica.engine.vae_victis.rules import NavalOutcome, NavalRules
from bellica.engine.vae_victis.zoc import controller_of, navy_zoc

__all__ = [
    "NavalBattle",
    "NavalBattlesResult",
    "NavyInBattle",
    "OUR_SIDES",
    "battle_groups",
    "move_strings",
    "random_numbers",
    "resolve_naval_battles",
    "seed_value",
]

PHASE = Phase.BATTLES.value

#: Our clock sides on pointy-topped H3 cells (res 5 around the Mediterranean) plus 0 for standing
#: still; flat-topped cells (res 6 there) use the seed's own even sides 2..12 (geo/hexgrid.py).
OUR_SIDES = (0, 1, 3, 5, 7, 9, 11)


# --- random numbers -------------------------------------------------------------

def seed_value(side: int) -> int:
    """The seed's even clock number for our side ``side``: an odd side (pointy-topped cells) counts as
    the even one after it (1->2, ..., 11->12), an even side (flat-topped cells) as itself, 0 (a stand)
    as 0.  On either grid this is a one-to-one map onto the seed's sides, so the seed's distribution
    of random numbers holds."""
    if not (isinstance(side, int) and 0 <= side <= 12):
        raise ValueError(f"move {side!r} is not a clock side: moves are 0 (stand) or 1-12")
    return side + (side % 2)


def _naval(rules) -> NavalRules:
    """Accept either ``board.rules`` or ``board.rules.naval``."""
    return getattr(rules, "naval", rules)


def random_numbers(move_strings: Sequence[Sequence[int]], rules) -> tuple[int, ...]:
    """The round's random numbers (seed, "Random numbers"): the n-th is the sum over the armies
    that gave an n-th move of :func:`seed_value` of it, modulo ``random_modulus``, computed only
    while at least ``random_min_armies`` armies gave an n-th move.  ``rules``: ``board.rules``
    or ``board.rules.naval``."""
    naval = _naval(rules)
    out = []
    n = 0
    while True:
        nth = [m[n] for m in move_strings if len(m) > n]
        if len(nth) < naval.random_min_armies:
            return tuple(out)
        out.append(sum(seed_value(s) for s in nth) % naval.random_modulus)
        n += 1


def move_strings(state: CampaignState, orders: Mapping[int, ArmyOrders]) -> list[tuple[int, ...]]:
    """The move strings that feed :func:`random_numbers`: every live army's orders, in army order
    (eliminated armies and armies without orders give none)."""
    return [tuple(orders[a.id].moves) for a in state.armies if not a.eliminated and a.id in orders]


# --- battle groups --------------------------------------------------------------

def battle_groups(board: Board, state: CampaignState) -> tuple[tuple[int, ...], ...]:
    """The round's naval battles: every navy with an enemy navy in its ZoC, grouped with every
    navy linked to it through enemy navies' ZoC (the seed's #1-#9/#10-#2 chain is one battle).
    Each group sorted by army number; groups sorted by their lowest army."""
    navies = [a for a in state.armies if is_navy(board, a)]
    links: dict[int, set[int]] = {a.id: set() for a in navies}
    for i, a in enumerate(navies):
        reach = navy_zoc(board, a.cell)
        for b in navies[i + 1:]:
            if a.faction != b.faction and b.cell in reach:
                links[a.id].add(b.id)
                links[b.id].add(a.id)
    seen: set[int] = set()
    groups = []
    for a in navies:
        if a.id in seen or not links[a.id]:
            continue
        group, todo = set(), [a.id]
        while todo:
            x = todo.pop()
            if x in group:
                continue
            group.add(x)
            todo.extend(links[x] - group)
        seen |= group
        groups.append(tuple(sorted(group)))
    return tuple(sorted(groups))


# --- results --------------------------------------------------------------------

@dataclass(frozen=True)
class NavyInBattle:
    """One navy's part in a battle: ``strength = number + superiority``."""

    army: int
    faction: str
    cell: str
    number: int
    number_source: str  # "sequence" | "cycle" | "rng" | "none" (no numbers: 0)
    superiority: int
    zone: str | None  # the zone whose level counts (None: a hex in no zone)
    zone_levels: Mapping[str, int]  # every zone of the hex with the faction's level there

    @property
    def strength(self) -> int:
        return self.number + self.superiority

    @property
    def note(self) -> str:
        """Why the superiority is what it is, when the hex is not plainly in one zone."""
        if len(self.zone_levels) > 1:
            both = ", ".join(f"{z} {lvl}" for z, lvl in sorted(self.zone_levels.items()))
            return f"border hex ({both}): the higher level counts"
        if not self.zone_levels:
            return "in no sea zone: level 0"
        return ""

    def to_data(self) -> dict[str, Any]:
        return {"army": self.army, "faction": self.faction, "cell": self.cell, "number": self.number,
                "number_source": self.number_source, "superiority": self.superiority, "zone": self.zone,
                "zone_levels": dict(sorted(self.zone_levels.items())), "strength": self.strength}


@dataclass(frozen=True)
class NavalBattle:
    """One naval battle and its outcome.

    ``factions`` in the order of their lowest navy number; ``net[f]`` = f's strength minus the
    strongest other faction's; ``outcomes[f]`` is "win", "draw" or a defeat band's name (minor,
    major, total); ``outcome`` says it in words ("minor carthago defeat", "draw")."""

    number: int
    navies: tuple[NavyInBattle, ...]
    factions: tuple[str, ...]
    strengths: Mapping[str, int]
    net: Mapping[str, int]
    outcomes: Mapping[str, str]
    outcome: str
    text: str

    @property
    def losers(self) -> tuple[str, ...]:
        return tuple(f for f in self.factions if self.outcomes[f] not in ("win", "draw"))

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(f for f in self.factions if self.outcomes[f] == "win")

    @property
    def drawn(self) -> tuple[str, ...]:
        return tuple(f for f in self.factions if self.outcomes[f] == "draw")


@dataclass(frozen=True)
class NavalBattlesResult:
    """The state after every retreat and advance, the events explaining them, and the battles.
    ``retreats``: {army: structure it landed in}; ``eliminated``: armies lost;
    ``moved``: {army: (from, to)} for drawn navies that fell back and winners that advanced."""

    state: CampaignState
    events: tuple[Event, ...]
    battles: tuple[NavalBattle, ...]
    retreats: Mapping[int, str]
    eliminated: tuple[int, ...]
    moved: Mapping[int, tuple[str, str]]


# --- resolution -----------------------------------------------------------------

def _label(board: Board, cell: str) -> str:
    s = board.structure_at(cell)
    return f"{cell} ({s.name})" if s else cell


def _navy_superiority(board: Board, state: CampaignState, army: Army) -> tuple[int, str | None, dict[str, int]]:
    levels = {z: superiority_level(board, state, z, army.faction) for z in sorted(zones_of(board, army.cell))}
    if not levels:
        return 0, None, {}
    zone = max(sorted(levels), key=levels.get)  # the highest level; on a tie the first name
    return levels[zone], zone, levels


def _assign_numbers(navy_ids: Sequence[int], numbers: Sequence[int], naval: NavalRules, rng) -> dict[int, tuple[int, str]]:
    """{army: (number, source)} for the navies in army order (see the module doc)."""
    if naval.numbers_exhausted not in ("cycle", "rng"):
        raise ValueError(f"rules option numbers_exhausted = {naval.numbers_exhausted!r}: use \"cycle\" or \"rng\"")
    out = {}
    for i, army in enumerate(sorted(navy_ids)):
        if i < len(numbers):
            out[army] = (int(numbers[i]), "sequence")
        elif naval.numbers_exhausted == "cycle":
            out[army] = (int(numbers[i % len(numbers)]), "cycle") if numbers else (0, "none")
        else:
            if rng is None:
                raise ValueError("naval battles need more random numbers than the round's moves give and the "
                                 "option numbers_exhausted is \"rng\": pass the campaign's seeded source as rng")
            out[army] = (rng.randrange(0, naval.random_modulus - 1, 2), "rng")
    return out


def _band(outcomes: Sequence[NavalOutcome], margin: int) -> NavalOutcome | None:
    """The largest defeat band whose net ``margin`` reaches (None: below the smallest)."""
    hit = None
    for o in outcomes:  # smallest first
        if margin >= o.net:
            hit = o
    return hit


def _numbers_note(navies: Sequence[NavyInBattle], naval: NavalRules) -> str:
    sources = {n.number_source for n in navies}
    notes = []
    if "none" in sources:
        notes.append(f"no random numbers this round (fewer than {naval.random_min_armies} armies moved): every number counts 0")
    if "cycle" in sources:
        first = min(n.army for n in navies if n.number_source == "cycle")
        notes.append(f"the round's numbers ran out: from navy {first} on they start again from the first")
    if "rng" in sources:
        first = min(n.army for n in navies if n.number_source == "rng")
        notes.append(f"the round's numbers ran out: from navy {first} on they are drawn from the campaign's seeded source")
    return "; ".join(notes)


def _battle(number: int, navies: list[NavyInBattle], naval: NavalRules) -> NavalBattle:
    factions: list[str] = []
    for n in sorted(navies, key=lambda n: n.army):
        if n.faction not in factions:
            factions.append(n.faction)
    strengths = {f: sum(n.strength for n in navies if n.faction == f) for f in factions}
    net = {f: strengths[f] - max(strengths[g] for g in factions if g != f) for f in factions}
    outcomes = {}
    for f in factions:
        lost = _band(naval.outcomes, -net[f])
        if lost is not None:
            outcomes[f] = lost.name
        elif _band(naval.outcomes, net[f]) is not None:
            outcomes[f] = "win"
        else:
            outcomes[f] = "draw"
    defeats = [f"{outcomes[f]} {f} defeat" for f in factions if outcomes[f] not in ("win", "draw")]
    drawn = [f for f in factions if outcomes[f] == "draw"]
    if not defeats:
        outcome = "draw"
    else:
        outcome = ", ".join(defeats)
        if drawn and len(factions) > 2:
            outcome += f"; {' and '.join(drawn)} draw"

    def side(f: str) -> str:
        parts = []
        for n in navies:
            if n.faction == f:
                p = f"navy {n.army}: {n.number}+{n.superiority}"
                if n.note:
                    p += f" ({n.note})"
                parts.append(p)
        return f"{f} {strengths[f]} ({', '.join(parts)})"

    if len(factions) == 2:
        nets = f"net {net[factions[0]]}"  # the seed's "Net Naval Battle Strength = 10 - 14 = -4"
    else:
        nets = "net against the strongest other: " + ", ".join(f"{f} {net[f]}" for f in factions)
    text = f"naval battle {number}: {' against '.join(side(f) for f in factions)}: {nets}, {outcome}"
    note = _numbers_note(navies, naval)
    if note:
        text += f" ({note})"
    return NavalBattle(number, tuple(navies), tuple(factions), strengths, net, outcomes, outcome, text)


def _water_distances(board: Board, start: str) -> dict[str, int]:
    """Steps from ``start`` to every Coast/Sea hex reachable over Coast/Sea hexes."""
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for c in frontier:
            for n in board.sides.get(c, {}).values():
                if n not in dist and board.hexes[n].kind in NAVAL_KINDS:
                    dist[n] = dist[c] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


def _ports(board: Board, state: CampaignState, faction: str, blockaded: Mapping[str, object]) -> dict[str, list[str]]:
    """{structure: its adjacent Coast hexes} for the faction's ports a beaten navy may retreat to
    (occupation is checked later, as losers land one by one)."""
    need = board.rules.naval.retreat_min_superiority
    out = {}
    for s in sorted(board.structures.values(), key=lambda s: s.name):
        if controller_of(state, s) != faction or state.siege_of(s.name) is not None or s.name in blockaded:
            continue
        coasts = [n for n in board.sides.get(s.cell, {}).values() if board.hexes[n].kind == "coast"]
        if any(superiority_level(board, state, z, faction) >= need for c in coasts for z in zones_of(board, c)):
            out[s.name] = coasts
    return out


def _steps_around(board: Board, sources: Sequence[str], target: str) -> dict[str, int]:
    """Steps (between adjacent hexes, any kind) from the nearest of ``sources``, for every hex up
    to one step beyond ``target`` (enough to compare ``target`` with its neighbours)."""
    dist = {c: 0 for c in sources}
    frontier = list(sources)
    step = 0
    stop = None
    while frontier and (stop is None or step < stop):
        if stop is None and target in dist:
            stop = dist[target] + 1
            if step >= stop:
                break
        step += 1
        nxt = []
        for c in frontier:
            for n in board.sides.get(c, {}).values():
                if n not in dist:
                    dist[n] = step
                    nxt.append(n)
        frontier = nxt
    return dist


@dataclass
class _Aftermath:
    """Where every navy stands as the battles' losers, drawers and winners move, and what was said."""

    cells: dict[int, str]  # live army -> hex
    rest: dict[int, int]  # navy -> last round it may not act as a navy
    retreats: dict[int, str] = field(default_factory=dict)  # loser -> the port it retreated to
    eliminated: list[int] = field(default_factory=list)
    moved: dict[int, tuple[str, str]] = field(default_factory=dict)
    vacated: list[tuple[int, str, NavalBattle]] = field(default_factory=list)  # (loser, hex, battle)
    events: list[Event] = field(default_factory=list)


def resolve_naval_battles(
    board: Board,
    state: CampaignState,
    groups: Sequence[Sequence[int]],
    numbers: Sequence[int],
    *,
    rng=None,
) -> NavalBattlesResult:
    """Fight the round's naval battles (``groups``, e.g. :func:`battle_groups`, numbered 1.. in
    that order) with the round's random ``numbers`` (:func:`random_numbers`); ``rng`` (an object
    with ``.randrange``, the campaign's seeded source) is needed only when the numbers run out
    and the option ``numbers_exhausted`` is "rng".  See the module doc for every rule."""
    naval = board.rules.naval
    armies = {a.id: a for a in state.armies}
    seen = _check_groups(board, groups, armies)
    assigned = _assign_numbers(sorted(seen), numbers, naval, rng)
    battles, events = _fight_battles(board, state, groups, armies, assigned)
    after = _Aftermath(cells={a_id: a.cell for a_id, a in armies.items() if not a.eliminated},
                       rest=dict(state.navy_rest))
    # Losers first (every battle at once), then draws, then winners into the hexes losers left.
    _retreat_losers(board, state, battles, after)
    _fall_back_draws(board, state, battles, armies, after)
    _advance_winners(board, state, after)
    gone = set(after.eliminated)
    cells = after.cells
    new_armies = tuple(
        replace(a, cell=None, eliminated=True) if a.id in gone
        else replace(a, cell=cells[a.id]) if a.id in cells and cells[a.id] != a.cell else a
        for a in state.armies)
    return NavalBattlesResult(
        state=replace(state, armies=new_armies, navy_rest=after.rest),
        events=tuple(events + after.events),
        battles=tuple(battles),
        retreats=after.retreats,
        eliminated=tuple(after.eliminated),
        moved=after.moved,
    )


def _check_groups(board: Board, groups: Sequence[Sequence[int]], armies: Mapping[int, Army]) -> set[int]:
    """Every navy of the groups, each a live navy in one battle only, each battle of two factions or more."""
    seen: set[int] = set()
    for i, g in enumerate(groups, 1):
        for a_id in g:
            if a_id not in armies:
                raise ValueError(f"naval battle {i}: army {a_id} does not exist")
            if not is_navy(board, armies[a_id]):
                raise ValueError(f"naval battle {i}: army {a_id} is not a navy (a live army on a Coast or Sea hex)")
            if a_id in seen:
                raise ValueError(f"naval battle {i}: army {a_id} is already in another battle")
            seen.add(a_id)
        if len({armies[a].faction for a in g}) < 2:
            raise ValueError(f"naval battle {i}: armies {list(g)} are all of one faction; a battle needs two")
    return seen


def _fight_battles(board: Board, state: CampaignState, groups: Sequence[Sequence[int]], armies: Mapping[int, Army],
                   assigned: Mapping[int, tuple[int, str]]) -> tuple[list[NavalBattle], list[Event]]:
    """Each group's battle, its navies with their numbers and superiority, and its event."""
    events: list[Event] = []
    battles = []
    for i, g in enumerate(groups, 1):
        navies = []
        for a_id in sorted(g):
            a = armies[a_id]
            level, zone, levels = _navy_superiority(board, state, a)
            number, source = assigned[a_id]
            navies.append(NavyInBattle(a_id, a.faction, a.cell, number, source, level, zone, levels))
        b = _battle(i, navies, board.rules.naval)
        battles.append(b)
        events.append(Event(state.round, PHASE, "naval_battle", {
            "battle": i, "navies": [n.to_data() for n in navies], "factions": list(b.factions),
            "strengths": dict(b.strengths), "net": b.net[b.factions[0]], "nets": dict(b.net),
            "outcomes": dict(b.outcomes), "outcome": b.outcome, "losers": list(b.losers),
            "winners": list(b.winners), "loser": b.losers[0] if len(b.losers) == 1 else None,
        }, b.text))
    return battles, events


def _retreat_losers(board: Board, state: CampaignState, battles: Sequence[NavalBattle], after: _Aftermath) -> None:
    """Every beaten navy, in army order, retreats to a port of its faction or is eliminated."""
    naval = board.rules.naval
    blockaded = blockaded_structures(board, state)
    ports_by_faction: dict[str, dict[str, list[str]]] = {}
    losers = sorted(((n, b) for b in battles for n in b.navies if n.faction in b.losers), key=lambda x: x[0].army)
    by_name = {o.name: o for o in naval.outcomes}
    for n, b in losers:
        band = by_name[b.outcomes[n.faction]]
        ports = ports_by_faction.setdefault(n.faction, _ports(board, state, n.faction, blockaded))
        d, port, fallback, reach = _retreat_port(board, n, band, ports, after.cells)
        after.vacated.append((n.army, n.cell, b))
        if port is None:
            _eliminate_loser(board, state, n, b, band, bool(reach), after)
            continue
        s = board.structures[port]
        after.cells[n.army] = s.cell
        after.retreats[n.army] = port
        after.rest[n.army] = state.round + band.inactive_rounds
        far_text = (f"no port lies {band.retreat_hexes} hexes away, so it takes the nearest, {port}, {d} hexes away"
                    if fallback else f"retreats {d} Coast/Sea hexes (at least {band.retreat_hexes}) to {port}")
        after.events.append(Event(state.round, PHASE, "navy_retreated", {
            "army": n.army, "faction": n.faction, "battle": b.number, "reason": "defeat", "outcome": band.name,
            "from": n.cell, "to": s.cell, "structure": port, "distance": d, "required": band.retreat_hexes,
            "nearest_fallback": fallback, "rest_until": after.rest[n.army],
        }, f"navy {n.army} ({n.faction}) lost naval battle {b.number} ({band.name} defeat): {far_text} and lands "
           f"there as an army; it may not act as a navy until round {after.rest[n.army] + 1}"))


def _retreat_port(board: Board, n: NavyInBattle, band: NavalOutcome, ports: Mapping[str, list[str]], cells: Mapping[int, str]):
    """``(distance, port, nearest_fallback, reach)``: the nearest unoccupied port at least the band's
    retreat distance away by sea, else (option no_port "nearest") the nearest one; port None when
    neither; ``reach`` every port reachable by sea, nearest first."""
    dist = _water_distances(board, n.cell)
    occupied = {c for a_id, c in cells.items() if a_id != n.army}
    reach = sorted((min(dist[c] for c in coasts if c in dist), name) for name, coasts in ports.items()
                   if any(c in dist for c in coasts) and board.structures[name].cell not in occupied)
    far = [r for r in reach if r[0] >= band.retreat_hexes]
    if far:
        d, port = far[0]
        return d, port, False, reach
    if reach and board.rules.naval.no_port == "nearest":
        d, port = reach[0]
        return d, port, True, reach
    return None, None, False, reach


def _eliminate_loser(board: Board, state: CampaignState, n: NavyInBattle, b: NavalBattle, band: NavalOutcome, reach: bool,
                     after: _Aftermath) -> None:
    """A beaten navy with no port to retreat to is irrevocably eliminated."""
    naval = board.rules.naval
    after.cells.pop(n.army)
    after.eliminated.append(n.army)
    if reach:
        why = (f"no port of its faction lies {band.retreat_hexes} Coast/Sea hexes away and the option "
               f"no_port is \"eliminate\"")
    else:
        why = (f"no unbesieged, unblockaded, unoccupied port of its faction in a zone where its superiority is "
               f"at least {naval.retreat_min_superiority} can be reached by sea")
    after.events.append(Event(state.round, PHASE, "navy_eliminated", {
        "army": n.army, "faction": n.faction, "battle": b.number, "cell": n.cell, "outcome": band.name,
        "reason": "no_port_far_enough" if reach else "no_port",
    }, f"navy {n.army} ({n.faction}) lost naval battle {b.number} ({band.name} defeat): {why}; "
       f"it is irrevocably eliminated"))


def _fall_back_draws(board: Board, state: CampaignState, battles: Sequence[NavalBattle], armies: Mapping[int, Army],
                     after: _Aftermath) -> None:
    """Every navy that drew, in army order, falls back away from where the enemy navies of its battle
    fought (both sides fall back at once), or stays when no free Coast hex lies farther."""
    cells = after.cells
    drawers = sorted(((n, b) for b in battles for n in b.navies if n.faction in b.drawn), key=lambda x: x[0].army)
    for n, b in drawers:
        enemies = [m.cell for m in b.navies if m.faction != n.faction]
        here = start = cells[n.army]
        steps = board.rules.naval.draw_retreat_hexes
        for _ in range(steps):
            step = _draw_step(board, armies, cells, n.faction, enemies, here)
            if step is None:
                break
            here = step
            cells[n.army] = here
        if here == start:
            after.events.append(Event(state.round, PHASE, "navy_stayed", {
                "army": n.army, "faction": n.faction, "battle": b.number, "cell": start, "reason": "draw",
            }, f"navy {n.army} ({n.faction}) drew naval battle {b.number} but finds no free Coast hex farther "
               f"from the enemy: it stays at {_label(board, start)}"))
        else:
            after.moved[n.army] = (start, here)
            after.events.append(Event(state.round, PHASE, "navy_retreated", {
                "army": n.army, "faction": n.faction, "battle": b.number, "reason": "draw",
                "from": start, "to": here, "distance": steps,
            }, f"navy {n.army} ({n.faction}) drew naval battle {b.number} and falls back "
               f"{'one hex' if steps == 1 else f'{steps} hexes'} to {_label(board, here)}"))


def _draw_step(board: Board, armies: Mapping[int, Army], cells: Mapping[int, str], faction: str,
               enemies: Sequence[str], here: str) -> str | None:
    """The free Coast hex next to ``here`` one step farther from ``enemies``: outside enemy navies' ZOC
    first, then the farthest, then the lowest clock side; None when there is none."""
    far = _steps_around(board, enemies, here)
    d_here = far.get(here, 0)
    enemy_zoc = set()
    for a_id, c in cells.items():
        if armies[a_id].faction != faction and board.hexes[c].kind in NAVAL_KINDS:
            enemy_zoc |= navy_zoc(board, c)
    taken = set(cells.values())
    options = []
    for clock, c in sorted(board.sides.get(here, {}).items()):
        if board.hexes[c].kind != "coast" or c in taken:
            continue
        d = far.get(c, d_here + 1)
        if d > d_here:
            options.append((c in enemy_zoc, -d, clock, c))
    if not options:
        return None
    return min(options)[3]


def _advance_winners(board: Board, state: CampaignState, after: _Aftermath) -> None:
    """Winners advance into the Coast hexes their beaten enemies left, one navy a hex, in army order."""
    cells = after.cells
    advanced: set[int] = set()
    for loser, hex_, b in after.vacated:
        if board.hexes[hex_].kind != "coast" or hex_ in set(cells.values()):
            continue
        around = set(board.sides.get(hex_, {}).values())
        for n in b.navies:  # army order
            if n.faction in b.winners and n.army not in advanced and cells.get(n.army) == n.cell and n.cell in around:
                advanced.add(n.army)
                cells[n.army] = hex_
                after.moved[n.army] = (n.cell, hex_)
                after.events.append(Event(state.round, PHASE, "navy_advanced", {
                    "army": n.army, "faction": n.faction, "battle": b.number, "from": n.cell, "to": hex_,
                    "vacated_by": loser,
                }, f"navy {n.army} ({n.faction}) won naval battle {b.number} and advances into "
                   f"{_label(board, hex_)}, vacated by navy {loser}"))
                break

