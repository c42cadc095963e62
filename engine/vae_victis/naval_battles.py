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
* **After the battles** the losers retreat to port, the draws fall back and the winners advance
  (:mod:`engine.vae_victis.naval_aftermath`, whose doc gives their rules).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from bellica.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState, Event, Phase
from bellica.engine.vae_victis.naval_aftermath import after_battles
from bellica.engine.vae_victis.naval_superiority import is_navy, superiority_level, zones_of
from bellica.engine.vae_victis.rules import NavalOutcome, NavalRules
from bellica.engine.vae_victis.zoc import navy_zoc

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
    after = after_battles(board, state, battles, armies)
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
