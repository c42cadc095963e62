"""Orders, layer 1: syntax (:mod:`engine.vae_victis.orders` describes the layers and the file).

The move string exactly as players write it in the seed ("2 4 2 6 0 6": clock positions and
0s, "with no other symbols in between, only blanks"), the other fields' types, the orders file
(TOML, one file per faction and round) and the command line's ``ARMY=MOVES`` items.  Raises
:class:`OrderSyntaxError`; nothing here knows the position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from bellica.engine.vae_victis.model import ArmyOrders, Transfer
from bellica.engine.vae_victis.order_errors import OrderProblem, OrderSyntaxError
from bellica.geo.errors import InputError
from bellica.geo.files import parse_user_toml, read_user_text, whole_number

__all__ = [
    "MAX_MOVES_TEXT",
    "OrdersFile",
    "army_orders_from_cli",
    "load_orders_file",
    "orders_from_cli",
    "parse_army_orders",
    "parse_moves",
    "parse_orders_text",
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
