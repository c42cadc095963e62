"""Rise of Rome's steps as data: `bellica rise-of-rome <step>` (and `bellica turn <step>`) and the
web forms follow from them.

The game is solo: the engine plays the eight other powers and the external armies, and the one
player, Rome, takes every decision.  ``next`` runs the phases until Rome must decide (its
attack, its spending, the result of a battle played on the table, a province Rome takes);
``attack``, ``spend``, ``result`` and ``province`` are those decisions, and ``status`` says where
the turn stands and what Rome may do.  Each step is Rome's side's (``--power`` may name it; at
the keyboard, without it, the player is Rome's); the umpire may take the two that are not Rome's
choices, ``next`` and ``result`` (the person at the table may hold either link), and no other
power takes any (:func:`not_theirs`: the engine plays them).  The rules themselves are in
``play.py``; each step here only names its function, and the parsing of what the player typed
(the ``--defence-split`` list, Civic Improvement being what is left) is here, shared by every
front end, with the values a page offers (:func:`choices`).
"""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.steps import SIDE, Action, Param, ParamError
from bellica.geo.errors import InputError

__all__ = ["ACTIONS", "ROME_ONLY", "choices", "not_theirs", "rome_spending", "parse_split"]

#: Rome's own choices, in the words a refusal names them: its player's alone, never the umpire's.
ROME_ONLY = {"attack": "the attack", "spend": "the spending", "province": "the province taken",
             "table": "taking a battle to the table"}
#: The steps Rome's player or the umpire takes.
EITHER = {"next": "running the turn", "result": "a battle's result", "roll": "dice rolled at the table"}


def rome_spending(c, attack: int, defence: int, civic: int | None, *, names: tuple[str, str] = ("--attack", "--defence")):
    """Rome's :class:`~.spending.Spending` as given, Civic Improvement (``civic`` None) being what
    is left of the revenue Rome may spend freely; ``names`` spell the two amounts in the refusal
    (the CLI's options, the app's fields)."""
    from .status import rome_free_revenue
    from .storage import state_of
    from .spending import Spending

    if civic is None:
        free = rome_free_revenue(c.board, state_of(c.board, c.snapshot()))
        civic = free - attack - defence
        if civic < 0:
            raise InputError(f"{names[0]} {attack} + {names[1]} {defence} is more than the {free} Rome may spend: "
                             "give smaller amounts")
    return Spending(attack, defence, civic)


def parse_split(text: str | None) -> dict[str, int] | None:
    """``"Samnites=20, Etruscans=10"`` -> {"Samnites": 20, "Etruscans": 10}; a bad item is bad input
    (exit 1, one line), as a bad order is."""
    from bellica.geo.files import whole_number

    if text is None:
        return None
    out: dict[str, int] = {}
    for item in (x.strip() for x in text.split(",")):
        name, sep, number = item.rpartition("=")
        n = whole_number(number.strip())  # ASCII digits only, as every number a user types
        if not sep or not name.strip() or n is None or name.strip() in out:
            raise InputError(f"--defence-split {item!r}: give POWER=N (N points in digits 0-9), each power once, "
                             "separated by commas (e.g. Samnites=20,Etruscans=10)")
        out[name.strip()] = n
    return out


def not_theirs(c, name: str, viewer: str | None) -> str | None:
    """Why ``viewer`` (a power; None: the umpire) may never take step ``name``, or None."""
    rome = c.board.player
    if viewer == rome or (viewer is None and name not in ROME_ONLY):
        return None
    if name in ROME_ONLY:
        who = "the umpire" if viewer is None else f"the {_poss(viewer)} player (the engine plays them)"
        return f"{ROME_ONLY[name]} is Rome's decision, made by the {_poss(rome)} token: {who} may not make it"
    return (f"{EITHER.get(name, name)} is for Rome's player or the umpire: the {_poss(viewer)} token may not "
            "(the engine plays them)")


def choices(c, action, param) -> list[str] | None:
    """What a page offers for ``param`` of ``action`` now (None: the declaration's): the powers Rome
    may attack, the attackers its Defense may be split against (attacked more than once), the
    battle awaiting its result and its sides, the provinces Rome may take."""
    from .status import turn_view

    key = (action.name, param.name)
    if key not in (("attack", "target"), ("spend", "defence_split"), ("result", "battle"), ("result", "winner"),
                   ("province", "province"), ("table", "battle")):
        return None
    if key == ("result", "winner"):
        return ["attacker", "defender"]
    view = turn_view(c)
    if key == ("attack", "target"):
        return list(view.targets)
    if key == ("spend", "defence_split"):
        on_rome = [a.attacker for a in view.plan if a.target == c.board.player]
        return [f"{a}=" for a in on_rome] if len(on_rome) > 1 else None
    if key == ("table", "battle"):  # the battles not Rome's (Rome's are on the table already), not fought yet
        from .play import table_candidates

        return [str(j) for j in table_candidates(c, c.snapshot())]
    if key == ("result", "battle"):
        return [str(view.pending_battle["index"])] if view.pending_battle else []
    return list((view.pending_province or {}).get("options") or ())


def _poss(name: str) -> str:
    """``Romans'``, ``Rome's``."""
    return name + ("'" if name.endswith("s") else "'s")


def _as_rome(c, actor: str | None, name: str) -> None:
    """Refuse a power the engine plays (``--power Samnites``); no power named: Rome's player at the keyboard."""
    why = not_theirs(c, name, actor) if actor is not None else None
    if why:
        raise InputError(why)


def _next(c, actor):
    from .play import play_until_decision

    _as_rome(c, actor, "next")
    return play_until_decision(c)


def _attack(c, actor, *, target, none):
    from .play import give_attack

    _as_rome(c, actor, "attack")

    if (target is None) == (not none):
        raise ParamError(_TARGET, "give --target POWER or --none (one of them)")
    return give_attack(c, target)


def _spend(c, actor, *, attack, defence, civic, defence_split):
    from .play import give_spending

    _as_rome(c, actor, "spend")
    split = parse_split(defence_split)
    return give_spending(c, rome_spending(c, attack, defence, civic), split)


def _result(c, actor, *, battle, winner, margin):
    from .play import enter_result

    _as_rome(c, actor, "result")
    return enter_result(c, battle, winner, margin == "major")


def _province(c, actor, *, province, by_rule):
    from .play import choose_province

    _as_rome(c, actor, "province")
    if (province is None) == (not by_rule):
        raise ParamError(_CHOOSE, "give --choose PROVINCE or --by-rule (one of them)")
    return choose_province(c, province)


def _table(c, actor, *, battle):
    from .play import take_to_table

    _as_rome(c, actor, "table")
    return take_to_table(c, battle)


def _roll(c, actor, *, label, dice):
    from .play import enter_roll

    _as_rome(c, actor, "roll")
    return enter_roll(c, label, dice)


_TARGET = Param("target", "The Active power Rome attacks (a neighbour; any case).", "faction", "--target",
                example="Samnites")
_ACTOR = "Rome's power (optional: without it, the player at the keyboard is Rome's; the engine plays the others)."
_CHOOSE = Param("province", "The province Rome takes (any case).", flag="--choose", metavar="PROVINCE",
                example="Campania")

#: Every step is Rome's side's, which the umpire (or the keyboard, naming no power) may take for it.
ROME = {"who": SIDE, "umpire_too": True, "actor_help": _ACTOR}

ACTIONS = (
    Action("next", "Run the engine until a decision is needed (or the campaign ends).", _next, **ROME,
           details="The phases run until Rome must decide; a decision with nothing to choose is taken at once (no "
                   "attack when Rome borders no Active power, everything to Civic Improvement when Rome has nothing "
                   "to spend freely).",
           example="bellica rise-of-rome next rome.duckdb"),
    Action("attack", "Rome's attack this turn (phase 3): --target POWER or --none.", _attack, **ROME, params=(
        _TARGET,
        Param("none", "Rome does not attack this turn.", "flag", "--none"),
    ), example="bellica rise-of-rome attack rome.duckdb --target Samnites"),
    Action("spend", "Rome's spending (phase 4): the revenue it may spend freely, split three ways.", _spend, **ROME,
           params=(
        Param("attack", "Revenue to Attack (default 0).", "whole", "--attack", default=0, example="20"),
        Param("defence", "Revenue to Defense (default 0).", "whole", "--defence", default=0, example="10",
              aliases=("--defense",)),
        Param("civic", "Revenue to Civic Improvement (default: what is left).", "whole", "--civic", example="15"),
        Param("defence_split", "How Rome's Defense meets the attacks on it: points against each attacking power named "
                               "(the rest spread evenly over the attacks not named; default: all spread evenly).",
              flag="--defence-split", metavar="POWER=N,...", aliases=("--defense-split",),
              example="Samnites=20,Etruscans=10"),
    ), details="The three must add up to that revenue (`bellica turn status` shows it); a subject's civic-only yield "
               "goes to Civic Improvement by itself.  Attacked more than once, Rome may say how its Defense meets "
               "each attack with --defence-split.",
       example='bellica rise-of-rome spend rome.duckdb --attack 20 --defence 10 --civic 15; '
               'bellica rise-of-rome spend rome.duckdb --defence 30 --defence-split "Samnites=20,Etruscans=10"'),
    Action("result", "The result of BATTLE, played on the table; then `bellica turn next` fights on.", _result, **ROME,
           params=(
        Param("battle", "The battle's number.", "whole", required=True, metavar="BATTLE", example="3"),
        Param("winner", "attacker or defender (or the winning side's power).", flag="--winner", required=True,
              example="attacker"),
        Param("margin", "A Major or a Minor Victory.", "choice", "--margin", required=True,
              choices=("major", "minor")),
    ), example="bellica rise-of-rome result rome.duckdb 3 --winner attacker --margin minor"),
    Action("table", "Rome's player plays BATTLE of this turn on the table too (the seed: other battles may be "
                    "played at the player's choice); its result is then entered with `result`.", _table, **ROME,
           params=(Param("battle", "The battle's number: its attack's place in the turn's order (`bellica turn "
                                   "status` lists the attacks).", "whole", required=True, metavar="BATTLE", example="2"),),
           details="Once the turn's attacks are known (after Rome's attack), before `bellica turn next` fights that "
                   "battle; a battle of Rome's is on the table already.",
           example="bellica rise-of-rome table rome.duckdb 2"),
    Action("roll", "Enter dice rolled at the table under their LABEL (used instead of the seed's).", _roll, **ROME,
           params=(
        Param("label", "The roll's label as the turn tells it: KIND/TURN/..., e.g. attack/3/Samnites (an attack roll), "
                       "target/3/Samnites/Romans, battle/3/1/attacker/1, ruler/3/Etruscans, intervention/3/Gauls.",
              required=True, metavar="LABEL", example="attack/1/Samnites"),
        Param("dice", "The faces rolled, all the roll's dice (e.g. 5,2 for 2D6).", required=True, metavar="FACES",
              example="5,2"),
    ), details="Enter them before `bellica turn next` rolls them; the step that rolls them logs them as entered "
               "(\"dice rolled at the table\").  Any phase; a label entered again replaces its faces.",
       example="bellica rise-of-rome roll rome.duckdb attack/1/Samnites 5,2"),
    Action("province", "The province Rome takes, where the seed lets the player choose.", _province, **ROME, params=(
        _CHOOSE,
        Param("by_rule", "Let the seed's rule pick (most revenue next turn, a resource, a die).", "flag", "--by-rule"),
    ), details="The province of Rome's attack, the second province of Rome's Major Victory, the province a Roman "
               "defender's Major Victory takes.  `bellica turn status` lists the options; then `bellica turn next`.",
       example="bellica rise-of-rome province rome.duckdb --choose Campania"),
)


def status_lines(status: Mapping) -> list[str]:
    """The player view's status (:func:`~.status.turn_view` as JSON) as ``status`` prints it."""
    from .attacks import Attack
    from .status import TurnView

    if not status.get("started", True):
        return [f"turn {status.get('turn', 0)}, phase {status.get('phase', 'setup')}: not started"]
    fields = {k: status[k] for k in TurnView.__dataclass_fields__}
    fields["plan"] = tuple(Attack(**a) for a in status["plan"])
    return TurnView(**fields).lines()
