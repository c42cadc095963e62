"""Orders of one round, parsed and validated in layers (python-chess style).

1. **Syntax** (:func:`parse_moves`, :func:`parse_orders_text`, :func:`orders_from_cli`):
   the move string exactly as players write it in the seed ("2 4 2 6 0 6": clock
   positions and 0s, "with no other symbols in between, only blanks"), the other
   fields' types.  Raises :class:`OrderSyntaxError`.
2. **Legality in the position** (:func:`check_orders`, :func:`validate_orders`):
   the army exists, belongs to the faction and is not eliminated; every clock
   position names a side of the hex the army is in at that point of its path and
   leads to a hex a land army can enter; initiative names a sea zone the faction
   may still influence; lift-siege/assault name a siege of that army; transfers
   go to a linked army of the faction within the 100 FP cap.  All problems of all
   armies are collected and raised together as one :class:`IllegalOrderError`.
3. **Apply**: nothing here changes state; :mod:`engine.movement` and the
   administration apply orders that passed 1 and 2.

Orders file (TOML, one file per faction and round)::

    faction = "roma"
    round = 2

    [armies.9]
    moves = "3 3 5 0 5"             # required string; "" = stand in place (no MP spent)
    initiative = "Mare Tyrrhenum"   # optional: "strength" (default) or a sea-zone name
    lift_siege = false              # optional
    assault = "Capua"               # optional: a structure this army besieges
    transfers = [{ to = 10, fp = 60 }]   # optional: FP given to army 10

CLI: ``ARMY=MOVES`` items (``9=3 3 5 0 5``) for moves alone, or
:func:`army_orders_from_cli` for every field.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping

from tabula.engine.vae_victis.model import ArmyOrders, Board, CampaignState, Transfer
from tabula.engine.vae_victis.zoc import controller_of
from tabula.geo.errors import InputError
from tabula.geo.files import parse_user_toml, read_user_text, whole_number
from tabula.geo.hexgrid import cell_sides

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
    "orders_from_cli",
    "parse_army_orders",
    "parse_moves",
    "parse_orders_text",
    "validate_orders",
    "walk_moves",
]

_ARMY_FIELDS = {"moves", "initiative", "lift_siege", "assault", "transfers"}

#: The longest move string read at all, before any rules are known: far above what any rules
#: let an army use in a round (the seed's 12 MP allow 12 moves, "12 12 ... 12" is 35
#: characters), so only a runaway string (a pasted file, 60,000 tokens) hits it.  The exact
#: cap, from the campaign's rules, is :func:`max_moves`, checked with the position.
MAX_MOVES_TEXT = 1000

#: Bad tokens listed one by one; the rest are counted (a garbage string is one problem, not thousands).
_MAX_TOKEN_PROBLEMS = 5


@dataclass(frozen=True)
class OrderProblem:
    """One thing wrong with an order.  ``index`` is the 1-based number of the move in the string."""

    army: int | None
    field: str
    message: str
    index: int | None = None

    def __str__(self) -> str:
        where = "orders" if self.army is None else f"army {self.army}"
        if self.index is not None:
            where += f", move {self.index}"
        elif self.field not in ("army", "file"):
            where += f", {self.field}"
        return f"{where}: {self.message}"


class OrderError(InputError):
    """Orders rejected; ``problems`` lists every problem found (nothing was applied)."""

    def __init__(self, problems: Iterable[OrderProblem], source: str = ""):
        self.problems = tuple(problems)
        self.source = source
        of = f" of {source}" if source else ""
        if len(self.problems) == 1:
            p = self.problems[0]
            # One problem is one line; a whole-file problem (not TOML, nested too deeply) names the file itself.
            text = p.message if (p.army, p.field, source) == (None, "file", "") else f"problem in the orders{of}: {p}"
        else:
            text = f"{len(self.problems)} problem(s) in the orders{of}:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(text)


class OrderSyntaxError(OrderError):
    """An order is not written in the accepted form (layer 1)."""


class IllegalOrderError(OrderError):
    """A well-formed order that the position does not allow (layer 2)."""


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
        hint = difflib.get_close_matches(key, sorted(_ARMY_FIELDS), n=1)
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
) -> ArmyOrders:
    """Every field from CLI options; ``transfers`` as ``"TO:FP"`` strings (``"10:60"``)."""
    parsed = []
    problems = []
    for t in transfers:
        to, sep, fp = t.partition(":")
        if not sep or whole_number(to) is None or whole_number(fp) is None:
            problems.append(OrderProblem(army, "transfers", f"{t!r} is not TO:FP in digits 0-9 (e.g. \"10:60\")"))
        else:
            parsed.append({"to": whole_number(to), "fp": whole_number(fp)})
    fields = {"moves": moves, "initiative": initiative, "lift_siege": lift_siege, "assault": assault,
              "transfers": parsed}
    problems += _field_problems(army, fields)
    if problems:
        raise OrderSyntaxError(problems, "the command line")
    return _build(army, fields)


# --- layer 2: legality in the position -----------------------------------------------


def impassable_reason(board: Board, cell: str) -> str | None:
    """Why a land army cannot enter ``cell`` (None when it can).

    Seed: "Peaks and Lakes are impassable"; water hexes are for navies (crossing a
    strait is a naval-issue order, not a land move).
    """
    h = board.hexes[cell]
    if h.kind != "land":
        return f"{h.kind} hex (water: armies on land cannot enter it)"
    if h.terrain not in board.rules.movement.terrain_mp:  # no MP cost: Peaks
        return f"{h.terrain} hex (impassable)"
    return None


def walk_moves(board: Board, start: str, moves: Iterable[int], army: int | None = None) -> list[str]:
    """The hexes a move string visits from ``start`` (0s repeat the hex); raises IllegalOrderError
    at the first move that names no side here or enters an impassable hex."""
    path, problems = _walk(board, start, tuple(moves), army)
    if problems:
        raise IllegalOrderError(problems)
    return path


def _walk(board: Board, start: str, moves: tuple[int, ...], army: int | None) -> tuple[list[str], list[OrderProblem]]:
    here = start
    path = [start]
    text = _quote(" ".join(str(m) for m in moves))
    for index, clock in enumerate(moves, 1):
        if clock == 0:
            path.append(here)
            continue
        sides = board.sides.get(here, {})
        if clock not in sides:
            valid = " ".join(str(c) for c in sorted(sides)) or "none"
            # Tell "off the map" apart from "no such side" with the full H3 geometry of the hex.
            on_globe = {s.clock for s in cell_sides(here)}
            why = "that side leads off the map" if clock in on_globe else "this hex has no side at that clock position"
            return path, [
                OrderProblem(army, "moves", f"clock {clock} in {text}: unknown direction for hex {here} "
                                            f"({why}); valid clock positions here: {valid}", index)
            ]
        target = sides[clock]
        reason = impassable_reason(board, target)
        if reason:
            return path, [
                OrderProblem(army, "moves", f"clock {clock} in {text} from hex {here} enters hex {target}: "
                                            f"{reason}", index)
            ]
        here = target
        path.append(here)
    return path, []


def max_moves(board: Board) -> int:
    """The most moves an army can make in a round: the round's MP over the cheapest step
    (a move costs at least ``min_move_mp``, a "0" costs ``stand_still_mp``)."""
    m = board.rules.movement
    return m.points_per_round // max(1, min(m.min_move_mp, m.stand_still_mp))


def influence_cap(
    board: Board, state: CampaignState, faction: str, zone: str, blockaded: Collection[str] = frozenset()
) -> int:
    """Influence points ``faction`` may assign to sea ``zone``: its multiplier times its controlled,
    unbesieged, unblockaded Towns/Cities adjacent to a Coast hex of that zone (seed, "Naval superiority")."""
    mult = board.factions[faction].influence_multiplier if faction in board.factions else 1
    count = 0
    for s in board.structures.values():
        if controller_of(state, s) != faction or state.siege_of(s.name) or s.name in blockaded:
            continue
        if any(board.hexes[n].kind == "coast" and zone in board.sea_zones.get(n, ()) for n in
               board.sides.get(s.cell, {}).values()):
            count += 1
    return mult * count


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
    blockaded: Collection[str] = frozenset(),
) -> list[OrderProblem]:
    """Every legality problem of ``orders`` (see the module doc); ``faction`` None checks armies of any faction.

    ``linked_pairs``: pairs of armies connected by their faction's logistics lines at the
    start of the round.  ``transferred_before``: FP already transferred between pairs in
    earlier rounds (the 100 FP cap holds for the whole campaign).  ``blockaded``: names of
    blockaded structures (naval issue).
    """
    problems: list[OrderProblem] = []
    armies = {a.id: a for a in state.armies}
    linked = {_pair(*p) for p in linked_pairs}
    pair_totals: dict[frozenset[int], int] = dict(transferred_before or {})
    given: dict[int, int] = {}
    influence: dict[tuple[str, str], list[int]] = {}
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

        cap = max_moves(board)
        if len(o.moves) > cap:
            # Never stored: a string longer than any round can use is a mistake, and it would sit in the log for ever.
            m = board.rules.movement
            problems.append(OrderProblem(army_id, "moves", f"{len(o.moves)} moves, but an army has {m.points_per_round} MP "
                                         f"a round and the cheapest move costs {min(m.min_move_mp, m.stand_still_mp)} MP, "
                                         f"so at most {cap} moves can be used: drop the moves it cannot make"))
        else:
            problems += _walk(board, a.cell, o.moves, army_id)[1]

        if o.initiative != "strength":
            if o.initiative not in zones:
                hint = difflib.get_close_matches(o.initiative, sorted(zones), n=1)
                problems.append(OrderProblem(army_id, "initiative", f"{o.initiative!r} is neither \"strength\" nor a "
                                             "sea zone" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                             + f"; sea zones: {', '.join(sorted(zones)) or 'none'}"))
            else:
                influence.setdefault((a.faction, o.initiative), []).append(army_id)

        siege = None
        if o.lift_siege or o.assault:
            siege = next((s for s in state.sieges if army_id in s.armies), None)
        if o.lift_siege and o.assault:
            problems.append(OrderProblem(army_id, "assault", f"cannot both lift the siege and assault {o.assault}"))
        elif o.lift_siege and siege is None:
            problems.append(OrderProblem(army_id, "lift_siege", "the army besieges nothing, there is no siege to lift"))
        if o.assault and not o.lift_siege:
            if o.assault not in board.structures:
                hint = difflib.get_close_matches(o.assault, sorted(board.structures), n=1)
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
            problems.append(OrderProblem(ids[cap], "initiative",
                                         f"{f} assigns {len(ids)} influence point(s) to {zone} (armies "
                                         f"{', '.join(map(str, ids))}) but may assign at most {cap}: "
                                         f"{board.factions[f].influence_multiplier if f in board.factions else 1} x "
                                         "its controlled unbesieged, unblockaded towns/cities adjacent to a Coast "
                                         "hex of that zone"))
    return problems


def validate_orders(
    board: Board,
    state: CampaignState,
    faction: str | None,
    orders: Mapping[int, ArmyOrders],
    *,
    linked_pairs: Collection[Collection[int]] = (),
    transferred_before: Mapping[frozenset[int], int] | None = None,
    blockaded: Collection[str] = frozenset(),
    source: str = "",
) -> dict[int, ArmyOrders]:
    """The orders, sorted by army, if all are legal; else one :class:`IllegalOrderError` listing every problem."""
    problems = check_orders(board, state, faction, orders, linked_pairs=linked_pairs,
                            transferred_before=transferred_before, blockaded=blockaded)
    if problems:
        raise IllegalOrderError(problems, source)
    return {k: orders[k] for k in sorted(orders)}
