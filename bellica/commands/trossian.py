"""`bellica trossian ...`: play a Trossian campaign, one decision per command.

The umpire makes the campaign (``bellica campaign new --scenario trossian``), starts it
(``start``) and moves it on (``next``: begin a phase, carry out the orders once every nation
has given them, end the phase once every battle's result is in, leave winter quarters).
In a phase's orders each nation gives its kings' orders (``march``, ``sail``, ``courier``, ``army``),
sealed from the others until every nation is ``done``; ``result`` enters a table battle's
result and each unit's fate (the attrition dice follow, from the seed or as entered with
``--die``); in winter quarters a nation moves banked AP (``bank``) and recruits
(``recruit``).  While orders are given and in winter quarters nations treat (``ally``: an offer,
accepted by the partner's own ``ally``; ``--break`` ends an alliance at once, on one word).  Pacification and sieges need no command: an army of 20 AP or more that stays
a whole phase in a province it does not hold pacifies it (``status`` lists the sieges).

Each command is one step of the campaign core (one transaction); a step out of order or an
order the rules refuse exits 3 with one line saying what comes next, a bad input exits 1 in
one line.  ``bellica round verify --readjudicate`` re-runs the log; ``bellica log --faction N``
reads it as nation N may (others' orders sealed until all are in, couriers' messages never).
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.campaigns import open_campaign, require_started, resolve_faction
from bellica.commands.options import WHOLE

CAMPAIGN = click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
NATION = click.option("--nation", "nation", required=True, help="The nation giving the order (its name, any case, or its beginning).")

_QUIET_KINDS = {"put_row", "drop_row", "set_campaign", "put_note"}


def _open(campaign: Path, *, read_only: bool = False, started: bool | None = True):
    """The Trossian campaign (another ruleset's: bad input, exit 1); ``started``: refused as a step
    out of order (exit 3) before (``started`` False: after) `bellica trossian start`."""
    from bellica.geo.errors import InputError

    if not campaign.exists():
        raise InputError(f"{campaign}: no such campaign file: make one with `bellica campaign new --scenario trossian --out {campaign}`")
    c = open_campaign(campaign, read_only=read_only)
    try:
        if c.ruleset.name != "trossian":
            raise InputError(f"{campaign} is a {c.ruleset.name} campaign, not a Trossian one: "
                             f"play it with `{c.ruleset.play_command}`")
        if started is not None:
            require_started(c, started)
    except BaseException:
        c.close()
        raise
    return c


def _echo(c, events, nation: str | None = None) -> None:
    """The step's events as ``nation`` may read them (None: the umpire, sealed like any reader)."""
    seal = c.ruleset.order_seal
    snap = c.snapshot()
    for ev in events:
        if ev.kind in _QUIET_KINDS and not (ev.kind == "put_row" and ev.data.get("table") in ("tr_orders", "tr_ready")):
            continue
        if seal.hides(nation, ev.kind, ev.data, snap):
            click.echo(seal.text(ev.data))
        else:
            click.echo(ev.text if ev.kind != "step" else f"== {ev.text}")


def _next_line(c) -> None:
    from bellica.engine.trossian.ruleset import next_decision

    click.echo(f"next: {next_decision(c, c.snapshot())[1].replace('CAMPAIGN', str(c.path))}")


def _act(campaign: Path, step: str, nation: str, **arg) -> None:
    from bellica.engine.trossian.ruleset import act

    with _open(campaign) as c:
        nation = resolve_faction(c, nation, param_hint="--nation")
        events = act(c, step, nation, **arg)
        _echo(c, events, nation)
        _next_line(c)


@click.group(name="trossian")
def group() -> None:
    """Play a Trossian Napoleonic campaign: start, status, march, sail, courier, army, done, next,
    result, bank, recruit, ally."""


@group.command("start")
@CAMPAIGN
@click.option("--seed", type=WHOLE, default=None, help="The campaign's random seed (default 1): every die comes from it.")
def start(campaign: Path, seed: int | None) -> None:
    """Start the campaign: the 1806 census in place, Early Spring of the scenario's year.

    Example: bellica trossian start blacksea.duckdb --seed 1806
    """
    with _open(campaign, started=False) as c:
        s = c.start(seed=seed)
        for ev in c.events():
            if ev.kind not in _QUIET_KINDS:
                click.echo(ev.text)
        click.echo(f"{campaign}: campaign started, round {s.campaign('round')}, seed {s.campaign('seed')}")
        _next_line(c)


@group.command("status")
@CAMPAIGN
@click.option("--nation", "nation", default=None, help="See as this nation: its treasury, couriers, orders and armies' strength.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: date, round, phase, control, armies, navies, lanes, "
                                                      "battles, sieges, alliances, offers, next; with --nation its treasury, "
                                                      "couriers and orders (docs/rules/trossian.md, \"Scripting\").")
def status(campaign: Path, nation: str | None, as_json: bool) -> None:
    """Where the campaign stands (as a nation sees it with --nation: other nations' strengths,
    treasuries, couriers and orders are theirs).

    Example: bellica trossian status blacksea.duckdb --nation Russia
    """
    from bellica.engine.trossian.ruleset import status_lines, status_view

    with _open(campaign, read_only=True) as c:
        view = status_view(c, resolve_faction(c, nation, param_hint="--nation"))
    if as_json:
        from bellica.commands.jsonout import echo_json

        echo_json({**view, "next": view["next"].replace("CAMPAIGN", str(campaign))})
        return
    for line in status_lines(view):
        click.echo(line.replace("CAMPAIGN", str(campaign)))


@group.command("march")
@CAMPAIGN
@NATION
@click.option("--army", type=WHOLE, required=True, help="The army's number.")
@click.option("--to", "path", multiple=True, required=True, metavar="PROVINCE",
              help="The provinces entered, in order (repeat): infantry and artillery 1, mounted 2, +1 along roads.")
def march(campaign: Path, nation: str, army: int, path: tuple[str, ...]) -> None:
    """Order an army to march (sealed until every nation has given its orders).

    Example: bellica trossian march blacksea.duckdb --nation Russia --army 1 --to Bessarabia --to Moldavia
    """
    _act(campaign, "march", nation, army=army, path=list(path))


@group.command("sail")
@CAMPAIGN
@NATION
@click.option("--navy", type=WHOLE, required=True, help="The navy's number.")
@click.option("--do", "actions", multiple=True, required=True, metavar="ACTION",
              help="Up to four, in order: sail:LANE, put_in:TOWN, lie_off:PROVINCE, put_out, embark:ARMY, disembark:ARMY.")
def sail(campaign: Path, nation: str, navy: int, actions: tuple[str, ...]) -> None:
    """Order a navy's actions this phase (sealed until every nation has given its orders).

    Example: bellica trossian sail blacksea.duckdb --nation "Ottoman Porte" --navy 70 --do put_out --do sail:"Western Black Sea"
    """
    _act(campaign, "sail", nation, navy=navy, actions=list(actions))


@group.command("courier")
@CAMPAIGN
@click.argument("action", type=click.Choice(["send", "move", "deliver"]))
@NATION
@click.option("--courier", type=WHOLE, required=True, help="The courier's number.")
@click.option("--message", default=None, help="send: the king's order it carries.")
@click.option("--to", "to", default=None, help="send: whom it is for (an army, a general, a city).")
@click.option("--via", "path", multiple=True, metavar="PLACE", help="move: the provinces and sea lanes passed, in order (repeat).")
def courier(campaign: Path, action: str, nation: str, courier: int, message: str | None, to: str | None,
            path: tuple[str, ...]) -> None:
    """Order a courier: send (give it a message in the capital), move (4 places, +1 along
    roads; a d6 per enemy place entered), deliver.  Its message is its nation's alone.

    Example: bellica trossian courier blacksea.duckdb send --nation Russia --courier 74 --message "Hold Bender" --to "army 1"
    """
    _act(campaign, "courier", nation, courier=courier, action=action, message=message, to=to, path=list(path))


@group.command("army")
@CAMPAIGN
@click.argument("action", type=click.Choice(["merge", "detach", "hold", "home"]))
@NATION
@click.option("--army", type=WHOLE, required=True, help="The army's number.")
@click.option("--with", "others", type=WHOLE, multiple=True, help="merge: an army joining it (same province; repeat).")
@click.option("--unit", "units", type=WHOLE, multiple=True, help="detach: a unit leaving it as a new army (repeat).")
@click.option("--name", default="", help="detach: the new army's name.")
def army(campaign: Path, action: str, nation: str, army: int, others: tuple[int, ...], units: tuple[int, ...],
         name: str) -> None:
    """Order an army: merge others into it, detach units as a new army, or (an army without an
    HQ) hold or march home.  Sealed like every order; a detached army's number is given when
    the orders are carried out.

    Example: bellica trossian army blacksea.duckdb detach --nation Russia --army 1 --unit 9 --unit 10 --name Cossacks
    """
    _act(campaign, "army", nation, army=army, action=action, **{"with": list(others)}, units=list(units), name=name)


@group.command("done")
@CAMPAIGN
@NATION
def done(campaign: Path, nation: str) -> None:
    """The nation has given all its orders for this phase.

    Example: bellica trossian done blacksea.duckdb --nation Russia
    """
    _act(campaign, "done", nation)


@group.command("next")
@CAMPAIGN
def next_(campaign: Path) -> None:
    """The umpire moves the campaign on: begin the phase; carry out the orders (every nation
    done); end the phase (every battle entered); leave winter quarters.

    Example: bellica trossian next blacksea.duckdb
    """
    from bellica.engine.trossian.ruleset import next_step

    with _open(campaign) as c:
        events = next_step(c)
        _echo(c, events)
        _next_line(c)


@group.command("result")
@CAMPAIGN
@click.argument("battle", type=WHOLE)
@click.option("--winner", required=True, help="a, b (or a nation of that side) or draw.")
@click.option("--fate", "fates", multiple=True, metavar="UNIT=FATE",
              help="A unit's fate on the table: destroyed, routed or remaining (the default); repeat.")
@click.option("--retreat", "retreats", multiple=True, metavar="ARMY=PROVINCE", help="Where a beaten army retreats (default: the first open).")
@click.option("--die", "dice", multiple=True, metavar="LABEL=FACE", help="A real attrition die (else drawn from the seed); repeat.")
def result(campaign: Path, battle: int, winner: str, fates: tuple[str, ...], retreats: tuple[str, ...],
           dice: tuple[str, ...]) -> None:
    """Enter a table battle's result; the post-battle attrition rolls follow.

    Example: bellica trossian result blacksea.duckdb 75 --winner Russia --fate 12=destroyed --fate 33=routed
    """
    from bellica.engine.trossian.ruleset import enter_result, parse_dice, parse_fates
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    back = {}
    for item in retreats:
        army, sep, where = item.partition("=")
        if not sep or whole_number(army) is None or not where.strip():  # ASCII digits: "²".isdigit() is True
            raise InputError(f"--retreat {item!r}: give ARMY=PROVINCE, e.g. 30=Varna")
        back[whole_number(army)] = where.strip()
    f, d = parse_fates(fates), parse_dice(dice)
    with _open(campaign) as c:
        _echo(c, enter_result(c, battle, winner, f, back, d))
        _next_line(c)


@group.command("bank")
@CAMPAIGN
@NATION
@click.option("--from", "source", required=True, help="The city province the AP leave.")
@click.option("--to", "target", required=True, help="The city province they go to.")
@click.option("--ap", type=WHOLE, required=True, help="How many AP.")
def bank(campaign: Path, nation: str, source: str, target: str, ap: int) -> None:
    """Winter quarters: move banked AP between two of the nation's cities (neither besieged).

    Example: bellica trossian bank blacksea.duckdb --nation Russia --from Yedisan --to Kherson --ap 10
    """
    _act(campaign, "bank", nation, source=source, target=target, ap=ap)


@group.command("recruit")
@CAMPAIGN
@NATION
@click.option("--at", "at", required=True, help="The city province where the recruits appear.")
@click.option("--unit", "kinds", multiple=True, required=True, metavar="KIND",
              help="A unit kind, courier or navy (repeat); paid from the AP banked there first.")
@click.option("--quality", default="line", help="line (default), guard or militia.")
def recruit(campaign: Path, nation: str, at: str, kinds: tuple[str, ...], quality: str) -> None:
    """Winter quarters: buy units, couriers or a navy at one of the nation's cities.

    Example: bellica trossian recruit blacksea.duckdb --nation Russia --at Yedisan --unit line_infantry --unit courier
    """
    _act(campaign, "recruit", nation, at=at, kinds=list(kinds), quality=quality)


@group.command("ally")
@CAMPAIGN
@NATION
@click.option("--with", "partner", required=True, help="The other nation.")
@click.option("--break", "brk", is_flag=True, help="Break the alliance at once (or take back an open offer).")
def ally(campaign: Path, nation: str, partner: str, brk: bool) -> None:
    """Offer an alliance, accept the one offered to the nation (both words make it), or break one
    with --break (one word is enough: treachery).  Allies march through and stand in each other's
    provinces, never battle each other and fight on one side; an alliance broken where both stand
    is a battle when the orders are next carried out.  Public and logged; in the orders phase or
    winter quarters.

    Example: bellica trossian ally blacksea.duckdb --nation "Ottoman Porte" --with "Crimean Khanate"
    """
    from bellica.engine.trossian.ruleset import ally as ally_step

    with _open(campaign) as c:
        nation = resolve_faction(c, nation, param_hint="--nation")
        partner = resolve_faction(c, partner, param_hint="--with", word="nation")
        events = ally_step(c, nation, partner, brk=brk)
        _echo(c, events, nation)
        _next_line(c)
