"""Magna Graecia's steps as data: `bellica magna-graecia <step>` and the web forms follow from them.

Each side in the scenario's order moves (``move``, ``exchange``, ``embark``, ``disembark``,
``sail``, ``shelter``, ``attack-city``), then ``end-movement`` (alliance rolls, its sieges, the
battles due); the battles follow (``defence``, ``siege``, ``sally``, ``result`` with the table's
losses, ``second-day`` stay/retire sealed per side, ``fleet-battle``), the retreats
(``retreat``, ``retreat-fleet``), then ``end-turn`` (``next`` ends the movement or the turn,
whichever comes next).  Recovery rolls follow a result (and a fleet's losses) at once; ``roll``
enters any die rolled at the table under its label beforehand (``recovery/3/Gela/36/Sp(O)/1``),
else the campaign seed rolls it.

Who takes each step: the phasing side moves, ends its movement and its turn and sallies; a
defending side chooses its defence (or the umpire for it: ``--side`` may be left out), goes
inside the walls (``siege``) or attacks a neutral city during the battle there; every side of
an undecided battle writes its second-day order; a beaten command's or fleet's owner retreats
it (or the umpire: ``--side`` may be left out); the umpire enters results, fights the fleets,
enters dice and ends the season by the sides' agreement.  The rules (who may, when) are
:func:`~bellica.engine.magna_graecia.ruleset.play`'s; each step here only builds its input.
"""

from __future__ import annotations

from typing import Iterable

from bellica.engine.core.steps import SIDE, UMPIRE, Action, Param
from bellica.geo.errors import InputError

__all__ = ["ACTIONS", "losses_of", "pairs"]


def pairs(values: Iterable[str], what: str, example: str) -> dict[str, int]:
    """``ELEMENT=N`` words as {element: count} (a repeated element adds up); bad input otherwise."""
    from bellica.geo.files import whole_number

    out: dict[str, int] = {}
    for v in values:
        key, _, n = str(v).rpartition("=")
        count = whole_number(n)  # ASCII digits only: str.isdigit() takes "²", which int() refuses
        if not key.strip() or count is None or count < 1:
            raise InputError(f"{what} {v!r}: give ELEMENT=N with N >= 1 (e.g. {example})")
        out[key.strip()] = out.get(key.strip(), 0) + count
    return out


def losses_of(items: Iterable[str], flag: str = "--loss") -> dict[str, dict[str, int]]:
    """``COMMAND:ELEMENT=N`` words (``--loss``) as {command: {element: count}}; bad input otherwise."""
    lost: dict[str, dict[str, int]] = {}
    for item in items:
        cid, sep, rest = item.partition(":")
        if not sep or not cid.strip():
            raise InputError(f"{flag} {item!r}: give COMMAND:ELEMENT=N (e.g. '40:Sp(I)=2')")
        for k, n in pairs([rest], flag, "'40:Sp(I)=2'").items():
            lost.setdefault(cid.strip(), {})
            lost[cid.strip()][k] = lost[cid.strip()].get(k, 0) + n
    return lost


def _play(c, step: str, arg: dict) -> list:
    from .ruleset import play

    return play(c, step, arg)


def _side_step(step: str, *names: str):
    """A step whose input is the acting side and the parameters ``names``, as typed."""
    def run(c, side, **typed):
        return _play(c, step, {"side": side, **{n: typed[n] for n in names}})
    return run


def _exchange(c, side, *, giver, taker, elements):
    return _play(c, "exchange", {"side": side, "from": giver, "to": taker,
                                 "elements": pairs(elements, "element", "'Sp(O)=2'")})


def _sally(c, side, *, node, naval):
    return _play(c, "sally", {"side": side, "node": node, **({"naval": True} if naval else {})})


def _result(c, _umpire, *, node, winner, losses, open_paths, surrendered, city_holder):
    arg: dict = {"node": node, "winner": winner, "losses": losses_of(losses)}
    if open_paths:
        arg["open_paths"] = list(open_paths)
    if surrendered:
        arg["surrendered"] = list(surrendered)
    if city_holder:
        arg["city_holder"] = city_holder
    return _play(c, "result", arg)


def _fleet_battle(c, _umpire, *, node, retreat, drown):
    order = []  # the player's order: COMMAND:ELEMENT=N words as [command, element, n], as typed
    for item in drown or ():
        for cid, els in losses_of([item], "--drown").items():
            order += [[cid, e, n] for e, n in els.items()]
    return _play(c, "fleet_battle", {"node": node, "retreat": retreat, "element_losses": order})


def _reorganise(c, side, *, node, giver, taker, elements):
    return _play(c, "reorganise", {"side": side, "node": node, "from": giver, "to": taker,
                                   "elements": pairs(elements, "element", "'Sp(I)=2'")})


def _next(c, side):
    phase = c.snapshot().campaign("phase")
    return _play(c, "end_movement" if phase == "movement" else "end_turn", {"side": side})


def _roll(c, _umpire, *, label, value):
    return _play(c, "roll", {"label": label, "value": value})


def _agree_end(c, _umpire):
    return _play(c, "agree_end", {})


NODE = Param("node", "The node (a place of the campaign's map).", required=True, example="Motya")
PATH = Param("path", "The nodes entered, in order.", required=True, many=True, example="Leontini")
COMMAND = Param("command", "The command's number (`bellica magna-graecia status` lists them).", "whole", required=True,
                example="38")
COMMANDS = Param("commands", "The commands' numbers.", "whole", required=True, many=True, example="36")

ACTIONS = (
    Action("move", "SIDE moves COMMAND along PATH (the nodes entered, in order).", _side_step("move", "command", "path"),
           SIDE, (COMMAND, PATH),
           example="bellica magna-graecia move dionysian.duckdb --side Syracuse 38 Leontini Catana"),
    Action("exchange", "SIDE moves ELEMENTS (ELEMENT=N ...) from command GIVER to TAKER in one node.", _exchange, SIDE, (
        Param("giver", "The command giving the elements.", "whole", required=True, example="36"),
        Param("taker", "The command taking them (in the same node).", "whole", required=True, example="37"),
        Param("elements", "The elements moved, ELEMENT=N each.", required=True, many=True, example="Sp(O)=2"),
    ), example="bellica magna-graecia exchange dionysian.duckdb --side Syracuse 36 37 'Sp(O)=2'"),
    Action("embark", "SIDE puts COMMANDS aboard its fleet (in the same coastal node).", _side_step("embark", "commands"),
           SIDE, (COMMANDS,), example="bellica magna-graecia embark dionysian.duckdb --side Syracuse 36 37"),
    Action("disembark", "SIDE lands COMMANDS from its fleet where it lies.", _side_step("disembark", "commands"),
           SIDE, (COMMANDS,), example="bellica magna-graecia disembark dionysian.duckdb --side Syracuse 36 37"),
    Action("sail", "SIDE sails its fleet along PATH (coastal nodes joined by sea paths).", _side_step("sail", "path"),
           SIDE, (PATH,), example="bellica magna-graecia sail dionysian.duckdb --side Syracuse Catana"),
    Action("shelter", "SIDE shelters its fleet in the friendly, garrisoned, fortified coastal city where it lies.",
           _side_step("shelter"), SIDE, example="bellica magna-graecia shelter dionysian.duckdb --side Carthage"),
    Action("attack-city", "SIDE attacks the neutral city of NODE, where it stands (the city joins SIDE's opponent); a "
                          "defending side may do so during a battle there, and the city then joins the attacker.",
           _side_step("attack_city", "node"), SIDE, (NODE,), step="attack_city",
           example="bellica magna-graecia attack-city dionysian.duckdb --side Syracuse Morgantina"),
    Action("end-movement", "SIDE ends its movement: stacking checked, alliance rolls, its sieges, the battles due.",
           _side_step("end_movement"), SIDE, step="end_movement",
           example="bellica magna-graecia end-movement dionysian.duckdb --side Syracuse"),
    Action("defence", "The defending SIDE at NODE chooses a forward, central or rear defence for the table.",
           _side_step("defence", "node", "defence"), SIDE, (
               NODE,
               Param("defence", "forward, central or rear.", "choice", choices=("forward", "central", "rear"),
                     required=True, metavar="forward|central|rear"),
           ), details="Without --side the umpire chooses it for the defenders.", umpire_too=True, umpire_page=True,
           example="bellica magna-graecia defence dionysian.duckdb --side Carthage Motya rear"),
    Action("base-edge", "The attacking SIDE, its commands having entered NODE by more than one path, names the node "
                        "it entered from that gives its base edge (before the defence is chosen; default: the "
                        "lowest-numbered command's path).", _side_step("base_edge", "node", "edge"), SIDE, (
               NODE,
               Param("edge", "The node it entered from.", required=True, example="Leontini"),
           ), step="base_edge", example="bellica magna-graecia base-edge dionysian.duckdb --side Syracuse Gela Acrae"),
    Action("reorganise", "Before a battle at NODE, the side a city's forces fight for (or the umpire, for a neutral "
                         "city) moves ELEMENTS between two of the city's commands, at no cost.", _reorganise, SIDE, (
               NODE,
               Param("giver", "The city command giving the elements.", "whole", required=True, example="40"),
               Param("taker", "The city command taking them.", "whole", required=True, example="41"),
               Param("elements", "The elements moved, ELEMENT=N each.", required=True, many=True, example="Sp(I)=2"),
           ), umpire_too=True, umpire_page=True,
           example="bellica magna-graecia reorganise dionysian.duckdb --side Carthage Motya 40 41 'Sp(I)=2'"),
    Action("siege", "SIDE lays siege to the fortified city of NODE instead of fighting there: the phasing side, or a "
                    "defending side declaring all its forces there inside the walls.",
           _side_step("siege", "node"), SIDE, (NODE,),
           example="bellica magna-graecia siege dionysian.duckdb --side Syracuse Motya"),
    Action("sally", "The phasing SIDE's forces besieged in NODE sally against the besiegers (a land battle, or with "
                    "--naval a fleet fight against the besieging fleet).", _sally, SIDE, (
        NODE,
        Param("naval", "Its fleet sheltered in the harbour puts out and fights the besieging fleet.", "flag", "--naval"),
    ), example="bellica magna-graecia sally dionysian.duckdb --side Carthage Motya --naval"),
    Action("result", "The umpire enters the table battle's result at NODE: winner and losses (recovery rolls follow).",
           _result, UMPIRE, (
               NODE,
               Param("winner", "The winning side, or none (undecided: the second day's orders follow).", flag="--winner",
                     required=True, example="Syracuse"),
               Param("losses", "Elements a command lost on the table (repeat; 'general' for its commander).",
                     flag="--loss", many=True, metavar="COMMAND:ELEMENT=N", example="40:Sp(I)=2"),
               Param("open_paths", "A node the loser may still retreat towards (repeat; default every path but the "
                                   "winner's base edge).", flag="--open", many=True, metavar="NODE"),
               Param("surrendered", "An allied city command that surrendered on the table, its city occupied by the "
                                    "enemy (repeat); it becomes an ally of the city's holder next turn.", "whole",
                     flag="--surrendered", many=True, metavar="COMMAND", example="40"),
               Param("city_holder", "The side holding the city at the battle's end (default: the winner).", "faction",
                     "--city-holder", example="Syracuse"),
           ), example="bellica magna-graecia result dionysian.duckdb Gela --winner Syracuse --loss '40:Sp(I)=2' "
                      "--loss '36:Sp(O)=1'"),
    Action("second-day", "SIDE writes its sealed stay-or-retire order after an undecided day at NODE; the orders are "
                         "opened together once every side of the battle has written one.",
           _side_step("second_day", "node", "choice"), SIDE, (
               NODE,
               Param("choice", "stay or retire.", "choice", choices=("stay", "retire"), required=True,
                     metavar="stay|retire"),
           ), step="second_day", example="bellica magna-graecia second-day dionysian.duckdb --side Syracuse Gela stay"),
    Action("fleet-battle", "The fleets at NODE fight (a d6 plus naval points each, losses from spare NPs first), or one "
                           "retreats.", _fleet_battle, UMPIRE, (
               NODE,
               Param("retreat", "The defending side retreats its fleet instead of fighting.", "faction", "--retreat",
                     example="Carthage"),
               Param("drown", "The losing side's choice of elements to lose aboard, in its order (repeat; those beyond "
                              "the loss are kept, those short of it the engine picks).", flag="--drown", many=True,
                     metavar="COMMAND:ELEMENT=N", example="38:Ps(O)=2"),
           ), step="fleet_battle",
           example="bellica magna-graecia fleet-battle dionysian.duckdb Motya --retreat Carthage"),
    Action("retreat", "A beaten COMMAND retreats along PATH (its owner gives it, or the umpire).",
           _side_step("retreat", "command", "path"), SIDE, (COMMAND, PATH), umpire_too=True, umpire_page=True,
           example="bellica magna-graecia retreat dionysian.duckdb --side Carthage 40 Segesta Panormus"),
    Action("retreat-fleet", "SIDE's beaten fleet retreats along PATH.", _side_step("retreat_fleet", "path"), SIDE,
           (PATH,), details="Without --side, the umpire retreats the fleet whose retreat is owed.", umpire_too=True, umpire_page=True,
           step="retreat_fleet", example="bellica magna-graecia retreat-fleet dionysian.duckdb --side Carthage Panormus"),
    Action("end-turn", "The phasing SIDE ends its player-turn (battles fought, retreats made): the next side moves.",
           _side_step("end_turn"), SIDE, step="end_turn",
           example="bellica magna-graecia end-turn dionysian.duckdb --side Syracuse"),
    Action("next", "The phasing SIDE ends its movement, or its turn, whichever comes next.", _next, SIDE,
           example="bellica magna-graecia next dionysian.duckdb --side Syracuse"),
    Action("roll", "The umpire enters a die rolled at the table under its LABEL (used instead of the seed's).", _roll,
           UMPIRE, (
               Param("label", "The die's label, KIND/TURN/... (engine/magna_graecia/README.md).", required=True,
                     example="alliance/1/Morgantina/Syracuse"),
               Param("value", "Its face, 1 to 6.", "whole", required=True, example="6"),
           ), example="bellica magna-graecia roll dionysian.duckdb alliance/1/Morgantina/Syracuse 6"),
    Action("agree-end", "The sides agree to end the season now: the victory points decide.", _agree_end, UMPIRE,
           step="agree_end", example="bellica magna-graecia agree-end dionysian.duckdb"),
)
