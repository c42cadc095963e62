"""Mare Nostrum's steps as data: `bellica mare-nostrum <step>` (and `bellica turn <step>`) and the
web forms follow from them.

Six nations, the umpire at the keyboard: ``lottery`` enters a real draw (else the campaign seed
draws it), ``begin`` opens a turn (order of play, events, actions), each nation in the order of
play takes its actions (``build``, ``peace``, ``ally``, ``grain``, ``attack``, ``naval``,
``destroy``, ``artworks``) and ``done``; ``result`` enters each battle's Field of Glory result
and ``end`` fights them and gives the verdict (``next`` begins or ends the turn when that is
what comes next).  A nation acting out of its turn is refused.  The rules themselves are in
``play.py``; each step here only names its function, and says what a page offers
(:func:`choices`: the nation's own provinces, the seas, the nations after it in the order of play,
the provinces invaders threaten ...) and which of a nation's steps it offers at all
(:func:`offered`: ``destroy`` and ``artworks`` only to a nation whose event gave it them).
"""

from __future__ import annotations

from typing import Mapping

from bellica.engine.core.steps import SIDE, UMPIRE, Action, Param, ParamError

__all__ = ["ACTIONS", "choices", "offered", "status_lines"]

#: A nation's steps that its random event gives it (the pending keys that allow each).
PENDING = {"artworks": ("defensive_artworks",), "destroy": ("destroy_enemy_fortification", "destroy_enemy_temple")}


def _engine(name: str):
    def run(c, _actor):
        from .play import run_engine_step

        return run_engine_step(c, name)
    return run


def _next(c, _actor):
    from .play import run_engine_step
    from .status import next_decision

    step, _words = next_decision(c, c.snapshot())
    return run_engine_step(c, step) if step in ("begin", "end") else []


def _act(step: str, **rename):
    """A nation's action ``step``; ``rename``: the engine's name of each declared parameter whose differs."""
    def run(c, nation, **given):
        from .play import act

        return act(c, step, nation, **{rename.get(k, k): v for k, v in given.items()})
    return run


def _attack(c, nation, *, base, into, sea):
    from .play import act

    if sea:
        return act(c, "amphibious", nation, base=base, sea=sea, target=into)
    return act(c, "attack", nation, base=base, target=into)


def _lottery(c, _actor, *, numbers, wheel, turn, label):
    from .play import enter_number, enter_wheel

    if (wheel is None) == (label is None):
        raise ParamError(_WHEEL, "give --wheel WHEEL N N N N N or --number LABEL N (one of them)")
    if not numbers:
        raise ParamError(_NUMBERS, "give the numbers after the campaign")
    if label is not None:
        if len(numbers) != 1 or turn is not None:
            raise ParamError(_NUMBERS, "--number LABEL takes one number (and the label names its turn)")
        return enter_number(c, label, numbers[0])
    return enter_wheel(c, wheel, numbers, turn=turn)


def _result(c, _actor, *, battle, winner):
    from .play import enter_result

    return enter_result(c, battle, winner)


_WHEEL = Param("wheel", "The wheel (BA, CA, FI, GE, MI, NA, its city, or its nation) whose draw NUMBERS are.",
               flag="--wheel", example="BA")
_NUMBERS = Param("numbers", "The numbers drawn, in order.", "whole", many=True, metavar="NUMBERS", example="12")
_WORK = Param("work", "fortification, suburbs, temple or fleet.", required=True, metavar="WORK", example="fortification")
_PROVINCE = Param("province", "The province.", required=True, metavar="PROVINCE", example="Latium")

ACTIONS = (
    Action("lottery", "Enter the real lottery numbers (the published draw) before they are needed.", _lottery, UMPIRE, (
        _NUMBERS,
        _WHEEL,
        Param("turn", "The turn the draw is for (default: the next to begin).", "whole", "--turn"),
        Param("label", "Instead of a wheel: the label of one test's number (siege/3/Apulia, peace/2/Romans/Seleucids, "
                       "alliance/TURN/NATION/PROVINCE, naval/TURN/SEA/WHY/SIDE); NUMBERS is that one number.",
              flag="--number", example="siege/1/Apulia"),
    ), details="A wheel's five numbers, in the order drawn: the first orders the play, the second picks the random "
               "event, the third an invasion's province.  A turn whose wheels were not entered draws them from the "
               "campaign seed, and the log keeps every number either way.",
       example="bellica mare-nostrum lottery mare.duckdb --wheel BA 12 45 3 8 9; "
               "bellica mare-nostrum lottery mare.duckdb --number siege/1/Apulia 70"),
    Action("begin", "Begin the next turn: the wheels (entered, or drawn from the seed), the order of play, pirate "
                    "raids, each nation's random event, treasury and actions.", _engine("begin"), UMPIRE,
           example="bellica mare-nostrum begin mare.duckdb"),
    Action("next", "Run the engine until a decision is needed: begin the turn, or end it once every battle's result "
                   "is in.", _next, UMPIRE, example="bellica mare-nostrum next mare.duckdb"),
    Action("build", "The acting nation builds WORK (fortification, suburbs, temple, fleet) in PROVINCE, one action; "
                    "it stands when the nation finishes.", _act("build"), SIDE, (
        _WORK,
        _PROVINCE,
        Param("sea", "For a fleet: the sea quadrant (needed where the province faces several).", flag="--sea"),
    ), example="bellica mare-nostrum build mare.duckdb --nation Romans fortification Latium"),
    Action("peace", "Impose peace (one action; 46-90 succeeds): the other may not attack it this turn.",
           _act("peace", partner="target"), SIDE, (
        Param("partner", "The nation to bind: one after it in this turn's order of play.", "faction", "--with",
              required=True, example="Carthaginians"),
    ), example="bellica mare-nostrum peace mare.duckdb --nation Romans --with Carthaginians"),
    Action("ally", "Ally with the invaders of an enemy's province (one action; 31-90 succeeds): a land battle with "
                   "their army, the province the nation's if won.", _act("alliance", against="province"), SIDE, (
        Param("against", "The enemy province the invaders threaten.", flag="--against", required=True,
              example="Baetica"),
    ), step="alliance", example="bellica mare-nostrum ally mare.duckdb --nation Romans --against Baetica"),
    Action("grain", "Distribute grain (one action): +2 stability.", _act("grain"), SIDE,
           example="bellica mare-nostrum grain mare.duckdb --nation Gauls"),
    Action("attack", "A land attack (--from PROVINCE --into PROVINCE), or with --sea an amphibious one (the "
                     "defender's fleets there fight first).", _attack, SIDE, (
        Param("base", "The province it attacks from (its own).", flag="--from", required=True, example="Latium"),
        Param("into", "The province it attacks.", flag="--into", required=True, example="Etruria"),
        Param("sea", "An amphibious attack across this sea quadrant.", flag="--sea"),
    ), example="bellica mare-nostrum attack mare.duckdb --nation Romans --from Latium --into Etruria"),
    Action("naval", "Attack an enemy's fleets with all the nation's fleets in a quadrant (one action), decided at "
                    "once by lottery numbers.", _act("naval"), SIDE, (
        Param("sea", "The sea quadrant.", flag="--sea", required=True, example="Mare Tyrrhenum"),
        Param("enemy", "The nation whose fleets it attacks there (or Pirates).", flag="--enemy", required=True,
              example="Romans"),
    ), example='bellica mare-nostrum naval mare.duckdb --nation Carthaginians --sea "Mare Tyrrhenum" --enemy Romans'),
    Action("destroy", "Use an Earthquake (fortification) or Great Blaze (temple) on a province the nation does not "
                      "hold (no action).", _act("destroy"), SIDE, (
        Param("work", "fortification or temple.", "choice", choices=("fortification", "temple"), required=True,
              metavar="WORK"),
        _PROVINCE,
    ), example="bellica mare-nostrum destroy mare.duckdb --nation Romans fortification Sicilia"),
    Action("artworks", "A nation with Defensive Artworks names its province, which counts as fortified this turn (no "
                       "action; any time before the battles, in any nation's turn).", _act("artworks"), SIDE, (
        _PROVINCE,
    ), example="bellica mare-nostrum artworks mare.duckdb --nation Ptolemaics Aegyptus"),
    Action("done", "The acting nation finishes its actions: its works stand, the next acts.", _act("done"), SIDE,
           example="bellica mare-nostrum done mare.duckdb --nation Romans"),
    Action("result", "The result of the battle for BATTLE (the province attacked), played on the table; once every "
                     "result is in, `bellica turn end`.", _result, UMPIRE, (
        Param("battle", "The province attacked.", required=True, metavar="BATTLE", example="Etruria"),
        Param("winner", "attacker or defender (or the winning side's nation).", flag="--winner", required=True,
              example="defender"),
    ), example="bellica mare-nostrum result mare.duckdb Etruria --winner defender"),
    Action("end", "Fight the declared battles with their entered results (sieges drawn), in the order declared, and "
                  "give the verdict; the next turn may begin.", _engine("end"), UMPIRE,
           example="bellica mare-nostrum end mare.duckdb"),
)


def status_lines(status: Mapping) -> list[str]:
    """The player view's status (:func:`~.status.turn_view` as JSON) as ``status`` prints it."""
    from .status import TurnView

    if not status.get("started", True):
        return [f"turn {status.get('turn', 0)}, phase {status.get('phase', 'setup')}: not started"]
    return TurnView(**{k: status[k] for k in TurnView.__dataclass_fields__}).lines()


def _peace_partners(state) -> list[str]:
    """The nations after the acting one in the order of play, still playing: those it may bind."""
    return [n for n in state.order[state.current + 1:] if state.nations[n].playing]


def _threatened(board, state, nation: str | None) -> list[str]:
    """The provinces the scenario's invaders threaten that another nation holds (an alliance's aim)."""
    return [p for p in dict.fromkeys(i.province for i in board.invaders) if state.control.get(p) not in (None, nation)]


def offered(c, snap, action, viewer: str | None) -> bool:
    """Whether a page offers ``viewer`` (a nation) ``action`` at all, its position allowing it: the
    event's steps to a nation holding that event, peace with a nation still to act, an alliance
    against a threatened province.  Only a help: the step itself still decides."""
    from .storage import state_of

    if viewer is None or action.name not in (*PENDING, "peace", "ally"):
        return True
    state = state_of(c.board, snap)
    if action.name in PENDING:
        pending = state.nations[viewer].pending if viewer in state.nations else ()
        return any(k in pending for k in PENDING[action.name])
    if action.name == "peace":
        return bool(_peace_partners(state))
    return bool(_threatened(c.board, state, viewer))


def choices(c, viewer: str | None, action, param) -> list[str] | None:
    """The values a page offers ``viewer`` for ``param`` of ``action`` now (None: the declaration's)."""
    from .building import WORKS
    from .model import pirates_name, provinces_of
    from .storage import state_of

    board, key = c.board, (action.name, param.name)
    state = state_of(board, c.snapshot())
    mine = list(provinces_of(board, state, viewer)) if viewer else []
    offered = {
        ("build", "work"): list(WORKS), ("build", "province"): mine, ("attack", "base"): mine,
        ("artworks", "province"): mine, ("build", "sea"): list(board.seas), ("attack", "sea"): list(board.seas),
        ("naval", "sea"): list(board.seas), ("attack", "into"): [p for p in board.provinces if p not in mine],
        ("destroy", "province"): [p for p in board.provinces if p not in mine],
        ("naval", "enemy"): [*(n for n in board.nations if n != viewer), pirates_name(c.rules)],
        ("lottery", "wheel"): [n.wheel for n in board.nations.values()], ("result", "winner"): ["attacker", "defender"],
    }
    if key in offered:
        return offered[key]
    if key == ("peace", "partner"):
        return _peace_partners(state)
    if key == ("ally", "against"):
        return _threatened(board, state, viewer)
    if key == ("destroy", "work"):
        pending = state.nations[viewer].pending if viewer in state.nations else ()
        return [w for w, k in zip(("fortification", "temple"), PENDING["destroy"]) if k in pending]
    if key == ("result", "battle"):
        snap = c.snapshot()
        rnd = int(snap.campaign("round"))
        entered = {k[1] for k in snap.tables["mn_results"] if k[0] == rnd}
        return [a.target for a in state.attacks if a.target not in entered]
    return None
