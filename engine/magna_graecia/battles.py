"""Land battles: when they are due, the table's set-up, the result, the second day.

A battle is due wherever, at the end of a side's movement, its land counters share a node
with enemy land counters, or with the commands of a city allied to an enemy (counters shut
in a city the side is besieging excepted).  The attacker (the phasing side) has its base
edge on the path it entered by; the defender chooses a forward, central or rear defence.
The result is entered from the table: the winner (or none: undecided), the elements each
command lost (``{command id: {element: n}}``, ``"general"`` for its commander), and the
paths the loser may still retreat by.  Recovery rolls follow at once; losers must retreat
(:mod:`.retreats`).  An undecided battle asks both sides, sealed, to stay or retire
(:func:`second_day`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from bellica.geo.errors import InputError

from .dice import Dice
from .forces import apply_losses
from .model import Battle, Command, Event, GameState, NodeMap, Retreat, give_elements
from .recovery import recover_elements
from .rules import Rules

__all__ = ["DEFENCES", "CHOICES", "camps", "choose_base_edge", "choose_defence", "due_battles", "entry_edges",
           "enter_result", "reorganise_city", "second_day", "second_day_sides"]

PHASE = "battle"
DEFENCES = ("forward", "central", "rear")
CHOICES = ("stay", "retire")


def camps(state: GameState, b: Battle) -> tuple[tuple[Command, ...], tuple[Command, ...]]:
    """(attacker's commands, defenders' commands) at the battle's node.  An ally of the
    attacker shut inside a city besieged there (a city's own commands, another side's) takes no
    part: "allies can cooperate only in a defensive mode", and the besieged leave the walls
    only by sallying in their own player-turn (:func:`~.sieges.sally`)."""
    att, dfn = [], []
    besieged_here = state.siege_at(b.node) is not None
    for c in state.at(b.node):
        owner = state.owner(c)
        if owner and state.friends(owner, b.attacker):
            if c.in_city and besieged_here and c.side != b.attacker:
                continue
            att.append(c)
        elif (owner and any(d in state.sides and state.friends(owner, d) for d in b.defenders)) or \
                (not owner and f"city:{c.city}" in b.defenders):
            dfn.append(c)
    return tuple(att), tuple(dfn)


def due_battles(state: GameState) -> tuple[GameState, list[Event]]:
    """The phasing side's battles after its movement (added to ``state.battles``)."""
    side = state.phasing
    events: list[Event] = []
    battles = list(state.battles)
    # counters shut inside a besieged city fight only if they sally (sieges.sally)
    nodes = sorted({c.node for c in state.commands if c.side == side and not c.aboard and not c.in_city})
    for node in nodes:
        enemies = state.enemy_land(node, side)
        if not enemies:
            continue
        siege = state.siege_at(node)
        if siege is not None and siege.besieger == side and all(c.in_city for c in enemies):
            continue
        if any(b.node == node and b.kind == "land" for b in battles):
            continue
        edges = entry_edges(state, node, side)
        # Default: the lowest-numbered command's entry; the attacker may pick another (choose_base_edge).
        base = edges[0] if edges else node
        defenders = tuple(sorted({state.owner(c) for c in enemies}))
        b = Battle(node, side, defenders, base_edge=base)
        battles.append(b)
        events.append(Event(state.turn, PHASE, "battle_due",
                            {"node": node, "attacker": side, "defenders": list(defenders), "base_edge": base},
                            f"battle at {node}: {side} attacks {', '.join(defenders)}" + (f" from {base}" if base else "")))
    # a fleet sheltered in harbour cannot be made to fight (not even its own side's turn)
    for node in sorted({f.node for f in state.fleets if f.side == side and not f.sheltered}):
        rivals = [f for f in state.fleets_at(node) if state.enemies(side, f.side) and not f.sheltered]
        if rivals and not any(b.node == node and b.kind == "naval" for b in battles):
            defenders = tuple(sorted(f.side for f in rivals))
            battles.append(Battle(node, side, defenders, kind="naval"))
            events.append(Event(state.turn, PHASE, "fleet_battle_due", {"node": node, "attacker": side, "defenders": list(defenders)},
                                f"fleets meet at {node}: {side} and {', '.join(defenders)}"))
    return replace(state, battles=tuple(battles)), events


def _battle(state: GameState, node: str) -> Battle:
    b = state.battle_at(node)
    if b is None:
        raise InputError(f"no land battle is due at {node}: name one of {', '.join(x.node for x in state.battles) or 'none'}")
    return b


def entry_edges(state: GameState, node: str, side: str) -> tuple[str, ...]:
    """The nodes ``side``'s commands entered ``node`` from this turn, by command number, each once."""
    out: list[str] = []
    for c in state.at(node):
        if c.side == side and c.moved and c.entered_from and c.entered_from not in out:
            out.append(c.entered_from)
    return tuple(out)


def choose_base_edge(state: GameState, node: str, edge: str) -> tuple[GameState, list[Event]]:
    """The attacker names the path of entry that is its base edge, when its commands came in by
    more than one (the seed takes "his path of entry into the node"; the default is the
    lowest-numbered command's).  Only before the defender has chosen where to defend."""
    b = _battle(state, node)
    if b.defence or b.day > 1 or b.undecided:
        raise InputError(f"the base edge at {node} is fixed: the defenders have chosen their defence ({b.defence or 'day 2'})")
    edges = entry_edges(state, node, b.attacker)
    if edge not in edges:
        raise InputError(f"{b.attacker} did not enter {node} from {edge}: give one of {', '.join(edges) or 'none (no command moved in)'}")
    nb = replace(b, base_edge=edge)
    state = replace(state, battles=tuple(nb if x is b else x for x in state.battles))
    return state, [Event(state.turn, PHASE, "base_edge_chosen", {"node": node, "attacker": b.attacker, "base_edge": edge},
                         f"{b.attacker} takes its base edge at {node} from {edge}")]


def reorganise_city(state: GameState, node: str, giver: int, taker: int,
                    elements: Mapping[str, int]) -> tuple[GameState, list[Event]]:
    """A city's two or three commands reorganised before a battle at their node (seed, "Neutral
    Cities"): elements pass from one to another at no cost.  Not once the first day is fought:
    commands locked on the field for a second day "may NOT be reorganized"."""
    b = _battle(state, node)
    if b.day > 1 or b.undecided:
        raise InputError(f"the commands at {node} are locked on the field for a second day: they may not be reorganised")
    a, t = state.command(giver), state.command(taker)
    for c in (a, t):
        if not c.city or c.side or c.node != node:
            raise InputError(f"command {c.id} is not one of {node}'s own commands: reorganise only a city's commands, "
                             "in their node")
    if a.city != t.city or a.id == t.id:
        raise InputError(f"commands {giver} and {taker} must be two commands of the same city")
    ea, et = give_elements(giver, a.elements, t.elements, elements)
    state = state.with_commands([replace(a, elements=ea), replace(t, elements=et)])
    return state, [Event(state.turn, PHASE, "city_reorganised", {"node": node, "city": a.city, "from": giver, "to": taker,
                                                                "elements": dict(sorted(elements.items()))},
                         f"{a.city} reorganises its commands before the battle: command {giver} passes "
                         f"{dict(sorted(elements.items()))} to command {taker}")]


def choose_defence(state: GameState, node: str, defence: str) -> tuple[GameState, list[Event]]:
    """The defender's choice of the table's section (on the second day: only further back)."""
    b = _battle(state, node)
    if defence not in DEFENCES:
        raise InputError(f"defence {defence!r}: give one of {', '.join(DEFENCES)}")
    if b.day > 1 and b.defence and DEFENCES.index(defence) < DEFENCES.index(b.defence):
        raise InputError(f"on the second day the defender may only shift the battle to his rear (from {b.defence})")
    nb = replace(b, defence=defence)
    state = replace(state, battles=tuple(nb if x is b else x for x in state.battles))
    return state, [Event(state.turn, PHASE, "defence_chosen", {"node": node, "defence": defence, "day": b.day,
                                                              "base_edge": b.base_edge},
                         f"the defenders at {node} choose a {defence} defence")]


def enter_result(state: GameState, nmap: NodeMap, rules: Rules, dice: Dice, node: str, winner: str | None,
                 losses: Mapping[int, Mapping[str, int]] | None = None, *,
                 open_paths: Sequence[str] | None = None, surrendered: Sequence[int] = (),
                 city_holder: str | None = None) -> tuple[GameState, list[Event]]:
    """The table's result at ``node``: ``winner`` a side of the battle (None: undecided),
    ``losses`` what each command lost on the table, ``open_paths`` the nodes the loser may
    still retreat towards (None: every path but the winner's base edge), ``surrendered`` the
    allied city commands that surrendered (their city occupied by the enemy), which become
    allies of ``city_holder`` (the side holding the city at the battle's end; default the
    winner) from the next campaign turn."""
    b = _battle(state, node)
    att, dfn = camps(state, b)
    state, gave_up = _surrenders(state, b, att + dfn, surrendered, city_holder or winner)
    att = tuple(c for c in att if c.id not in gave_up)
    dfn = tuple(c for c in dfn if c.id not in gave_up)
    sides_in = {state.owner(c) for c in att + dfn if state.owner(c)}
    if winner is not None and winner not in sides_in and winner != b.attacker:
        raise InputError(f"winner {winner!r} did not fight at {node}: give one of {', '.join(sorted(sides_in))} or none")
    in_battle = {c.id for c in att + dfn} | set(gave_up)
    losses = {int(k): dict(v) for k, v in (losses or {}).items()}
    for cid in losses:
        if cid not in in_battle:
            raise InputError(f"losses name command {cid}, which did not fight at {node}: name one of {sorted(in_battle)}")
    events = [Event(state.turn, PHASE, "battle_result",
                    {"node": node, "attacker": b.attacker, "defenders": list(b.defenders), "winner": winner,
                     "day": b.day, "defence": b.defence, "base_edge": b.base_edge,
                     "losses": {str(k): v for k, v in losses.items()}},
                    f"battle at {node}: " + (f"{winner} wins" if winner else "undecided"))]
    events += gave_up.values()
    still, evs = recover_elements(state, rules, dice, node, losses, held_by=winner, phase=PHASE)
    events += evs
    if winner is None:
        win_camp = None
    else:
        win_camp = "attacker" if any(state.owner(c) == winner for c in att) or winner == b.attacker else "defender"
    # who destroyed whom (the victory points for commanders)
    for cid, lost in sorted(still.items()):
        c = state.command(cid)
        mine_att = c.id in {x.id for x in att}
        by = (b.defenders[0] if b.defenders[0] in state.sides else None) if mine_att else b.attacker
        if winner is not None and state.owner(c) != winner:
            by = winner
        state, evs = apply_losses(state, {cid: lost}, by=by, turn_phase=PHASE, why=f"battle at {node}")
        events += evs
    others = tuple(x for x in state.battles if not (x.node == node and x.kind == "land"))
    if winner is None:
        state = replace(state, battles=others + (replace(b, undecided=True),))
        events.append(Event(state.turn, PHASE, "second_day_choice_due", {"node": node},
                            f"the battle at {node} is undecided: each side writes stay or retire"))
        return state, events
    state = replace(state, battles=others)
    losers = [c for c in (dfn if win_camp == "attacker" else att) if any(x.id == c.id for x in state.commands)]
    allowed = tuple(open_paths) if open_paths is not None else tuple(
        n for n in nmap.neighbours(node, "land") if not (win_camp == "attacker" and n == b.base_edge))
    return _after_defeat(state, nmap, rules, node, winner, losers, allowed, events, sally=b.sally and win_camp == "defender")


def _surrenders(state: GameState, b: Battle, fought: Sequence[Command], surrendered: Sequence[int],
                holder: str | None) -> tuple[GameState, dict[int, Event]]:
    """Allied city commands that surrendered (seed, "Voluntary Demoralization"): each becomes
    an ally of ``holder`` from the next campaign turn and takes no further part in the battle."""
    out: dict[int, Event] = {}
    if not surrendered:
        return state, out
    if not holder or holder not in state.sides:
        raise InputError(f"surrendered commands at {b.node}: give the side holding the city at the battle's end "
                         "(--city-holder), or a winner")
    allied = {c.id: c for c in fought if c.city and not c.side and state.owner(c)}
    for cid in sorted(set(int(x) for x in surrendered)):
        if cid not in allied:
            raise InputError(f"command {cid} is not an allied city command fighting at {b.node}: name one of "
                             f"{sorted(allied) or 'none'}")
        c = allied[cid]
        state = state.with_command(replace(c, ally=holder, ally_from=state.turn + 1))
        out[cid] = Event(state.turn, PHASE, "command_surrenders",
                         {"node": b.node, "command": cid, "city": c.city, "was": state.owner(c) or None, "ally": holder,
                          "from_turn": state.turn + 1},
                         f"command {cid} of {c.city} surrenders; from turn {state.turn + 1} it is an ally of {holder}, "
                         "the side holding the city")
    return state, out


def _after_defeat(state: GameState, nmap: NodeMap, rules: Rules, node: str, winner: str, losers: Sequence[Command],
                  allowed: tuple[str, ...], events: list[Event], *, sally: bool = False) -> tuple[GameState, list[Event]]:
    retreats = list(state.retreats)
    cities_won: set[str] = set()
    shut: list[Command] = []
    for c in losers:
        c = state.command(c.id)
        if c.city and not c.side and not sally:
            cities_won.add(c.city)
        elif c.inherent or sally:
            shut.append(c)
        else:
            retreats.append(Retreat(command=c.id, open_paths=allowed, by=winner))
    state = state.with_retreats(retreats)
    for city in sorted(cities_won):
        holder = state.cities[city].holder
        if holder is None:
            state = state.with_city(city, ally=winner, hostile_to=None)
            events.append(Event(state.turn, PHASE, "city_joins", {"city": city, "side": winner, "why": "defeated"},
                                f"{city}'s beaten forces join {winner}"))
        else:   # a capital's own garrison withdraws inside the walls
            for c in state.commands:
                if c.city == city and not c.side:
                    shut.append(c)
    if shut:
        state = state.with_commands([replace(c, in_city=True) for c in shut])
        events.append(Event(state.turn, PHASE, "garrison_withdraws", {"node": node, "commands": [c.id for c in shut]},
                            f"the garrison of {node} withdraws inside the walls"))
    return state, events


def second_day(state: GameState, nmap: NodeMap, rules: Rules, node: str, choices: Mapping[str, str]) -> tuple[GameState, list[Event]]:
    """Both sides' sealed stay-or-retire orders after an undecided day, revealed together.
    Retiring sides retreat (the non-phasing side first); if all stay, a second day is fought
    with the non-phasing side defending."""
    b = _battle(state, node)
    if not b.undecided:
        raise InputError(f"the battle at {node} has not ended undecided: enter its result first")
    att, dfn = camps(state, b)
    need = second_day_sides(state, b)
    for s in need:
        if choices.get(s) not in CHOICES:
            raise InputError(f"second day at {node}: {s}'s order is {choices.get(s)!r}: give stay or retire for each of {', '.join(need)}")
    events = [Event(state.turn, PHASE, "second_day_orders", {"node": node, "orders": {s: choices[s] for s in need}},
                    f"second day at {node}: " + ", ".join(f"{s} {choices[s]}s" for s in need))]
    others = tuple(x for x in state.battles if x is not b)
    if all(choices[s] == "stay" for s in need):
        nb = replace(b, day=b.day + 1, undecided=False)
        return replace(state, battles=others + (nb,)), events
    retreats = list(state.retreats)
    inside: list[Command] = []
    order = sorted(need, key=lambda s: s == state.phasing)   # the non-phasing side moves first
    for s in order:
        if choices[s] != "retire":
            continue
        for c in att + dfn:
            if not any(x.id == c.id for x in state.commands):
                continue
            if c.side == s and not c.inherent:
                retreats.append(Retreat(command=c.id, open_paths=tuple(nmap.neighbours(node, "land"))))
            elif not c.side and c.city and state.owner(c) == s:
                inside.append(c)   # a city's forces never leave their node: they retire behind the walls
    state = replace(state, battles=others).with_retreats(retreats)
    if inside:
        state = state.with_commands([replace(c, in_city=True) for c in inside])
        events.append(Event(state.turn, PHASE, "garrison_withdraws", {"node": node, "commands": [c.id for c in inside]},
                            f"the city forces at {node} retire inside the walls"))
    return state, events


def second_day_sides(state: GameState, b: Battle) -> list[str]:
    """The sides that write a second-day order: the attacker and every side fighting in the
    defenders' camp, a city's allied commands included (their side's player writes for them,
    even with none of its own commands there)."""
    _att, dfn = camps(state, b)
    return sorted({b.attacker} | {state.owner(c) for c in dfn if state.owner(c)})
