"""`bellica magna-graecia ...`: play a Magna Graecia campaign (Sicily, a node map), one step per command.

Made by ``bellica campaign new --scenario magna-graecia/<name>``; ``start`` begins the season.
Each side in the scenario's order moves (``move``, ``exchange``, ``embark``, ``disembark``,
``sail``, ``shelter``, ``attack-city``), then ``end-movement`` (alliance rolls, its sieges, the
battles due); the battles follow (``defence``, ``siege``, ``sally``, ``result`` with the table's
losses, ``second-day`` stay/retire sealed per side, ``fleet-battle``), the retreats
(``retreat``, ``retreat-fleet``), then ``end-turn`` (``next`` ends the movement or the turn,
whichever comes next).  Recovery rolls follow a result (and a fleet's losses) at once; ``roll``
enters any die rolled at the table under its label beforehand (``recovery/3/Gela/36/Sp(O)/1``),
else the campaign seed rolls it;
``status [--side S] [--json]`` shows the campaign as a side may see it.

Each command is one step of the campaign core (one transaction, logged; ``bellica round verify
--readjudicate`` re-runs them).  Bad input is one line, exit 1; a step out of turn or one the
rules refuse, one line, exit 3.
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.campaigns import open_campaign, require_started, resolve_faction
from bellica.commands.options import WHOLE

CAMPAIGN = click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
SIDE = click.option("--side", "side", default=None, help="The side giving the order (its name, any case, or its beginning).")
_QUIET = {"put_row", "drop_row", "set_campaign", "put_note"}


def _open(campaign: Path, *, read_only: bool = False, started: bool | None = True):
    """The Magna Graecia campaign (another ruleset's: bad input, exit 1); ``started``: refused as a
    step out of order (exit 3) before (``started`` False: after) `bellica magna-graecia start`."""
    from bellica.geo.errors import InputError

    c = open_campaign(campaign, read_only=read_only)
    try:
        if c.ruleset.name != "magna-graecia":
            raise InputError(f"{campaign} is a {c.ruleset.name} campaign, not a Magna Graecia one: "
                             "make one with `bellica campaign new --scenario magna-graecia/dionysian`")
        if started is not None:
            require_started(c, started)
    except BaseException:
        c.close()
        raise
    return c


def _step(campaign: Path, step: str, arg: dict) -> None:
    """One step of the ruleset; the sides named in ``arg`` ("side", a fleet's "retreat") are the
    campaign's (an unknown one is a usage error, exit 2) before the rules look at the step."""
    from bellica.engine.magna_graecia.ruleset import next_decision, play

    with _open(campaign) as c:
        for key in ("side", "retreat"):
            if arg.get(key) is not None:
                arg[key] = resolve_faction(c, arg[key], param_hint=f"--{key}", word="side")
        for ev in play(c, step, arg):
            if ev.kind not in _QUIET:
                click.echo(ev.text if ev.kind != "step" else f"== {ev.text}")
        click.echo("next: " + next_decision(c, c.snapshot()).replace("CAMPAIGN", str(campaign)))


def _pairs(values, what: str, example: str) -> dict[str, int]:
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    out: dict[str, int] = {}
    for v in values:
        key, _, n = str(v).rpartition("=")
        count = whole_number(n)  # ASCII digits only: str.isdigit() takes "²", which int() refuses
        if not key.strip() or count is None or count < 1:
            raise InputError(f"{what} {v!r}: give ELEMENT=N with N >= 1 (e.g. {example})")
        out[key.strip()] = out.get(key.strip(), 0) + count
    return out


@click.group(name="magna-graecia")
def group() -> None:
    """Play a Magna Graecia campaign: start, status, move, exchange, embark, disembark, sail, shelter,
    attack-city, end-movement, defence, siege, sally, result, second-day, fleet-battle, retreat,
    retreat-fleet, end-turn, next, roll, agree-end."""


@group.command("start")
@CAMPAIGN
@click.option("--seed", type=WHOLE, default=None, help="The campaign's random seed (default 1): every die comes from it.")
def start(campaign: Path, seed: int | None) -> None:
    """Start the season: every side at its start, the neutral cities' commands raised, turn 1.

    Example: bellica magna-graecia start dionysian.duckdb --seed 397
    """
    from bellica.engine.magna_graecia.ruleset import next_decision

    with _open(campaign, started=False) as c:
        s = c.start(seed=seed)
        for ev in c.events():
            if ev.kind not in _QUIET:
                click.echo(ev.text)
        click.echo(f"{campaign}: campaign started, turn {s.campaign('round')}, seed {s.campaign('seed')}")
        click.echo("next: " + next_decision(c, c.snapshot()).replace("CAMPAIGN", str(campaign)))


@group.command("status")
@CAMPAIGN
@SIDE
@click.option("--json", "as_json", is_flag=True, help="One JSON object: turn, phase, sides, alliances, cities, counters, "
                                                      "fleets, sieges, battles, second_day, retreats, reach, next "
                                                      "(docs/rules/magna-graecia.md, \"Scripting\").")
def status(campaign: Path, side: str | None, as_json: bool) -> None:
    """Where the season stands, as SIDE sees it (default: the umpire): its own commands with their
    elements and movement points, the others' counters only, fleets' NPs for their owner.

    Example: bellica magna-graecia status dionysian.duckdb --side Carthage
    """
    from bellica.engine.magna_graecia.ruleset import view, view_lines

    with _open(campaign, read_only=True) as c:
        v = view(c, side=resolve_faction(c, side, param_hint="--side"))
        if as_json:
            from bellica.commands.jsonout import echo_json

            echo_json({**v, "next": v["next"].replace("CAMPAIGN", str(campaign))})
            return
        for line in view_lines(v):
            click.echo(line.replace("CAMPAIGN", str(campaign)))


@group.command("move")
@CAMPAIGN
@click.argument("command", type=WHOLE)
@click.argument("path", nargs=-1, required=True)
@SIDE
def move(campaign: Path, command: int, path: tuple[str, ...], side: str | None) -> None:
    """SIDE moves COMMAND along PATH (the nodes entered, in order).

    Example: bellica magna-graecia move dionysian.duckdb --side Syracuse 38 Leontini Catana
    """
    _step(campaign, "move", {"side": side, "command": command, "path": list(path)})


@group.command("exchange")
@CAMPAIGN
@click.argument("giver", type=WHOLE)
@click.argument("taker", type=WHOLE)
@click.argument("elements", nargs=-1, required=True)
@SIDE
def exchange(campaign: Path, giver: int, taker: int, elements: tuple[str, ...], side: str | None) -> None:
    """SIDE moves ELEMENTS (ELEMENT=N ...) from command GIVER to TAKER in one node.

    Example: bellica magna-graecia exchange dionysian.duckdb --side Syracuse 36 37 'Sp(O)=2'
    """
    _step(campaign, "exchange", {"side": side, "from": giver, "to": taker,
                                 "elements": _pairs(elements, "element", "'Sp(O)=2'")})


@group.command("embark")
@CAMPAIGN
@click.argument("commands", nargs=-1, required=True, type=WHOLE)
@SIDE
def embark(campaign: Path, commands: tuple[int, ...], side: str | None) -> None:
    """SIDE puts COMMANDS aboard its fleet (in the same coastal node).

    Example: bellica magna-graecia embark dionysian.duckdb --side Syracuse 36 37
    """
    _step(campaign, "embark", {"side": side, "commands": list(commands)})


@group.command("disembark")
@CAMPAIGN
@click.argument("commands", nargs=-1, required=True, type=WHOLE)
@SIDE
def disembark(campaign: Path, commands: tuple[int, ...], side: str | None) -> None:
    """SIDE lands COMMANDS from its fleet where it lies.

    Example: bellica magna-graecia disembark dionysian.duckdb --side Syracuse 36 37
    """
    _step(campaign, "disembark", {"side": side, "commands": list(commands)})


@group.command("sail")
@CAMPAIGN
@click.argument("path", nargs=-1, required=True)
@SIDE
def sail(campaign: Path, path: tuple[str, ...], side: str | None) -> None:
    """SIDE sails its fleet along PATH (coastal nodes joined by sea paths).

    Example: bellica magna-graecia sail dionysian.duckdb --side Syracuse Catana
    """
    _step(campaign, "sail", {"side": side, "path": list(path)})


@group.command("shelter")
@CAMPAIGN
@SIDE
def shelter(campaign: Path, side: str | None) -> None:
    """SIDE shelters its fleet in the friendly, garrisoned, fortified coastal city where it lies.

    Example: bellica magna-graecia shelter dionysian.duckdb --side Carthage
    """
    _step(campaign, "shelter", {"side": side})


@group.command("attack-city")
@CAMPAIGN
@click.argument("node")
@SIDE
def attack_city(campaign: Path, node: str, side: str | None) -> None:
    """SIDE attacks the neutral city of NODE, where it stands (the city joins SIDE's opponent); a
    defending side may do so during a battle there, and the city then joins the attacker.

    Example: bellica magna-graecia attack-city dionysian.duckdb --side Syracuse Morgantina
    """
    _step(campaign, "attack_city", {"side": side, "node": node})


@group.command("end-movement")
@CAMPAIGN
@SIDE
def end_movement(campaign: Path, side: str | None) -> None:
    """SIDE ends its movement: stacking checked, alliance rolls, its sieges, the battles due.

    Example: bellica magna-graecia end-movement dionysian.duckdb --side Syracuse
    """
    _step(campaign, "end_movement", {"side": side})


@group.command("defence")
@CAMPAIGN
@click.argument("node")
@click.argument("defence", metavar="forward|central|rear")
@SIDE
def defence(campaign: Path, node: str, defence: str, side: str | None) -> None:
    """The defending SIDE at NODE chooses a forward, central or rear defence for the table.

    Example: bellica magna-graecia defence dionysian.duckdb --side Carthage Motya rear
    """
    _step(campaign, "defence", {"side": side, "node": node, "defence": defence.strip().lower()})


@group.command("siege")
@CAMPAIGN
@click.argument("node")
@SIDE
def siege(campaign: Path, node: str, side: str | None) -> None:
    """SIDE lays siege to the fortified city of NODE instead of fighting there: the phasing side, or
    a defending side declaring all its forces there inside the walls.

    Example: bellica magna-graecia siege dionysian.duckdb --side Syracuse Motya
    """
    _step(campaign, "siege", {"side": side, "node": node})


@group.command("sally")
@CAMPAIGN
@click.argument("node")
@SIDE
@click.option("--naval", is_flag=True, help="Its fleet sheltered in the harbour puts out and fights the besieging fleet.")
def sally(campaign: Path, node: str, side: str | None, naval: bool) -> None:
    """The phasing SIDE's forces besieged in NODE sally against the besiegers (a land battle, or with
    --naval a fleet fight against the besieging fleet).

    Example: bellica magna-graecia sally dionysian.duckdb --side Carthage Motya --naval
    """
    _step(campaign, "sally", {"side": side, "node": node, **({"naval": True} if naval else {})})


@group.command("result")
@CAMPAIGN
@click.argument("node")
@click.option("--winner", required=True, help="The winning side, or none (undecided: the second day's orders follow).")
@click.option("--loss", "losses", multiple=True, metavar="COMMAND:ELEMENT=N",
              help="Elements a command lost on the table (repeat; 'general' for its commander).")
@click.option("--open", "open_paths", multiple=True, metavar="NODE",
              help="A node the loser may still retreat towards (repeat; default every path but the winner's base edge).")
def result(campaign: Path, node: str, winner: str, losses: tuple[str, ...], open_paths: tuple[str, ...]) -> None:
    """The umpire enters the table battle's result at NODE: winner and losses (recovery rolls follow).

    Example: bellica magna-graecia result dionysian.duckdb Gela --winner Syracuse --loss '40:Sp(I)=2' --loss '36:Sp(O)=1'
    """
    from bellica.geo.errors import InputError

    lost: dict[str, dict[str, int]] = {}
    for item in losses:
        cid, sep, rest = item.partition(":")
        if not sep or not cid.strip():
            raise InputError(f"--loss {item!r}: give COMMAND:ELEMENT=N (e.g. '40:Sp(I)=2')")
        for k, n in _pairs([rest], "--loss", "'40:Sp(I)=2'").items():
            lost.setdefault(cid.strip(), {})
            lost[cid.strip()][k] = lost[cid.strip()].get(k, 0) + n
    arg: dict = {"node": node, "winner": winner, "losses": lost}
    if open_paths:
        arg["open_paths"] = list(open_paths)
    _step(campaign, "result", arg)


@group.command("second-day")
@CAMPAIGN
@click.argument("node")
@click.argument("choice", metavar="stay|retire")
@SIDE
def second_day(campaign: Path, node: str, choice: str, side: str | None) -> None:
    """SIDE writes its sealed stay-or-retire order after an undecided day at NODE; the orders are
    opened together once every side of the battle has written one.

    Example: bellica magna-graecia second-day dionysian.duckdb --side Syracuse Gela stay
    """
    _step(campaign, "second_day", {"side": side, "node": node, "choice": choice.strip().lower()})


@group.command("fleet-battle")
@CAMPAIGN
@click.argument("node")
@click.option("--retreat", default=None, help="The defending side retreats its fleet instead of fighting.")
def fleet_battle(campaign: Path, node: str, retreat: str | None) -> None:
    """The fleets at NODE fight (a d6 plus naval points each, losses from spare NPs first), or one retreats.

    Example: bellica magna-graecia fleet-battle dionysian.duckdb Motya --retreat Carthage
    """
    _step(campaign, "fleet_battle", {"node": node, "retreat": retreat})


@group.command("retreat")
@CAMPAIGN
@click.argument("command", type=WHOLE)
@click.argument("path", nargs=-1, required=True)
@SIDE
def retreat(campaign: Path, command: int, path: tuple[str, ...], side: str | None) -> None:
    """A beaten COMMAND retreats along PATH (its owner gives it, or the umpire).

    Example: bellica magna-graecia retreat dionysian.duckdb --side Carthage 40 Segesta Panormus
    """
    _step(campaign, "retreat", {"side": side, "command": command, "path": list(path)})


@group.command("retreat-fleet")
@CAMPAIGN
@click.argument("path", nargs=-1, required=True)
@SIDE
def retreat_fleet(campaign: Path, path: tuple[str, ...], side: str | None) -> None:
    """SIDE's beaten fleet retreats along PATH.

    Example: bellica magna-graecia retreat-fleet dionysian.duckdb --side Carthage Panormus
    """
    _step(campaign, "retreat_fleet", {"side": side, "path": list(path)})


@group.command("end-turn")
@CAMPAIGN
@SIDE
def end_turn(campaign: Path, side: str | None) -> None:
    """The phasing SIDE ends its player-turn (battles fought, retreats made): the next side moves.

    Example: bellica magna-graecia end-turn dionysian.duckdb --side Syracuse
    """
    _step(campaign, "end_turn", {"side": side})


@group.command("next")
@CAMPAIGN
@SIDE
def next_(campaign: Path, side: str | None) -> None:
    """The phasing SIDE ends its movement, or its turn, whichever comes next.

    Example: bellica magna-graecia next dionysian.duckdb --side Syracuse
    """
    with _open(campaign, read_only=True) as c:
        phase = c.snapshot().campaign("phase")
    _step(campaign, "end_movement" if phase == "movement" else "end_turn", {"side": side})


@group.command("roll")
@CAMPAIGN
@click.argument("label")
@click.argument("value", type=WHOLE)
def roll(campaign: Path, label: str, value: int) -> None:
    """The umpire enters a die rolled at the table under its LABEL (used instead of the seed's).

    Example: bellica magna-graecia roll dionysian.duckdb alliance/1/Morgantina/Syracuse 6
    """
    _step(campaign, "roll", {"label": label, "value": value})


@group.command("agree-end")
@CAMPAIGN
def agree_end(campaign: Path) -> None:
    """The sides agree to end the season now: the victory points decide.

    Example: bellica magna-graecia agree-end dionysian.duckdb
    """
    _step(campaign, "agree_end", {})
