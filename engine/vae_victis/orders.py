"""Orders of one round, parsed and validated in layers (python-chess style).

1. **Syntax** (:func:`parse_moves`, :func:`parse_orders_text`, :func:`orders_from_cli`):
   the move string exactly as players write it in the seed ("2 4 2 6 0 6": clock
   positions and 0s, "with no other symbols in between, only blanks"), the other
   fields' types.  Raises :class:`OrderSyntaxError`.
2. **Legality in the position** (:func:`check_orders`, :func:`validate_orders`):
   the army exists, belongs to the faction and is not eliminated; every clock
   position names a side of the hex the army is in at that point of its path and
   leads to a hex the army can enter (below); initiative names a sea zone the faction
   may still influence; lift-siege/assault name a siege of that army; transfers
   go to a linked army of the faction within the 100 FP cap; sea links name the
   faction's own coastal structures, at most its superiority level per zone.  All
   problems of all armies are collected and raised together as one :class:`IllegalOrderError`.
3. **Apply**: nothing here changes state; :mod:`engine.movement` and the
   administration apply orders that passed 1 and 2.

Which hexes a move string may enter (:func:`moves_by_sea` tells the two kinds apart):

* **By sea** (seed, "Naval movement"; the lead's decision 2): an army already at sea (on a
  Coast or Sea hex), or an army whose first move that is not a "0" enters a Coast or Sea hex
  from a Town/City it may embark from (:func:`engine.vae_victis.naval.can_embark`), walks a
  naval path: every move enters a Coast or Sea hex (never Ocean, Lake or land: debarking is
  the administration's step-3 order, not a move; "0" stays).  When it may not embark, the
  reason (besieged, blockaded, resting after a naval defeat, not a coastal structure) is
  the problem.  A naval string may be longer than a land one: at most
  :func:`max_naval_moves` moves, the faction's NMP over all sea zones this round over the
  cheapest naval move (generous: one navy cannot use every zone's pool, but orders are
  written before the pools are shared).
* **On land**: land hexes only (not Peaks or Lakes), except a **strait crossing**
  (:mod:`engine.vae_victis.straits`): two consecutive moves, into a strait Coast hex and out
  of it onto the land hex across from the one the army left.  A Coast hex that is no strait
  from here, or a second move that does not land across, is a problem naming the crossings
  open from that hex.  The two moves count as one against :func:`max_moves` (the strait costs
  no MP).  Moves after a crossing are walked for their geometry but never made (the army stops
  after crossing); whether the crossing is allowed (enemy armies near, an enemy City's ZoC,
  superiority) is decided during movement, not here.  A land army never mixes land and sea moves.

Sea links (seed, "Lines of logistics" 4): ``sea_links`` names (sea zone, structure) targets of
the faction's sea-zone logistics; a target must be the faction's, unsieged, unblockaded and
adjacent to a Coast hex of the zone; per faction and zone at most its superiority level in that
zone, counted over all the faction's orders (a target named twice counts once).

Influence cap (seed, "Naval superiority"; decision 10): per faction and zone, its controlled,
unbesieged, unblockaded Towns/Cities adjacent to a Coast hex of the zone, times the faction's
influence multiplier (``rules.naval.influence_cap = "multiplier"``, the rules text) or not
(``"count"``, the umpire's restatement in the seed's thread).  Blockades are those of the start
of the round (:func:`engine.vae_victis.naval.blockaded_structures` unless the caller gives them).

Orders file (TOML, one file per faction and round)::

    faction = "roma"
    round = 2

    [armies.9]
    moves = "3 3 5 0 5"             # required string; "" = stand in place (no MP spent)
    initiative = "Mare Tyrrhenum"   # optional: "strength" (default) or a sea-zone name
    lift_siege = false              # optional
    assault = "Capua"               # optional: a structure this army besieges
    transfers = [{ to = 10, fp = 60 }]   # optional: FP given to army 10
    sea_links = { "Mare Tyrrhenum" = ["Neapolis"] }   # optional: sea-zone logistics targets

CLI: ``ARMY=MOVES`` items (``9=3 3 5 0 5``) for moves alone, or
:func:`army_orders_from_cli` for every field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping

from bellica.engine.vae_victis.model import Army, ArmyOrders, Board, CampaignState, Transfer
from bellica.engine.vae_victis.order_errors import IllegalOrderError, OrderError, OrderProblem, OrderSyntaxError
from bellica.engine.vae_victis.naval import NAVAL_KINDS, blockaded_structures, can_embark, is_navy, superiority_level
from bellica.engine.vae_victis.straits import lands_across, strait_crossings_from
from bellica.engine.vae_victis.zoc import controller_of
from bellica.geo.errors import InputError
from bellica.geo.files import parse_user_toml, read_user_text, whole_number

__all__ = [
    "IllegalOrderError",
    "OrderError",
    "OrderProblem",
    "OrderSyntaxError",
    "OrdersFile",
    "army_orders_from_cli",
    "check_orders",
    "impassable_reason",
    "influence_cap",
    "load_orders_file",
    "max_moves",
    "max_naval_moves",
    "moves_by_sea",
    "naval_impassable_reason",
    "orders_from_cli",
    "parse_army_orders",
    "parse_moves",
    "parse_orders_text",
    "sea_movers",
    "validate_orders",
    "walk_moves",
]

_ARMY_FIELDS = {"moves", "initiative", "lift_siege", "assault", "transfers", "sea_links"}

#: The longest move string read at all, before any rules are known: far above what any rules
#: let an army use in a round (the seed's 12 MP allow 12 moves, "12 12 ... 12" is 35
#: characters), so only a runaway string (a pasted file, 60,000 tokens) hits it.  The exact
#: cap, from the campaign's rules, is :func:`max_moves`, checked with the position.
MAX_MOVES_TEXT = 1000

#: Bad tokens listed one by one; the rest are counted (a garbage string is one problem, not thousands).
_MAX_TOKEN_PROBLEMS = 5


def _close_matches(word: str, candidates: list[str], n: int = 1) -> list[str]:
    """difflib's suggestion, imported only when an order is wrong (it costs every step 1 ms)."""
    import difflib

    return difflib.get_close_matches(word, candidates, n=n)


@dataclass(frozen=True)
class OrdersFile:
    faction: str | None
    round: int | None
    orders: Mapping[int, ArmyOrders]


# --- layer 1: syntax ----------------------------------------------------------------


def _quote(text: str) -> str:
    return '"' + text + '"'


def parse_moves(text: str, army: int | None = None) -> tuple[int, ...]:
    """Clock positions (1-12) and 0s separated by blanks: ``"3 3 5 0 5"`` -> (3, 3, 5, 0, 5)."""
    problems = _move_syntax_problems(text, army)
    if problems:
        raise OrderSyntaxError(problems)
    return tuple(int(tok) for tok in text.split())


def _move_syntax_problems(text: Any, army: int | None) -> list[OrderProblem]:
    if not isinstance(text, str):
        return [OrderProblem(army, "moves", f"moves must be a string like \"3 3 5 0 5\", got {text!r}")]
    if len(text) > MAX_MOVES_TEXT:
        return [OrderProblem(army, "moves", f"the move string is {len(text)} characters long, over the "
                                            f"{MAX_MOVES_TEXT} any round can use: write only the moves of this round")]
    problems = []
    bad = 0
    for index, m in enumerate(re.finditer(r"\S+", text), 1):
        tok = m.group()
        if not (tok.isascii() and tok.isdigit() and 0 <= int(tok) <= 12):
            bad += 1
            if bad > _MAX_TOKEN_PROBLEMS:
                continue
            problems.append(
                OrderProblem(
                    army,
                    "moves",
                    f"{tok!r} at column {m.start() + 1} of {_quote(text)} is not a move: write clock "
                    "positions 1-12 or 0 (stand still), separated by blanks only",
                    index,
                )
            )
    if bad > _MAX_TOKEN_PROBLEMS:
        problems.append(OrderProblem(army, "moves", f"and {bad - _MAX_TOKEN_PROBLEMS} more tokens that are not moves"))
    return problems


def _field_problems(army: int, fields: Mapping[str, Any]) -> list[OrderProblem]:
    problems = []
    unknown = set(fields) - _ARMY_FIELDS
    for key in sorted(unknown):
        hint = _close_matches(key, sorted(_ARMY_FIELDS), n=1)
        problems.append(
            OrderProblem(army, key, f"unknown field {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                         + f"; fields are {', '.join(sorted(_ARMY_FIELDS))}")
        )
    if "moves" in fields:
        problems += _move_syntax_problems(fields["moves"], army)
    if "initiative" in fields and not (isinstance(fields["initiative"], str) and fields["initiative"].strip()):
        problems.append(OrderProblem(army, "initiative", f"initiative must be \"strength\" or a sea-zone name, "
                                                          f"got {fields['initiative']!r}"))
    if "lift_siege" in fields and not isinstance(fields["lift_siege"], bool):
        problems.append(OrderProblem(army, "lift_siege", f"lift_siege must be true or false, got "
                                                          f"{fields['lift_siege']!r}"))
    if "assault" in fields and fields["assault"] is not None and not isinstance(fields["assault"], str):
        problems.append(OrderProblem(army, "assault", f"assault must be a structure name, got {fields['assault']!r}"))
    transfers = fields.get("transfers", [])
    if not isinstance(transfers, list):
        problems.append(OrderProblem(army, "transfers", f"transfers must be a list of {{to, fp}}, got {transfers!r}"))
    else:
        for i, t in enumerate(transfers, 1):
            ok = (
                isinstance(t, Mapping)
                and set(t) == {"to", "fp"}
                and all(isinstance(t[k], int) and not isinstance(t[k], bool) for k in ("to", "fp"))
            )
            if not ok:
                problems.append(OrderProblem(army, "transfers", f"transfer {i} {t!r} must be {{ to = ARMY, fp = FP }}"
                                                                 " with whole numbers"))
            elif t["fp"] <= 0:
                problems.append(OrderProblem(army, "transfers", f"transfer {i} to army {t['to']}: fp must be "
                                                                 f"positive, got {t['fp']}"))
    problems += _sea_link_syntax_problems(army, fields.get("sea_links", {}))
    return problems


def _sea_link_syntax_problems(army: int, links: Any) -> list[OrderProblem]:
    form = 'write sea_links = { "Mare Sardoum" = ["Caralis"] }: a sea zone, then the structures it links to'
    if not isinstance(links, Mapping):
        return [OrderProblem(army, "sea_links", f"sea_links must be a table of sea zones, got {links!r}; {form}")]
    problems = []
    for zone, targets in links.items():
        if not (isinstance(zone, str) and zone.strip()):
            problems.append(OrderProblem(army, "sea_links", f"{zone!r} is not a sea-zone name; {form}"))
        elif not (isinstance(targets, list) and all(isinstance(t, str) and t.strip() for t in targets)):
            problems.append(OrderProblem(army, "sea_links", f"{zone}: {targets!r} must be a list of structure "
                                                             f"names; {form}"))
    return problems


def parse_army_orders(army: int, fields: Mapping[str, Any]) -> ArmyOrders:
    """One army's orders from a mapping of the file fields (see the module doc)."""
    problems = _field_problems(army, fields)
    if problems:
        raise OrderSyntaxError(problems)
    return _build(army, fields)


def _build(army: int, fields: Mapping[str, Any]) -> ArmyOrders:
    return ArmyOrders(
        army=army,
        moves=tuple(int(t) for t in fields.get("moves", "").split()),
        initiative=fields.get("initiative", "strength").strip(),
        lift_siege=bool(fields.get("lift_siege", False)),
        assault=fields.get("assault"),
        transfers=tuple(Transfer(int(t["to"]), int(t["fp"])) for t in fields.get("transfers", [])),
        sea_links=tuple((zone.strip(), t.strip()) for zone, targets in fields.get("sea_links", {}).items()
                        for t in targets),
    )


def parse_orders_text(text: str, source: str = "<orders>") -> OrdersFile:
    """Parse a TOML orders file's text; every syntax problem of every army is reported together."""
    try:
        doc = parse_user_toml(text, source)
    except InputError as e:
        # "X is not valid TOML" / "nested too deeply" already names the file: one line, as it is.
        raise OrderSyntaxError([OrderProblem(None, "file", str(e))]) from None
    problems: list[OrderProblem] = []
    for key in sorted(set(doc) - {"faction", "round", "armies"}):
        problems.append(OrderProblem(None, "file", f"unknown top-level key {key!r}; keys are faction, round, armies"))
    faction = doc.get("faction")
    if faction is not None and not isinstance(faction, str):
        problems.append(OrderProblem(None, "file", f"faction must be a name, got {faction!r}"))
    rnd = doc.get("round")
    if rnd is not None and (not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1):
        problems.append(OrderProblem(None, "file", f"round must be a positive whole number, got {rnd!r}"))
    armies = doc.get("armies", {})
    if not isinstance(armies, dict):
        problems.append(OrderProblem(None, "file", "armies must be tables: [armies.9]"))
        armies = {}
    orders: dict[int, ArmyOrders] = {}
    for key, fields in armies.items():
        army = whole_number(key)
        if army is None:
            # ASCII digits only: "٩" or "９" would otherwise be taken as army 9.
            problems.append(OrderProblem(None, "file", f"[armies.{key}]: the army must be its number in digits 0-9, like [armies.9]"))
            continue
        if not isinstance(fields, dict):
            problems.append(OrderProblem(army, "file", "must be a table with moves = \"...\""))
            continue
        p = _field_problems(army, fields)
        if "moves" not in fields:
            p.append(OrderProblem(army, "moves", "no moves: write moves = \"\" to stand in place"))
        problems += p
        if not p:
            orders[army] = _build(army, fields)
    if problems:
        raise OrderSyntaxError(problems, source)
    return OrdersFile(faction, rnd, dict(sorted(orders.items())))


def load_orders_file(path: str | Path) -> OrdersFile:
    """Read and parse a TOML orders file (see the module doc)."""
    p = Path(path)
    return parse_orders_text(read_user_text(p, "orders file"), str(p))


def orders_from_cli(items: Iterable[str]) -> dict[int, ArmyOrders]:
    """``["9=3 3 5 0 5", "10="]`` -> {9: ArmyOrders(9, (3, 3, 5, 0, 5)), 10: ArmyOrders(10)}."""
    problems: list[OrderProblem] = []
    orders: dict[int, ArmyOrders] = {}
    for item in items:
        army_text, sep, moves = item.partition("=")
        army = whole_number(army_text)
        if not sep or army is None:
            shown = item if len(item) <= 60 else item[:60] + "..."
            problems.append(OrderProblem(None, "army", f"{shown!r} is not ARMY=MOVES with the army in digits 0-9 "
                                                       "(e.g. \"9=3 3 5 0 5\")"))
            continue
        if army in orders:
            problems.append(OrderProblem(army, "army", "ordered twice"))
            continue
        p = _move_syntax_problems(moves, army)
        problems += p
        if not p:
            orders[army] = ArmyOrders(army=army, moves=tuple(int(t) for t in moves.split()))
    if problems:
        raise OrderSyntaxError(problems, "the command line")
    return orders


def army_orders_from_cli(
    army: int,
    moves: str = "",
    *,
    initiative: str = "strength",
    lift_siege: bool = False,
    assault: str | None = None,
    transfers: Iterable[str] = (),
    sea_links: Iterable[str] = (),
) -> ArmyOrders:
    """Every field from CLI options; ``transfers`` as ``"TO:FP"`` strings (``"10:60"``),
    ``sea_links`` as ``"ZONE:STRUCTURE"`` strings (``"Mare Sardoum:Caralis"``), in the order given."""
    parsed = []
    problems = []
    for t in transfers:
        to, sep, fp = t.partition(":")
        if not sep or whole_number(to) is None or whole_number(fp) is None:
            problems.append(OrderProblem(army, "transfers", f"{t!r} is not TO:FP in digits 0-9 (e.g. \"10:60\")"))
        else:
            parsed.append({"to": whole_number(to), "fp": whole_number(fp)})
    links: dict[str, list[str]] = {}
    for item in sea_links:
        zone, sep, target = item.partition(":")
        if not sep or not zone.strip() or not target.strip():
            problems.append(OrderProblem(army, "sea_links", f"{item!r} is not ZONE:STRUCTURE "
                                                             "(e.g. \"Mare Sardoum:Caralis\")"))
        else:
            links.setdefault(zone.strip(), []).append(target.strip())
    fields = {"moves": moves, "initiative": initiative, "lift_siege": lift_siege, "assault": assault,
              "transfers": parsed, "sea_links": links}
    problems += _field_problems(army, fields)
    if problems:
        raise OrderSyntaxError(problems, "the command line")
    return _build(army, fields)


# --- layer 2: legality in the position -----------------------------------------------


def impassable_reason(board: Board, cell: str) -> str | None:
    """Why a land army cannot enter ``cell`` by an ordinary land move (None when it can).

    Seed: "Peaks and Lakes are impassable"; water hexes are for navies (a strait Coast hex is
    entered only as half of a strait crossing, which :func:`walk_moves` recognises).
    """
    h = board.hexes[cell]
    if h.kind != "land":
        return f"{h.kind} hex (water: armies on land cannot enter it)"
    if h.terrain not in board.rules.movement.terrain_mp:  # no MP cost: Peaks
        return f"{h.terrain} hex (impassable)"
    return None


def naval_impassable_reason(board: Board, cell: str) -> str | None:
    """Why a navy cannot enter ``cell`` (None when it can): only Coast and Sea hexes, and only
    kinds the rules give an NMP cost (seed: "across Coast and Sea hexes (not Ocean hexes)")."""
    kind = board.hexes[cell].kind
    if kind in NAVAL_KINDS and kind in board.rules.naval.move_nmp:
        return None
    if kind == "land":
        return ("land hex: a navy moves only over Coast and Sea hexes; it debarks by the administration's "
                "debark order, not by a move")
    return f"{kind} hex: a navy moves only over Coast and Sea hexes"


def walk_moves(
    board: Board, start: str, moves: Iterable[int], army: int | None = None, *, naval: bool = False
) -> list[str]:
    """The hexes a move string visits from ``start``, one per move (0s repeat the hex; a strait
    crossing visits the strait hex, then the land across); raises IllegalOrderError at the first
    move that names no side here or enters a hex the army cannot.  ``naval``: walk it as a
    navy's path (Coast and Sea hexes only)."""
    path, problems = _walk(board, start, tuple(moves), army, naval=naval)
    if problems:
        raise IllegalOrderError(problems)
    return path


def _crossings_text(board: Board, here: str) -> str:
    open_ = strait_crossings_from(board, here)
    if not open_:
        return f"no strait can be crossed from hex {here}"
    return "strait crossings from hex " + here + ": " + "; ".join(
        f"clock {c1} then {c2} (strait {s} to hex {to})" for c1, s, c2, to in open_)


def _walk(
    board: Board, start: str, moves: tuple[int, ...], army: int | None, *, naval: bool = False
) -> tuple[list[str], list[OrderProblem]]:
    here = start
    path = [start]
    text = _quote(" ".join(str(m) for m in moves))
    index = 0
    while index < len(moves):
        clock = moves[index]
        index += 1
        if clock == 0:
            path.append(here)
            continue
        sides = board.sides.get(here, {})
        if clock not in sides:
            valid = " ".join(str(c) for c in sorted(sides)) or "none"
            # Tell "off the map" apart from "no such side" with the full H3 geometry of the hex.
            from bellica.geo.hexgrid import cell_sides  # here: bellica.geo.hexgrid loads h3ronpy, numpy, pyarrow and shapely, off a CLI step's path (issue 11)

            on_globe = {s.clock for s in cell_sides(here)}
            why = "that side leads off the map" if clock in on_globe else "this hex has no side at that clock position"
            return path, [
                OrderProblem(army, "moves", f"clock {clock} in {text}: unknown direction for hex {here} "
                                            f"({why}); valid clock positions here: {valid}", index)
            ]
        target = sides[clock]
        entered = f"clock {clock} in {text} from hex {here} enters hex {target}"
        if naval:
            reason = naval_impassable_reason(board, target)
            if reason:
                return path, [OrderProblem(army, "moves", f"{entered}: {reason}", index)]
            here = target
            path.append(here)
            continue
        if board.hexes[target].kind == "coast" and board.hexes[here].kind == "land":
            across = lands_across(board, target, here)
            nxt = moves[index] if index < len(moves) else None
            land_to = board.sides.get(target, {}).get(nxt) if nxt else None
            if land_to is not None and land_to in across:
                reason = impassable_reason(board, land_to)
                if reason:
                    return path, [OrderProblem(army, "moves", f"clock {nxt} in {text} crosses the strait at "
                                                              f"{target} into hex {land_to}: {reason}", index + 1)]
                path += [target, land_to]
                here = land_to
                index += 1
                continue
            if across:
                after = "no further move" if nxt is None else f"move {index + 1} (clock {nxt})"
                why = (f"a strait (a coast hex between two land hexes), but {after} does not land on the hex across it; an army crosses a strait with "
                       f"two moves, into the strait and onto the land hex across; {_crossings_text(board, here)}")
            else:
                why = (f"coast hex (water: armies on land cannot enter it, except to cross a strait; "
                       f"{_crossings_text(board, here)})")
            return path, [OrderProblem(army, "moves", f"{entered}: {why}", index)]
        reason = impassable_reason(board, target)
        if reason:
            return path, [OrderProblem(army, "moves", f"{entered}: {reason}", index)]
        here = target
        path.append(here)
    return path, []


def max_moves(board: Board) -> int:
    """The most moves an army can make in a round on land: the round's MP over the cheapest step
    (a move costs at least ``min_move_mp``, a "0" costs ``stand_still_mp``); the two moves of a
    strait crossing count as one."""
    m = board.rules.movement
    return m.points_per_round // max(1, min(m.min_move_mp, m.stand_still_mp))


def max_naval_moves(board: Board, state: CampaignState, faction: str) -> tuple[int, str]:
    """(cap, why) on a navy's move string: ``faction``'s NMP this round summed over every sea zone
    (level x NMP per point) over the cheapest naval move, never below :func:`max_moves`.  Generous
    on purpose: the pools are shared among the faction's navies only during movement."""
    n = board.rules.naval
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    total = sum(superiority_level(board, state, z, faction) * n.movement_points_per_superiority for z in zones)
    cheapest = max(1, min(n.move_nmp.values(), default=1))
    cap = max(max_moves(board), total // cheapest)
    why = (f"{faction}'s navies have {total} NMP this round over all sea zones and the cheapest naval move costs "
           f"{cheapest} NMP")
    return cap, why


def _first_move(moves: Iterable[int]) -> tuple[int, int] | None:
    """(0-based position, clock) of the first move that is not a "0"."""
    return next(((i, c) for i, c in enumerate(moves) if c != 0), None)


def _crosses_strait_first(board: Board, cell: str, moves: tuple[int, ...]) -> bool:
    first = _first_move(moves)
    if first is None:
        return False
    i, clock = first
    strait = board.sides.get(cell, {}).get(clock)
    if strait is None or i + 1 >= len(moves) or moves[i + 1] == 0:
        return False
    return board.sides.get(strait, {}).get(moves[i + 1]) in lands_across(board, strait, cell)


def moves_by_sea(
    board: Board,
    state: CampaignState,
    army: Army,
    moves: Iterable[int],
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> bool:
    """True when ``army`` with these moves is moved by the naval simulation, not on land: it is at
    sea already, or its first move that is not a "0" enters a Coast or Sea hex (and is not the first
    half of a strait crossing) from a Town/City it may embark from (:func:`~engine.vae_victis.naval.can_embark`,
    with ``blockaded`` structures, default those of ``state``)."""
    if army.eliminated or army.cell is None:
        return False
    if is_navy(board, army):
        return True
    moves = tuple(moves)
    first = _first_move(moves)
    if first is None:
        return False
    target = board.sides.get(army.cell, {}).get(first[1])
    if target is None or board.hexes[target].kind not in NAVAL_KINDS or _crosses_strait_first(board, army.cell, moves):
        return False
    return can_embark(board, state, army, blockaded) is None


def sea_movers(
    board: Board,
    state: CampaignState,
    orders: Mapping[int, ArmyOrders],
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> frozenset[int]:
    """The armies the naval simulation moves this round (:func:`moves_by_sea`): every live army at
    sea, ordered or not, and every army whose orders embark it.  Pass it as ``naval`` to
    :func:`engine.vae_victis.movement.resolve_movement`."""
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    return frozenset(
        a.id for a in state.armies
        if moves_by_sea(board, state, a, orders[a.id].moves if a.id in orders else (), blockaded)
    )


def influence_cap(
    board: Board,
    state: CampaignState,
    faction: str,
    zone: str,
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> int:
    """Influence points ``faction`` may assign to sea ``zone``: its controlled, unbesieged,
    unblockaded Towns/Cities adjacent to a Coast hex of that zone, times its influence multiplier
    when ``rules.naval.influence_cap`` is "multiplier" (seed, "Naval superiority"), alone when it
    is "count".  ``blockaded``: names of blockaded structures (None: those of ``state``)."""
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    mult = _influence_multiplier(board, faction)
    count = sum(1 for s in board.structures.values() if _coastal_in_zone(board, state, s, faction, zone, blockaded) is None)
    return mult * count


def _influence_multiplier(board: Board, faction: str) -> int:
    if board.rules.naval.influence_cap == "count":
        return 1
    return board.factions[faction].influence_multiplier if faction in board.factions else 1


def _coastal_in_zone(board: Board, state: CampaignState, s, faction: str, zone: str, blockaded) -> str | None:
    """Why structure ``s`` is not one of ``faction``'s unbesieged, unblockaded structures adjacent
    to a Coast hex of ``zone`` (None: it is)."""
    owner = controller_of(state, s)
    if owner != faction:
        return f"{s.name} is controlled by {owner or 'nobody'}, not {faction}"
    if state.siege_of(s.name):
        return f"{s.name} is besieged"
    if s.name in blockaded:
        return f"{s.name} is blockaded"
    if not any(board.hexes[n].kind == "coast" and zone in board.sea_zones.get(n, ()) for n in
               board.sides.get(s.cell, {}).values()):
        return f"{s.name} is not adjacent to a Coast hex of {zone}"
    return None


def _pair(a: int, b: int) -> frozenset[int]:
    return frozenset((a, b))


def check_orders(
    board: Board,
    state: CampaignState,
    faction: str | None,
    orders: Mapping[int, ArmyOrders],
    *,
    linked_pairs: Collection[Collection[int]] = (),
    transferred_before: Mapping[frozenset[int], int] | None = None,
    blockaded: Collection[str] | Mapping[str, object] | None = None,
) -> list[OrderProblem]:
    """Every legality problem of ``orders`` (see the module doc); ``faction`` None checks armies of any faction.

    ``linked_pairs``: pairs of armies connected by their faction's logistics lines at the
    start of the round.  ``transferred_before``: FP already transferred between pairs in
    earlier rounds (the 100 FP cap holds for the whole campaign).  ``blockaded``: names of
    blockaded structures at the start of the round; None (the default) reads them from
    ``state`` (:func:`engine.vae_victis.naval.blockaded_structures`).
    """
    if blockaded is None:
        blockaded = blockaded_structures(board, state)
    problems: list[OrderProblem] = []
    armies = {a.id: a for a in state.armies}
    linked = {_pair(*p) for p in linked_pairs}
    pair_totals: dict[frozenset[int], int] = dict(transferred_before or {})
    given: dict[int, int] = {}
    influence: dict[tuple[str, str], list[int]] = {}
    links: dict[tuple[str, str], list[tuple[str, int]]] = {}  # (faction, zone) -> [(structure, army)], first naming
    zones = {z for zs in board.sea_zones.values() for z in zs}
    known = ", ".join(str(i) for i in sorted(armies)) or "none"

    for army_id in sorted(orders):
        o = orders[army_id]
        if o.army != army_id:
            problems.append(OrderProblem(army_id, "army", f"orders filed under army {army_id} are for army {o.army}"))
            continue
        a = armies.get(army_id)
        if a is None:
            problems.append(OrderProblem(army_id, "army", f"no such army (armies: {known})"))
            continue
        if faction is not None and a.faction != faction:
            problems.append(OrderProblem(army_id, "army", f"army {army_id} is not in {faction} (it belongs to "
                                                          f"{a.faction})"))
            continue
        if a.eliminated or a.cell is None:
            problems.append(OrderProblem(army_id, "army", "the army is eliminated and takes no orders"))
            continue

        problems += _move_problems(board, state, a, o.moves, blockaded)

        if o.initiative != "strength":
            if o.initiative not in zones:
                hint = _close_matches(o.initiative, sorted(zones), n=1)
                problems.append(OrderProblem(army_id, "initiative", f"{o.initiative!r} is neither \"strength\" nor a "
                                             "sea zone" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                             + f"; sea zones: {', '.join(sorted(zones)) or 'none'}"))
            else:
                influence.setdefault((a.faction, o.initiative), []).append(army_id)

        for zone, target in o.sea_links:
            problems += _sea_link_problems(board, state, a, zone, target, zones, blockaded, links)

        siege = None
        if o.lift_siege or o.assault:
            siege = next((s for s in state.sieges if army_id in s.armies), None)
        if o.lift_siege and o.assault:
            problems.append(OrderProblem(army_id, "assault", f"cannot both lift the siege and assault {o.assault}"))
        elif o.lift_siege and siege is None:
            problems.append(OrderProblem(army_id, "lift_siege", "the army besieges nothing, there is no siege to lift"))
        if o.assault and not o.lift_siege:
            if o.assault not in board.structures:
                hint = _close_matches(o.assault, sorted(board.structures), n=1)
                problems.append(OrderProblem(army_id, "assault", f"no structure named {o.assault!r}"
                                             + (f" (did you mean {hint[0]!r}?)" if hint else "")))
            else:
                target = state.siege_of(o.assault)
                if target is None or army_id not in target.armies:
                    besieging = f"; it besieges {siege.structure}" if siege else "; it besieges nothing"
                    problems.append(OrderProblem(army_id, "assault", f"{o.assault} is not besieged by army {army_id}"
                                                 + besieging + " (only besieging armies assault)"))

        for t in o.transfers:
            b = armies.get(t.to_army)
            if t.to_army == army_id:
                problems.append(OrderProblem(army_id, "transfers", "an army cannot transfer FP to itself"))
                continue
            if b is None or b.faction != a.faction or b.eliminated:
                why = "no such army" if b is None else (
                    f"it belongs to {b.faction}" if b.faction != a.faction else "it is eliminated")
                problems.append(OrderProblem(army_id, "transfers", f"cannot transfer to army {t.to_army}: {why}"))
                continue
            if _pair(army_id, t.to_army) not in linked:
                problems.append(OrderProblem(army_id, "transfers", f"armies {army_id} and {t.to_army} are not "
                                             "connected by logistics lines at the start of the round"))
                continue
            key = _pair(army_id, t.to_army)
            before = pair_totals.get(key, 0)
            pair_totals[key] = before + t.fp
            transfer_cap = board.rules.administration.max_transfer_fp  # seed, "Transfer of strength between armies"
            if pair_totals[key] > transfer_cap:
                problems.append(OrderProblem(army_id, "transfers", f"{t.fp} FP to army {t.to_army} brings the FP "
                                             f"transferred between armies {min(key)} and {max(key)} to "
                                             f"{pair_totals[key]}, over the cap of {transfer_cap} ({before} "
                                             "already)"))
            given[army_id] = given.get(army_id, 0) + t.fp
            if given[army_id] > a.strength:
                problems.append(OrderProblem(army_id, "transfers", f"gives {given[army_id]} FP but has only "
                                             f"{a.strength} FP"))

    for (f, zone), ids in sorted(influence.items()):
        cap = influence_cap(board, state, f, zone, blockaded)
        if len(ids) > cap:
            times = "" if board.rules.naval.influence_cap == "count" else f"{_influence_multiplier(board, f)} x "
            problems.append(OrderProblem(ids[cap], "initiative",
                                         f"{f} assigns {len(ids)} influence point(s) to {zone} (armies "
                                         f"{', '.join(map(str, ids))}) but may assign at most {cap}: "
                                         f"{times}its controlled unbesieged, unblockaded towns/cities adjacent to a "
                                         "Coast hex of that zone"))
    for (f, zone), named in sorted(links.items()):
        level = superiority_level(board, state, zone, f)
        if len(named) > level:
            target, army_id = named[level]
            problems.append(OrderProblem(army_id, "sea_links",
                                         f"{f} names {len(named)} sea-link target(s) in {zone} "
                                         f"({', '.join(t for t, _ in named)}) but its naval superiority there is "
                                         f"{level}, so at most {level} may be linked: drop {target} or a target "
                                         "before it"))
    return problems


def _move_problems(
    board: Board, state: CampaignState, a: Army, moves: tuple[int, ...], blockaded
) -> list[OrderProblem]:
    """The move string's problems: by sea or on land (see the module doc), and its length."""
    if moves_by_sea(board, state, a, moves, blockaded):
        cap, why = max_naval_moves(board, state, a.faction)
        if len(moves) > cap:
            return [OrderProblem(a.id, "moves", f"{len(moves)} moves, but {why}, so at most {cap} moves can be "
                                                "used: drop the moves the navy cannot make")]
        return _walk(board, a.cell, moves, a.id, naval=True)[1]
    cap = max_moves(board)
    m = board.rules.movement
    over = OrderProblem(a.id, "moves", f"{len(moves)} moves, but an army has {m.points_per_round} MP "
                                       f"a round and the cheapest move costs {min(m.min_move_mp, m.stand_still_mp)} MP, "
                                       f"so at most {cap} moves can be used: drop the moves it cannot make")
    # Never stored: a string longer than any round can use is a mistake, and it would sit in the log for
    # ever.  A strait crossing's two moves count as one, so a string may be one move longer per crossing.
    if len(moves) > 2 * cap:
        return [over]
    path, problems = _walk(board, a.cell, moves, a.id)
    crossings = sum(1 for c in path[1:] if board.hexes[c].kind != "land")
    if len(moves) - crossings > cap:
        return [over]
    first = _first_move(moves)
    if problems and first is not None and problems[0].index == first[0] + 1:
        target = board.sides.get(a.cell, {}).get(first[1])
        if target is not None and board.hexes[target].kind in NAVAL_KINDS:
            # The first move leaves by sea but the army may not embark: say why, not only "water".
            # A strait's own message (how to cross it) comes first, the embarking reason after it
            # when the army stands in a Town/City.
            reason = can_embark(board, state, a, blockaded)
            p = problems[0]
            if lands_across(board, target, a.cell):
                if board.structure_at(a.cell) is not None:
                    problems[0] = OrderProblem(a.id, "moves", f"{p.message}; nor can it embark here: {reason}", p.index)
            else:
                text = _quote(" ".join(str(m) for m in moves))
                problems[0] = OrderProblem(a.id, "moves", f"clock {first[1]} in {text} from hex {a.cell} enters hex "
                                                          f"{target} ({board.hexes[target].kind}): it cannot embark "
                                                          f"here: {reason}", p.index)
    return problems


def _sea_link_problems(
    board: Board,
    state: CampaignState,
    a: Army,
    zone: str,
    target: str,
    zones: Collection[str],
    blockaded,
    named: dict[tuple[str, str], list[tuple[str, int]]],
) -> list[OrderProblem]:
    """One (zone, structure) sea-link target of army ``a``'s orders; legal targets are added to ``named``."""
    if zone not in zones:
        hint = _close_matches(zone, sorted(zones), n=1)
        return [OrderProblem(a.id, "sea_links", f"{zone!r} is not a sea zone"
                             + (f" (did you mean {hint[0]!r}?)" if hint else "")
                             + f"; sea zones: {', '.join(sorted(zones)) or 'none'}")]
    s = board.structures.get(target)
    if s is None:
        hint = _close_matches(target, sorted(board.structures), n=1)
        return [OrderProblem(a.id, "sea_links", f"{zone}: no structure named {target!r}"
                             + (f" (did you mean {hint[0]!r}?)" if hint else ""))]
    why = _coastal_in_zone(board, state, s, a.faction, zone, blockaded)
    if why:
        return [OrderProblem(a.id, "sea_links", f"{zone}: {why}; a sea link reaches only the faction's own "
                                                 "unbesieged, unblockaded Towns/Cities adjacent to a Coast hex "
                                                 "of the zone")]
    seen = named.setdefault((a.faction, zone), [])
    if all(t != target for t, _ in seen):
        seen.append((target, a.id))
    return []


def validate_orders(
    board: Board,
    state: CampaignState,
    faction: str | None,
    orders: Mapping[int, ArmyOrders],
    *,
    linked_pairs: Collection[Collection[int]] = (),
    transferred_before: Mapping[frozenset[int], int] | None = None,
    blockaded: Collection[str] | Mapping[str, object] | None = None,
    source: str = "",
) -> dict[int, ArmyOrders]:
    """The orders, sorted by army, if all are legal; else one :class:`IllegalOrderError` listing every problem."""
    problems = check_orders(board, state, faction, orders, linked_pairs=linked_pairs,
                            transferred_before=transferred_before, blockaded=blockaded)
    if problems:
        raise IllegalOrderError(problems, source)
    return {k: orders[k] for k in sorted(orders)}
