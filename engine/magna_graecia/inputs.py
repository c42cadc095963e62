"""The Magna Graecia steps and their input: which phases each runs in and who gives it
(:data:`STEPS`), its words in a refusal (:data:`WORDS`), the names players type
(:func:`side_named`, :func:`node_named`, a command's number), the input resolved to the
campaign's spelling (what the log records) and a step out of turn refused."""

from __future__ import annotations

import re
from typing import Any, Mapping

from bellica.engine.core.machine import StepRefused
from bellica.engine.core.names import named
from bellica.geo.errors import InputError
from bellica.geo.files import whole_number

from .battles import CHOICES, DEFENCES
from .model import GameState
from .storage import Board

__all__ = ["OVER", "STEPS", "WORDS", "node_named", "side_named"]

OVER = "over"
#: step -> (phases it runs in, who gives it: "phasing", "defender", "phasing or defender", "owner", "any side",
#: "umpire")
STEPS: Mapping[str, tuple[tuple[str, ...], str]] = {
    "move": (("movement",), "phasing"), "exchange": (("movement",), "phasing"), "embark": (("movement",), "phasing"),
    "disembark": (("movement",), "phasing"), "sail": (("movement",), "phasing"), "shelter": (("movement",), "phasing"),
    "attack_city": (("movement", "battles"), "phasing or defender"), "end_movement": (("movement",), "phasing"),
    "defence": (("battles",), "defender"), "siege": (("battles",), "phasing or defender"),
    "base_edge": (("battles",), "phasing"), "reorganise": (("battles",), "city's ally"),
    "sally": (("battles",), "phasing"),
    "result": (("battles",), "umpire"), "second_day": (("battles",), "any side"),
    "fleet_battle": (("battles",), "umpire"), "retreat": (("battles",), "owner"),
    "retreat_fleet": (("battles",), "owner"), "end_turn": (("battles",), "phasing"),
    "agree_end": (("movement", "battles"), "umpire"), "roll": (("movement", "battles"), "umpire"),
}
#: step -> its words in a refusal ("cannot <words>: ...")
WORDS = {"move": "move", "exchange": "exchange elements", "embark": "embark", "disembark": "disembark",
         "sail": "sail", "shelter": "shelter the fleet", "attack_city": "attack the city", "end_movement": "end the movement",
         "defence": "choose the defence", "base_edge": "choose the base edge", "reorganise": "reorganise the city's commands",
         "siege": "lay siege", "sally": "sally", "result": "enter the result",
         "second_day": "write a second-day order", "fleet_battle": "fight the fleets", "retreat": "retreat",
         "retreat_fleet": "retreat the fleet", "end_turn": "end the turn", "agree_end": "end the season",
         "roll": "enter a die"}


def _poss(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def side_named(board: Board, name: str, where: str = "--side") -> str:
    return named(name, list(board.scenario.order), where, "no side of this campaign")


def node_named(board: Board, name: str, where: str = "node") -> str:
    return named(name, sorted(board.nmap.places), where, "not a place of this campaign's map")


def _command_id(state: GameState, v: Any, where: str = "command") -> int:
    try:
        cid = int(v)
    except (TypeError, ValueError):
        raise InputError(f"{where} {v!r}: give a command's number (`bellica magna-graecia status` lists them)") from None
    if not any(c.id == cid for c in state.commands):
        raise InputError(f"{where} {cid} is not in play: give one of {', '.join(str(c.id) for c in state.commands)}")
    return cid


def _resolve(board: Board, state: GameState, step: str, arg: Mapping) -> dict:
    """The input with every name spelled as the campaign spells it (what the log records); bad input: InputError."""
    a = {k: v for k, v in arg.items() if v is not None}
    if a.get("side"):
        a["side"] = side_named(board, a["side"])
    for k in ("node",):
        if k in a:
            a[k] = node_named(board, a[k])
    if "edge" in a:
        a["edge"] = node_named(board, a["edge"], "base edge")
    if "path" in a:
        if not a["path"] and step != "retreat":
            raise InputError(f"{step}: give the nodes to enter, in order")
        a["path"] = [node_named(board, n, "path node") for n in a["path"]]
    for k in ("command", "from", "to"):
        if k in a:
            a[k] = _command_id(state, a[k], k)
    if "commands" in a:
        if not a["commands"]:
            raise InputError(f"{step}: give at least one command")
        a["commands"] = [_command_id(state, x) for x in a["commands"]]
    if step in ("exchange", "reorganise"):
        els = a.get("elements") or {}
        if not els or any(not isinstance(n, int) or n < 1 for n in els.values()):
            raise InputError(f"{step}: give elements as ELEMENT=N with N >= 1")
        a["elements"] = dict(sorted(els.items()))  # canonical, as the log's JSON reads back (issue 22)
    if step == "defence" and a.get("defence") not in DEFENCES:
        raise InputError(f"defence {a.get('defence')!r}: give one of {', '.join(DEFENCES)}")
    if step == "second_day" and a.get("choice") not in CHOICES:
        raise InputError(f"second day order {a.get('choice')!r}: give one of {', '.join(CHOICES)}")
    if step == "result":
        w = a.get("winner")
        w = None if w in (None, "") else named(w, list(board.scenario.order) + ["none", "undecided"], "--winner",
                                                 "no side of this campaign")  # the one matcher
        a["winner"] = None if w in (None, "none", "undecided") else w
        losses = {}
        for cid, els in (a.get("losses") or {}).items():
            cid = _command_id(state, cid, "loss command")
            for e, n in els.items():
                if not isinstance(n, int) or n < 1:
                    raise InputError(f"loss {cid}:{e}={n!r}: give a whole number of elements >= 1")
            losses[str(cid)] = dict(sorted(els.items()))
        a["losses"] = dict(sorted(losses.items()))  # canonical, as the log's JSON reads back (issue 22)
        if a.get("surrendered"):
            a["surrendered"] = sorted({_command_id(state, x, "--surrendered") for x in a["surrendered"]})
        else:
            a.pop("surrendered", None)
        if a.get("city_holder"):
            a["city_holder"] = side_named(board, a["city_holder"], "--city-holder")
        if a.get("open_paths") is not None:
            a["open_paths"] = [node_named(board, n, "open path") for n in a["open_paths"]]
        else:
            a.pop("open_paths", None)
    if step == "fleet_battle":
        if a.get("retreat"):
            a["retreat"] = side_named(board, a["retreat"], "--retreat")
        else:
            a.pop("retreat", None)
        if a.get("element_losses"):  # the player's order is the choice: a list, which JSON keeps in order
            a["element_losses"] = [[_command_id(state, k, "--drown command"), str(e), int(n)]
                                   for k, e, n in a["element_losses"]]
        else:
            a.pop("element_losses", None)
    if step == "roll":
        label, value = a.get("label"), a.get("value")
        if isinstance(value, str) and whole_number(value) is not None:  # ASCII digits only: "²" is no face
            value = a["value"] = whole_number(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise InputError(f"roll {label} = {value!r}: give a whole number from 1 to 6")
        a["label"] = roll_label(board, state, label)
    return a


#: An element's key in a roll label: its type's letters, and its grade in brackets where it has one.
_ELEMENT_KEY = re.compile(r"[A-Za-z][A-Za-z_-]*(\([A-Za-z]+\))?")

#: The dice the rules roll, by kind: what follows ``KIND/TURN/`` in a label (engine/magna_graecia/README.md).
ROLL_LABELS = {"alliance": ("node", "side"), "siege": ("node", "side"), "disease": ("node", "side"),
               "disease-passing": ("side", "number", "node"), "fleet": ("node", "side", "number"),
               "recovery": ("node", "number", "element", "number"), "recovery-np": ("node", "side", "number"),
               "salvage": ("node", "side", "number")}


def roll_label(board: Board, state: GameState, label) -> str:
    """A die's label as the rules will roll it (names spelled as the campaign spells them), or one
    line saying why no roll of this season can have it: an unknown kind, a past turn, a place or
    side the campaign does not have.  A die entered under such a label was stored and never used."""
    form = ", ".join(f"{k}/TURN/" + "/".join(p.upper() for p in parts) for k, parts in ROLL_LABELS.items())
    parts = [p.strip() for p in str(label or "").strip().strip("/").split("/")]
    kind = parts[0].lower() if parts else ""
    if kind not in ROLL_LABELS or len(parts) != 2 + len(ROLL_LABELS[kind]):
        raise InputError(f"roll label {label!r}: give one the rules roll: {form}")
    turn = whole_number(parts[1])
    if turn is None or turn < state.turn:
        raise InputError(f"roll label {label!r}: turn {parts[1]!r} is not this turn ({state.turn}) or a later one")
    out = [kind, str(turn)]
    for what, text in zip(ROLL_LABELS[kind], parts[2:]):
        if what == "node":
            out.append(node_named(board, text, f"roll label {label!r}:"))
        elif what == "side":
            out.append(side_named(board, text, f"roll label {label!r}:"))
        elif what == "number":
            if not whole_number(text):
                raise InputError(f"roll label {label!r}: {text!r} is not a number from 1 up")
            out.append(str(whole_number(text)))
        else:  # an element as the losses name it: its DBM type, with its grade where it matters ("Sp(I)")
            if not _ELEMENT_KEY.fullmatch(text):
                raise InputError(f"roll label {label!r}: {text!r} is not an element (a DBM type, a grade in "
                                 "brackets where the losses give one: Sp(I), Ps(O), Gen)")
            out.append(text)
    return "/".join(out)


def _check_turn(state: GameState, step: str, a: Mapping) -> None:
    """Out of turn: StepRefused (exit 3)."""
    _phases, who = STEPS[step]
    side = a.get("side")
    if who == "phasing":
        if not side:
            raise InputError(f"{step}: give --side (the phasing side, {state.phasing})")
        if side != state.phasing:
            raise StepRefused(f"cannot {WORDS[step]}: it is {_poss(state.phasing)} turn, not {_poss(side)}")
    elif who == "defender" or (who == "phasing or defender" and side != state.phasing):
        if who != "defender" and not side:
            raise InputError(f"{step}: give --side (the phasing side, {state.phasing}, or a defending side)")
        b = state.battle_at(a["node"])
        if side and b is not None and side not in b.defenders and not any(state.friends(side, d) for d in b.defenders
                                                                 if d in state.sides):
            raise StepRefused(f"cannot {WORDS[step] if who != 'defender' else 'choose the defence'} at {a['node']}: "
                              f"{side} is not defending there")
    elif who == "owner" and side and step == "retreat":  # retreat_fleet: --side names the fleet
        owner = state.owner(state.command(a["command"]))
        if owner != side:
            raise StepRefused(f"cannot retreat command {a['command']}: it is {_poss(owner or 'a neutral city')}, "
                              f"not {_poss(side)}")
    elif who == "any side" and not side:
        raise InputError(f"{step}: give --side")
    elif who == "city's ally" and side:  # without --side: the umpire, for a neutral city
        owner = state.owner(state.command(a["from"]))
        if owner != side:
            raise StepRefused(f"cannot {WORDS[step]}: command {a['from']} fights for {owner or 'nobody (neutral)'}, "
                              f"not {side}")
