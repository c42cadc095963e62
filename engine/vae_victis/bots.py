"""Vae Victis II's engine players (:mod:`bellica.engine.core.players`): ``random`` and ``heuristic``.

Both read only their seat (the faction's player view and :class:`~.bots_board.Aid`, the public
board) and answer with the declared steps a person takes: ``initiative`` (ARMY=USE items)
while the round's initiative is open, ``orders`` (ARMY=MOVES items, every army of the faction
still without orders) once it is published.  Nothing else: results, retreats and the
administration's choices stay the umpire's (:func:`siege_wishes` and :func:`debark_wishes` give
the heuristic's as ``--siege`` and ``--debark`` choices).

* **random**: every army's orders drawn among legal ones: a random walk of a random length
  over the hexes its move string may enter (:func:`~.order_paths.impassable_reason`, the same
  rule the checks apply), by sea now and then from a port it may embark from; each drawn order
  is checked with :func:`~.order_checks.check_orders` on the seat's position and an army whose
  draw fails stands still.  Initiative: strength, or now and then a sea zone within the
  influence cap.
* **heuristic**, in this order, one reason per army: an army besieging keeps its siege; an own
  town or city with an enemy army within two hexes (three for a capital) and no army inside is
  secured by the nearest army (the lines of supply first); every other army marches on the
  weakest structure it reaches within three rounds by land (an enemy town, then one held by
  nobody, then an enemy city, a capital last; nearest first), halting in its zone of control to besiege it (or gain it,
  when nobody holds it); with none in reach it embarks where it may and crosses by sea through
  the zones where its faction has naval superiority, and asks, at the initiative, for that
  zone's influence; with nothing in reach it stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from bellica.engine.core.players import NOTE_KIND, Answer, Seat
from bellica.engine.core.sealed import OrderSeal
from bellica.engine.core.steps import UMPIRE, Action
from bellica.engine.vae_victis.rounds.orders_step import ORDER_SEAL

__all__ = ["BOTS", "BOT_SEAL", "BOTS_STEP", "RandomBot", "HeuristicBot", "bot_aid", "siege_wishes", "debark_wishes"]


# --- the seal of a bot's reasons: those of its orders -----------------------------------------------------


def _note(data) -> bool:
    return "bot" in data and "army" not in data


BOT_SEAL = OrderSeal(
    is_order=lambda kind, data: kind == NOTE_KIND or ORDER_SEAL.is_order(kind, data),
    round=lambda data: int(data["round"]),
    owner=lambda data, snap: data["faction"] if _note(data) else ORDER_SEAL.owner(data, snap),
    carried=lambda data: (frozenset({"initiative"} if list(data.get("steps", ())) == ["initiative"] else
                                    {"initiative", "moves"}) if _note(data) else ORDER_SEAL.carried(data)),
    opened=ORDER_SEAL.opened,
    public=lambda data: ({"faction": data["faction"], "bot": data["bot"], "round": data["round"]} if _note(data)
                         else ORDER_SEAL.public(data)),
    text=lambda data: (f"{data['faction']}, played by the {data['bot']} bot, gave its reasons, sealed like its orders"
                       if _note(data) else ORDER_SEAL.text(data)),
)
"""The ruleset's seal: :data:`~.rounds.orders_step.ORDER_SEAL`, and a ``bot_note`` sealed as the
orders it explains (initiative reasons open at publication, the others at the reveal)."""


def bot_aid(campaign):
    """The :class:`~.bots_board.Aid` of a seat: the board, the published superiority and rests."""
    from bellica.engine.vae_victis.bots_board import Aid

    levels: dict[str, dict[str, int]] = {}
    for zone, faction, level in campaign.con.execute("SELECT zone, faction, level FROM naval_superiority").fetchall():
        levels.setdefault(zone, {})[faction] = int(level)
    rest = dict(campaign.con.execute("SELECT army, until_round FROM navy_rest").fetchall())
    return Aid(campaign.board, levels, {int(a): int(r) for a, r in rest.items()})


# --- what both bots share -------------------------------------------------------------------------------------


def _todo(seat: Seat) -> tuple[str | None, list[int]]:
    """(the step to take, the faction's live armies still without it), or (None, [])."""
    status = seat.view.status
    if seat.view.phase != "orders" or status.get("orders_mode", "sealed") != "sealed":
        return None, []
    if status.get("stage") == "initiative" and seat.action("initiative"):
        return "initiative", sorted(int(a) for a in status.get("missing_initiative", {}).get(seat.faction, ()))
    if status.get("stage") == "moves" and seat.action("orders") and not status.get("revealed"):
        return "orders", sorted(int(a) for a in status.get("missing_orders", {}).get(seat.faction, ()))
    return None, []


def _answer(step: str, chosen: Mapping[int, str], reasons: list[str]) -> list[Answer]:
    if not chosen:
        return []
    key = "uses" if step == "initiative" else "moves"  # the steps' keyed parameters, ARMY=VALUE items
    return [Answer(step, {key: [f"{a}={v}" for a, v in sorted(chosen.items())]}, tuple(reasons))]


def _text(moves) -> str:
    return " ".join(str(m) for m in moves)


class _Orders:
    """What both bots share: their orders come from the view and the board, never from the values a
    page offers (engine.core.players.reads_offers), so their seats are read without them."""

    reads_offers = False


# --- random ------------------------------------------------------------------------------------------------------------


class RandomBot(_Orders):
    """Random-legal orders (module doc)."""

    def decide(self, seat: Seat) -> list[Answer]:
        from bellica.engine.vae_victis.bots_board import public_state

        step, armies = _todo(seat)
        if not armies:
            return []
        pos = public_state(seat.view, seat.aid)
        if step == "initiative":
            uses = _random_uses(seat, pos, armies)
            drawn = [f"army {a} {'takes the strength bonus' if u == 'strength' else 'puts its point into ' + u}"
                     for a, u in sorted(uses.items())]
            return _answer(step, uses, ["drew initiative uses at random: " + "; ".join(drawn)])
        orders = {a: _random_moves(seat, pos, a) for a in armies}
        drawn = [f"army {a}: \"{m}\"" for a, m in sorted(orders.items())]
        return _answer(step, orders, ["drew legal moves at random: " + "; ".join(drawn)])


def _random_uses(seat: Seat, pos, armies: list[int]) -> dict[int, str]:
    from bellica.engine.vae_victis.order_checks import influence_cap
    from bellica.engine.vae_victis.naval_superiority import all_zones

    board = seat.aid.board
    zones = [z for z in all_zones(board) if influence_cap(board, pos.state, pos.faction, z) > 0]
    given: dict[str, int] = {}
    uses = {}
    for a in armies:
        use = "strength"
        if zones and seat.rng.random() < 0.25:
            zone = seat.rng.choice(zones)
            if given.get(zone, 0) < influence_cap(board, pos.state, pos.faction, zone):
                given[zone] = given.get(zone, 0) + 1
                use = zone
        uses[a] = use
    return uses


def _random_moves(seat: Seat, pos, army_id: int) -> str:
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.naval_superiority import can_embark, is_navy
    from bellica.engine.vae_victis.order_checks import check_orders
    from bellica.engine.vae_victis.order_paths import impassable_reason, max_moves, naval_impassable_reason

    board, r = seat.aid.board, seat.rng
    army = pos.state.army(army_id)
    naval = is_navy(board, army) or (can_embark(board, pos.state, army) is None and r.random() < 0.25)
    length = r.randint(0, 8 if naval else max_moves(board))
    here, moves = army.cell, []
    for i in range(length):
        sides = sorted(board.sides.get(here, {}).items())
        if naval:
            # An embarking army's first move leaves its port for a Coast hex; after that, Coast and Sea.
            ok = [(c, n) for c, n in sides if not naval_impassable_reason(board, n)]
        else:
            ok = [(c, n) for c, n in sides if not impassable_reason(board, n)]
        if not ok:
            break
        clock, here = r.choice(ok)
        moves.append(clock)
    drawn = tuple(moves)
    if drawn and check_orders(board, pos.state, pos.faction, {army_id: ArmyOrders(army_id, drawn)}):
        return ""  # a draw the checks refuse (an embarkation the rules forbid): stand still
    return _text(drawn)


# --- heuristic ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One army's intention: its moves this round, why, and the sea zone it crosses (or None)."""

    moves: tuple[int, ...]
    reason: str
    zone: str | None = None
    target: str | None = None


class HeuristicBot(_Orders):
    """Orders a reader can follow, one reason per army (module doc)."""

    def decide(self, seat: Seat) -> list[Answer]:
        from bellica.engine.vae_victis.bots_board import public_state
        from bellica.engine.vae_victis.bots_plans import plan_armies

        step, armies = _todo(seat)
        if not armies:
            return []
        pos = public_state(seat.view, seat.aid)
        plans = plan_armies(seat.aid.board, pos)
        if step == "initiative":
            return _heuristic_uses(seat, pos, plans, armies)
        orders = {a: _text(plans[a].moves) for a in armies if a in plans}
        return _answer(step, orders, [plans[a].reason for a in armies if a in plans])


def _heuristic_uses(seat: Seat, pos, plans: Mapping[int, Plan], armies: list[int]) -> list[Answer]:
    from bellica.engine.vae_victis.order_checks import influence_cap

    board = seat.aid.board
    given: dict[str, int] = {}
    uses, reasons = {}, []
    for a in armies:
        zone = plans[a].zone if a in plans else None
        if zone and given.get(zone, 0) < influence_cap(board, pos.state, pos.faction, zone):
            given[zone] = given.get(zone, 0) + 1
            uses[a] = zone
            reasons.append(f"army {a} puts its initiative point into {zone}: it crosses by sea this round")
        else:
            uses[a] = "strength"
    plain = [a for a in armies if uses[a] == "strength"]
    if plain:
        one = len(plain) == 1
        reasons.append(f"arm{'y' if one else 'ies'} {', '.join(map(str, plain))} take{'s' if one else ''} the initiative "
                       "bonus in battle: no crossing by sea planned")
    return _answer("initiative", uses, reasons)


def siege_wishes(board, view, aid) -> dict[int, str]:
    """{army: structure} the heuristic would besiege at the administration now: each of the
    faction's armies not besieging, next to an enemy town or city nobody besieges yet that the
    rules let it besiege (:func:`~.sieges.siege_refusal`), the weakest first.  For the umpire's ``--siege`` choices."""
    from bellica.engine.vae_victis.bots_board import public_state
    from bellica.engine.vae_victis.sieges import siege_refusal

    pos = public_state(view, aid)
    out: dict[int, str] = {}
    for a in pos.state.armies:
        if a.faction != pos.faction or any(a.id in s.armies for s in pos.state.sieges):
            continue
        # A structure already besieged is left out: its siege may end in this administration (taken
        # before the new sieges start), and a request to join it would then be refused.
        near = sorted((s.kind != "town", s.capital, s.name) for s in board.structures.values()
                      if s.cell in board.sides.get(a.cell, {}).values() and pos.state.siege_of(s.name) is None
                      and siege_refusal(board, pos.state, a.id, s.name) is None)
        if near:
            out[a.id] = near[0][2]
    return out


def debark_wishes(board, view, aid) -> dict[int, int]:
    """{navy: clock} the heuristic would debark at the administration now: each of the faction's
    navies next to a land hex it may land on (no other faction's town or city; a terrain the rules
    let a navy land on), one next to a structure not the faction's first.  For ``--debark``."""
    from bellica.engine.vae_victis.bots_board import public_state
    from bellica.engine.vae_victis.naval_superiority import is_navy

    pos = public_state(view, aid)
    landings = board.rules.naval.debark_nmp
    out: dict[int, int] = {}
    for a in pos.state.armies:
        if a.faction != pos.faction or not is_navy(board, a):
            continue
        options = []
        for clock, cell in sorted(board.sides.get(a.cell, {}).items()):
            h, s = board.hexes[cell], board.structure_at(cell)
            if h.kind != "land" or (s is None and h.terrain not in landings):
                continue
            if s is not None and pos.state.control.get(s.name) not in (None, pos.faction):
                continue
            near = any(pos.state.control.get(t.name) != pos.faction for t in board.structures.values()
                       if t.cell in board.sides.get(cell, {}).values() or t.cell == cell)
            options.append((not near, clock))
        if options:
            out[a.id] = min(options)[1]
    return out


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}


# --- the umpire's step ---------------------------------------------------------------------------------------------------


def _bots(c, _umpire):
    from bellica.engine.core.players import play_bots, seats
    from bellica.geo.errors import InputError

    if not seats(c.con):
        raise InputError("no seat of this campaign is played by a bot: give one with "
                         "`bellica campaign bot CAMPAIGN FACTION=KIND` (kinds: " + ", ".join(sorted(BOTS)) + ")")
    played = play_bots(c)
    if not played:
        return ["no bot has anything to give now: its armies have their initiative uses or orders, or the round is "
                "past its orders"]
    lines = []
    for p in played:
        lines.append(f"{p.faction}, played by the {p.kind} bot:")
        lines += [f"  {line}" for line in p.told]
    lines.append("(the bots' reasons are in the log, sealed like their orders)")
    return lines


BOTS_STEP = Action(
    "bots", "The bot seats give what the round asks of them now: initiative uses before publication, orders after it "
            "(`bellica campaign bot` seats a bot).", _bots, UMPIRE, step="orders",
    details="Each bot reads only its faction's player view and gives its steps as the faction would; they are "
            "validated, sealed and logged like a person's, with the bot's reasons sealed beside them.",
    example="bellica round bots punic.duckdb")
