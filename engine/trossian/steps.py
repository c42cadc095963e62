"""The Trossian campaign's steps as data: `bellica trossian <step>` and the web forms follow from them.

The umpire makes the campaign (``bellica campaign new --scenario trossian``), starts it
(``start``) and moves it on (``next``: begin a phase, carry out the orders once every nation
has given them, end the phase once every battle's result is in, leave winter quarters).  In a
phase's orders each nation gives its kings' orders (``march``, ``sail``, ``courier``, ``army``),
sealed from the others until every nation is ``done``; ``result`` enters a table battle's result
and each unit's fate (the attrition dice follow, from the seed or as entered with ``--die``); in
winter quarters a nation moves banked AP (``bank``) and recruits (``recruit``).  While orders
are given and in winter quarters nations treat (``ally``).  Pacification and sieges need no
command.  The rules themselves are in ``ruleset.py``; each step here only names its function.
"""

from __future__ import annotations

from typing import Sequence

from bellica.engine.core.steps import SIDE, UMPIRE, Action, Param
from bellica.geo.errors import InputError

__all__ = ["ACTIONS"]


def _act(kind: str):
    def run(c, nation, **arg):
        from .ruleset import act

        return act(c, kind, nation, **arg)
    return run


def _next(c, _actor):
    from .ruleset import next_step

    return next_step(c)


def _ally(c, nation, *, partner, brk):
    from .ruleset import ally

    return ally(c, nation, partner, brk=brk)


def _roll(c, _actor, *, label, value):
    from .ruleset import enter_roll

    return enter_roll(c, label, value)


def _ruling(c, _actor, *, nation, card, effect, ap, units, quality, lost_on, words):
    from .ruleset import apply_ruling

    return apply_ruling(c, nation, card, effect, ap=ap, units=units, quality=quality, lost_on=lost_on, words=words)


def _retreats(items: Sequence[str]) -> dict[int, str]:
    from bellica.geo.files import whole_number

    back = {}
    for item in items:
        army, sep, where = item.partition("=")
        if not sep or whole_number(army) is None or not where.strip():  # ASCII digits: "²".isdigit() is True
            raise InputError(f"--retreat {item!r}: give ARMY=PROVINCE, e.g. 30=Varna")
        back[whole_number(army)] = where.strip()
    return back


def _result(c, _actor, *, battle, winner, fates, retreats, dice):
    from .ruleset import enter_result, parse_dice, parse_fates

    return enter_result(c, battle, winner, parse_fates(fates), _retreats(retreats), parse_dice(dice))


def _army(c, nation, *, action, army, others, units, name):
    from .ruleset import act

    return act(c, "army", nation, army=army, action=action, **{"with": others}, units=units, name=name)


def _courier(c, nation, *, action, courier, message, to, path, order=None):
    from .ruleset import act

    return act(c, "courier", nation, courier=courier, action=action, message=message, to=to, path=path,
               **({"order": order} if order else {}))


def _bank(c, nation, *, source, target, ap):
    from .ruleset import act

    return act(c, "bank", nation, source=source, target=target, ap=ap)


ARMY = Param("army", "The army's number.", "whole", "--army", required=True, example="1")

ACTIONS = (
    Action("march", "Order an army to march (sealed until every nation has given its orders).", _act("march"), SIDE, (
        ARMY,
        Param("path", "The provinces entered, in order (repeat): infantry and artillery 1, mounted 2, +1 along roads.",
              flag="--to", required=True, many=True, metavar="PROVINCE", example="Bessarabia"),
    ), example="bellica trossian march blacksea.duckdb --nation Russia --army 1 --to Bessarabia --to Moldavia"),
    Action("sail", "Order a navy's actions this phase (sealed until every nation has given its orders).", _act("sail"), SIDE, (
        Param("navy", "The navy's number.", "whole", "--navy", required=True, example="70"),
        Param("actions", "Up to four, in order: sail:LANE, put_in:TOWN, lie_off:PROVINCE, put_out, embark:ARMY, "
                         "disembark:ARMY.", flag="--do", required=True, many=True, metavar="ACTION", example="put_out"),
    ), example='bellica trossian sail blacksea.duckdb --nation "Ottoman Porte" --navy 70 --do put_out '
               '--do sail:"Western Black Sea"'),
    Action("courier", "Order a courier: send (give it a message in the capital), move (4 places, +1 along roads; "
                      "a d6 per enemy place entered), deliver.", _courier, SIDE, (
        Param("action", "send, move or deliver.", "choice", choices=("send", "move", "deliver"), required=True,
              metavar="ACTION"),
        Param("courier", "The courier's number.", "whole", "--courier", required=True, example="74"),
        Param("message", "send: the king's order it carries.", flag="--message", example="Hold Bender"),
        Param("to", "send: whom it is for (an army, a general, a city).", flag="--to", example="army 1"),
        Param("order", "send: the order it carries to army --to, obeyed once delivered: \"march P, P\" (the provinces "
                       "to enter, over as many phases as it takes), \"hold\" or \"embark\" (board its nation's navy).", flag="--order",
              example="march Kuban"),
        Param("path", "move: the provinces and sea lanes passed, in order (repeat).", flag="--via", many=True,
              metavar="PLACE"),
    ), details="Its message is its nation's alone.",
       example='bellica trossian courier blacksea.duckdb send --nation Russia --courier 74 --message "Hold Bender" '
               '--to "army 1"'),
    Action("army", "Order an army: merge others into it, detach units as a new army, or (an army without an HQ) hold "
                   "or march home.", _army, SIDE, (
        Param("action", "merge, detach, hold or home.", "choice", choices=("merge", "detach", "hold", "home"),
              required=True, metavar="ACTION"),
        ARMY,
        Param("others", "merge: an army joining it (same province; repeat).", "whole", "--with", many=True),
        Param("units", "detach: a unit leaving it as a new army (repeat); an HQ must go and one stay.", "whole",
              "--unit", many=True),
        Param("name", "detach: the new army's name.", flag="--name", default=""),
    ), details="Sealed like every order; a detached army's number is given when the orders are carried out.",
       example="bellica trossian army blacksea.duckdb detach --nation Russia --army 1 --unit 9 --unit 10 --name Cossacks"),
    Action("done", "The nation has given all its orders for this phase.", _act("done"), SIDE,
           example="bellica trossian done blacksea.duckdb --nation Russia"),
    Action("next", "The umpire moves the campaign on: begin the phase; carry out the orders (every nation done); end "
                   "the phase (every battle entered); leave winter quarters.", _next, UMPIRE,
           example="bellica trossian next blacksea.duckdb"),
    Action("result", "Enter a table battle's result; the post-battle attrition rolls follow.", _result, UMPIRE, (
        Param("battle", "The battle's number.", "whole", required=True, example="75"),
        Param("winner", "a, b (or a nation of that side) or draw.", flag="--winner", required=True, example="a"),
        Param("fates", "A unit's fate on the table: destroyed, routed or remaining (the default); repeat.",
              flag="--fate", many=True, metavar="UNIT=FATE", example="12=destroyed"),
        Param("retreats", "Where a beaten army retreats (default: the first open).", flag="--retreat", many=True,
              metavar="ARMY=PROVINCE", example="30=Varna"),
        Param("dice", "A real attrition die (else drawn from the seed); repeat.", flag="--die", many=True,
              metavar="LABEL=FACE"),
    ), example="bellica trossian result blacksea.duckdb 75 --winner Russia --fate 12=destroyed --fate 33=routed"),
    Action("roll", "The umpire enters a die rolled at the table under its LABEL (used instead of the seed's).", _roll,
           UMPIRE, (
        Param("label", "The die's label, KIND/YEAR/... as the rules roll it (engine/trossian/table_dice.py): "
                       "courier/YEAR/PHASE/COURIER/PLACE/pass|fate, cards/..., card/..., card-effect/..., sea/..., "
                       "sea-loss/..., attrition/YEAR/PHASE/BATTLE/UNIT.", required=True, metavar="LABEL",
              example="courier/1806/2/74/Budjak/pass"),
        Param("value", "Its face, from 1.", "whole", required=True, metavar="FACE", example="6"),
    ), details="Enter it before the step that rolls it (a courier's dice before the orders are carried out, a "
               "card's before the phase begins, attrition before the result); the roll's dice event then says "
               "\"(entered)\".  Entering a label again replaces its face.  Any phase; a courier's or a card "
               "schedule's die is sealed from the other nations.",
       example="bellica trossian roll blacksea.duckdb courier/1806/2/74/Budjak/pass 6"),
    Action("ruling", "The umpire applies a chance card as he rules it (a card left to the umpire, or any card).",
           _ruling, UMPIRE, (
        Param("nation", "The nation the card is for.", "faction", "--for", required=True, example="Russia"),
        Param("card", "The card's key (cards.toml).", flag="--card", required=True, example="spy"),
        Param("effect", "What it does, one of the engine's effects: half_port_ap, windfall, levy, desertion, storm, "
                        "mud.", flag="--effect", required=True, example="windfall"),
        Param("ap", "windfall: the AP banked in the capital.", "whole", "--ap"),
        Param("units", "levy: a unit raised in the capital at no cost (repeat).", flag="--unit", many=True,
              metavar="KIND"),
        Param("quality", "levy: line (default), guard or militia.", flag="--quality", default="line"),
        Param("lost_on", "storm: the navy is lost on a d6 of this or less.", "whole", "--lost-on"),
        Param("words", "The ruling in words, for the log.", flag="--words", default=""),
    ), details="A card whose effect is left to the umpire (\"the umpire rules on ...\") is applied here, in any phase; "
               "the effect's random picks (which port, army, navy) are card-effect dice, entered at the table with "
               "`roll` or drawn from the seed.",
       example='bellica trossian ruling blacksea.duckdb --for Russia --card spy --effect windfall --ap 5 '
               '--words "the merchant sells the secret"'),
    Action("bank", "Winter quarters: move banked AP between two of the nation's cities (neither besieged).", _bank, SIDE, (
        Param("source", "The city province the AP leave.", flag="--from", required=True, example="Yedisan"),
        Param("target", "The city province they go to.", flag="--to", required=True, example="Kherson"),
        Param("ap", "How many AP.", "whole", "--ap", required=True, example="10"),
    ), example="bellica trossian bank blacksea.duckdb --nation Russia --from Yedisan --to Kherson --ap 10"),
    Action("recruit", "Winter quarters: buy units, couriers or a navy at one of the nation's cities.", _act("recruit"), SIDE, (
        Param("at", "The city province where the recruits appear.", flag="--at", required=True, example="Yedisan"),
        Param("kinds", "A unit kind, courier or navy (repeat); paid from the AP banked there first.  Troops bought "
                       "without an hq join an army with an HQ there.", flag="--unit",
              required=True, many=True, metavar="KIND", example="line_infantry"),
        Param("quality", "line (default), guard or militia.", flag="--quality", default="line"),
    ), example="bellica trossian recruit blacksea.duckdb --nation Russia --at Yedisan --unit line_infantry --unit courier"),
    Action("ally", "Offer an alliance, accept the one offered to the nation (both words make it), or break one with "
                   "--break (one word is enough: treachery).", _ally, SIDE, (
        Param("partner", "The other nation.", "faction", "--with", required=True, example="Crimean Khanate"),
        Param("brk", "Break the alliance at once (or take back an open offer).", "flag", "--break"),
    ), details="Allies march through and stand in each other's provinces, never battle each other and fight on one "
               "side; an alliance broken where both stand is a battle when the orders are next carried out.  Public "
               "and logged; in the orders phase or winter quarters.",
       example='bellica trossian ally blacksea.duckdb --nation "Ottoman Porte" --with "Crimean Khanate"'),
)
