"""`bellica turn ...`: play a province campaign, one decision per command.

**Rise of Rome** (solo): the engine plays the eight other powers and the external armies;
``turn next`` runs its phases until Rome must decide (its attack, its spending, the result
of a battle played on the table, a province Rome takes), and ``turn status`` says where the
turn stands and what Rome may do.

**Mare Nostrum** (six nations, the umpire at the keyboard): ``turn lottery`` enters a real
draw (else the campaign seed draws it), ``turn begin`` opens a turn (order of play, events,
actions), each nation in the order of play takes its actions (``build``, ``peace``,
``ally``, ``grain``, ``attack``, ``naval``, ``destroy``, ``artworks``) and ``done``;
``turn result`` enters each battle's Field of Glory result and ``turn end`` fights them and
gives the verdict.  A nation acting out of its turn is refused.

The commands dispatch on the campaign's ruleset.  Each command is one or more steps of the
campaign core (one transaction each); a step out of order is refused with the command that
comes next (exit 3), a bad input is one line (exit 1).  ``bellica round verify
--readjudicate`` checks both kinds of campaign.
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.campaigns import open_campaign, require_started, resolve_faction
from bellica.commands.options import WHOLE

CAMPAIGN = click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
NATION = click.option("--nation", "nation", required=True, help="The nation acting (its name, any case, or its beginning).")

#: Bookkeeping kinds that state what the tables now hold; the player reads the explanations.
_QUIET_KINDS = {"put_row", "drop_row", "set_campaign", "put_note"}

ROR = "rise-of-rome"
MN = "mare-nostrum"


def _open(campaign: Path, *, read_only: bool = False, only: str | None = None, started: bool | None = True):
    """The campaign, which must be a province one (another ruleset: one line naming `bellica round`);
    ``only``: the ruleset the command belongs to (another: one line naming the command's game);
    ``started`` True (False): refused as a step out of order (exit 3) before (after) `bellica turn start`."""
    from bellica.geo.errors import InputError

    c = open_campaign(campaign, read_only=read_only)
    name = c.ruleset.name
    game = {ROR: "Rise of Rome", MN: "Mare Nostrum"}
    try:
        if name not in (ROR, MN):
            raise InputError(f"{campaign} is a {name} campaign, not a province one: play it with `{c.ruleset.play_command}`")
        if only is not None and name != only:
            raise InputError(f"{campaign} is a {game[name]} campaign: this command is for {game[only]}; "
                             "`bellica turn status` says what comes next")
        if started is not None:
            require_started(c, started)
    except BaseException:
        c.close()
        raise
    return c


def _echo(events) -> None:
    for ev in events:
        if ev.kind in _QUIET_KINDS:
            continue
        click.echo(ev.text if ev.kind != "step" else f"== {ev.text}")


def _next_line(c) -> None:
    if c.ruleset.name == MN:
        from bellica.engine.mare_nostrum.ruleset import next_decision
    else:
        from bellica.engine.rise_of_rome.ruleset import next_decision

    _step, words = next_decision(c, c.snapshot())
    click.echo(f"next: {words.replace('CAMPAIGN', str(c.path))}")


@click.group(name="turn")
def group() -> None:
    """Play a province campaign: Rise of Rome (Rome, solo) or Mare Nostrum (six nations).

    Rise of Rome: start, next, status, attack, spend, result, province.  Mare Nostrum: start, lottery,
    begin, status, build, peace, ally, grain, attack, naval, destroy, artworks, done, result,
    end (and next: begin or end the turn when that is what comes next).
    """


@group.command("start")
@CAMPAIGN
@click.option("--seed", type=WHOLE, default=None, help="The campaign's random seed (default 1): every die comes from it.")
def start(campaign: Path, seed: int | None) -> None:
    """Start the campaign: Rise of Rome, every province its home power's and the first rulers
    rolled; Mare Nostrum, every province its nation's, stability 5; turn 1.

    Example: bellica turn start rome.duckdb --seed 348
    """
    with _open(campaign, started=False) as c:
        s = c.start(seed=seed)
        for ev in c.events():
            if ev.kind not in _QUIET_KINDS:
                click.echo(ev.text)
        click.echo(f"{campaign}: campaign started, turn {s.campaign('round')}, seed {s.campaign('seed')}")
        _next_line(c)


@group.command("status")
@CAMPAIGN
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object: turn, phase, the powers or nations, the attacks, the options, the next step.")
def status(campaign: Path, as_json: bool) -> None:
    """Where the turn stands: Rise of Rome, Rome's revenue, Civic Development, the powers and
    Rome's options; Mare Nostrum, the order of play, each nation's stability, treasury,
    actions and event, the works, fleets and battles, the acting nation's options.

    Example: bellica turn status rome.duckdb
    """
    with _open(campaign, read_only=True) as c:
        if c.ruleset.name == MN:
            from bellica.engine.mare_nostrum.ruleset import turn_view
        else:
            from bellica.engine.rise_of_rome.ruleset import turn_view
        view = turn_view(c)
    if as_json:
        from bellica.commands.jsonout import echo_json

        echo_json(view.as_json())
        return
    for line in view.lines():
        click.echo(line.replace("CAMPAIGN", str(campaign)))


@group.command("next")
@CAMPAIGN
def next_(campaign: Path) -> None:
    """Run the engine until a decision is needed (or the campaign ends).

    Rise of Rome: the phases run until Rome must decide; a decision with nothing to choose
    is taken at once (no attack when Rome borders no Active power, everything to Civic
    Improvement when Rome has nothing to spend freely).  Mare Nostrum: begins the turn, or
    ends it once every battle's result is in.

    Example: bellica turn next rome.duckdb
    """
    with _open(campaign) as c:
        if c.ruleset.name == MN:
            from bellica.engine.mare_nostrum.ruleset import next_decision, run_engine_step

            step, _words = next_decision(c, c.snapshot())
            if step in ("begin", "end"):
                _echo(run_engine_step(c, step))
        else:
            from bellica.engine.rise_of_rome.ruleset import play_until_decision

            _echo(play_until_decision(c))
        _next_line(c)


@group.command("attack")
@CAMPAIGN
@click.option("--target", default=None, help="Rise of Rome: the Active power Rome attacks (a neighbour; any case).")
@click.option("--none", "no_attack", is_flag=True, help="Rise of Rome: Rome does not attack this turn.")
@click.option("--nation", default=None, help="Mare Nostrum: the nation attacking.")
@click.option("--from", "base", default=None, help="Mare Nostrum: the province it attacks from (its own).")
@click.option("--into", "into", default=None, help="Mare Nostrum: the province it attacks.")
@click.option("--sea", default=None, help="Mare Nostrum: an amphibious attack across this sea quadrant.")
def attack(campaign: Path, target: str | None, no_attack: bool, nation: str | None, base: str | None,
           into: str | None, sea: str | None) -> None:
    """Rise of Rome: Rome's attack this turn (phase 3), --target POWER or --none.  Mare Nostrum:
    a land attack (--nation N --from PROVINCE --into PROVINCE), or with --sea an amphibious one
    (the defender's fleets there fight first).

    Examples: bellica turn attack rome.duckdb --target Samnites;
    bellica turn attack mare.duckdb --nation Romans --from Latium --into Etruria
    """
    with _open(campaign) as c:
        if c.ruleset.name == MN:
            from bellica.engine.mare_nostrum.ruleset import act

            if target is not None or no_attack:
                raise click.BadParameter("Mare Nostrum attacks take --nation, --from and --into", param_hint="--target")
            if nation is None or base is None or into is None:
                raise click.BadParameter("give --nation NATION --from PROVINCE --into PROVINCE", param_hint="--nation")
            nation = resolve_faction(c, nation, param_hint="--nation")
            if sea:
                _echo(act(c, "amphibious", nation, base=base, sea=sea, target=into))
            else:
                _echo(act(c, "attack", nation, base=base, target=into))
        else:
            from bellica.engine.rise_of_rome.ruleset import give_attack

            if nation is not None or base is not None or into is not None or sea is not None:
                raise click.BadParameter("Rise of Rome attacks take --target POWER or --none", param_hint="--nation")
            if (target is None) == (not no_attack):
                raise click.BadParameter("give --target POWER or --none (one of them)", param_hint="--target")
            _echo(give_attack(c, resolve_faction(c, target, param_hint="--target", word="power")))
        _next_line(c)


@group.command("spend")
@CAMPAIGN
@click.option("--attack", "attack_", type=WHOLE, default=0, show_default=True, help="Revenue to Attack.")
@click.option("--defence", "--defense", "defence", type=WHOLE, default=0, show_default=True, help="Revenue to Defense.")
@click.option("--civic", type=WHOLE, default=None, help="Revenue to Civic Improvement (default: what is left).")
@click.option("--defence-split", "--defense-split", "defence_split", default=None, metavar="POWER=N,...",
              help="How Rome's Defense meets the attacks on it: points against each attacking power named "
                   "(the rest spread evenly over the attacks not named; default: all spread evenly).")
def spend(campaign: Path, attack_: int, defence: int, civic: int | None, defence_split: str | None) -> None:
    """Rise of Rome: Rome's spending (phase 4), the revenue it may spend freely, split three ways.

    The three must add up to that revenue (`bellica turn status` shows it); a subject's
    civic-only yield goes to Civic Improvement by itself.  Attacked more than once, Rome may
    say how its Defense meets each attack with --defence-split.

    Examples: bellica turn spend rome.duckdb --attack 20 --defence 10 --civic 15;
    bellica turn spend rome.duckdb --defence 30 --defence-split "Samnites=20,Etruscans=10"
    """
    from bellica.engine.rise_of_rome.ruleset import give_spending

    split = _split(defence_split)
    with _open(campaign, only=ROR) as c:
        _echo(give_spending(c, rome_spending(c, attack_, defence, civic), split))
        _next_line(c)


def rome_spending(c, attack: int, defence: int, civic: int | None, *, names: tuple[str, str] = ("--attack", "--defence")):
    """Rome's :class:`Spending` as given, Civic Improvement (``civic`` None) being what is left of the
    revenue Rome may spend freely; ``names`` spell the two amounts in the refusal (the CLI's
    options, the app's fields).  Shared by `bellica turn spend` and the app."""
    from bellica.engine.rise_of_rome.ruleset import rome_free_revenue, state_of
    from bellica.engine.rise_of_rome.spending import Spending
    from bellica.geo.errors import InputError

    if civic is None:
        free = rome_free_revenue(c.board, state_of(c.board, c.snapshot()))
        civic = free - attack - defence
        if civic < 0:
            raise InputError(f"{names[0]} {attack} + {names[1]} {defence} is more than the {free} Rome may spend: "
                             "give smaller amounts")
    return Spending(attack, defence, civic)


def _split(text: str | None) -> dict[str, int] | None:
    """``"Samnites=20, Etruscans=10"`` -> {"Samnites": 20, "Etruscans": 10}; a bad item is bad input
    (exit 1, one line), as a bad order is."""
    from bellica.geo.errors import InputError
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


@group.command("province")
@CAMPAIGN
@click.option("--choose", "province", default=None, metavar="PROVINCE", help="The province Rome takes (any case).")
@click.option("--by-rule", is_flag=True, help="Let the seed's rule pick (most revenue next turn, a resource, a die).")
def province(campaign: Path, province: str | None, by_rule: bool) -> None:
    """Rise of Rome: the province Rome takes, where the seed lets the player choose: the province of
    Rome's attack, the second province of Rome's Major Victory, the province a Roman defender's
    Major Victory takes.  `bellica turn status` lists the options; then `bellica turn next`.

    Example: bellica turn province rome.duckdb --choose Campania
    """
    from bellica.engine.rise_of_rome.ruleset import choose_province

    if (province is None) == (not by_rule):
        raise click.BadParameter("give --choose PROVINCE or --by-rule (one of them)", param_hint="--choose")
    with _open(campaign, only=ROR) as c:
        _echo(choose_province(c, province))
        _next_line(c)


@group.command("result")
@CAMPAIGN
@click.argument("battle")
@click.option("--winner", required=True, help="attacker or defender (or the winning side's power or nation).")
@click.option("--margin", type=click.Choice(["major", "minor"]), default=None,
              help="Rise of Rome: a Major or a Minor Victory (required there).")
def result(campaign: Path, battle: str, winner: str, margin: str | None) -> None:
    """The result of BATTLE, played on the table.  Rise of Rome: BATTLE is the battle's number
    and --margin is required; then `bellica turn next` fights on.  Mare Nostrum: BATTLE is the
    province attacked; once every result is in, `bellica turn end`.

    Examples: bellica turn result rome.duckdb 3 --winner attacker --margin minor;
    bellica turn result mare.duckdb Etruria --winner defender
    """
    with _open(campaign) as c:
        if c.ruleset.name == MN:
            from bellica.engine.mare_nostrum.ruleset import enter_result

            if margin is not None:
                raise click.BadParameter("Mare Nostrum results have no margin: omit --margin", param_hint="--margin")
            _echo(enter_result(c, battle, winner))
        else:
            from bellica.engine.rise_of_rome.ruleset import enter_result

            try:
                number = int(battle)
                if number < 0:
                    raise ValueError
            except ValueError:
                raise click.BadParameter(f"{battle!r} is not a whole number: give the battle's number",
                                         param_hint="BATTLE") from None
            if margin is None:
                raise click.MissingParameter(param_hint="'--margin'", param_type="option")
            _echo(enter_result(c, number, winner, margin == "major"))
        _next_line(c)


# --- Mare Nostrum only -------------------------------------------------------------------------


def _mn_act(campaign: Path, step: str, nation: str, *, nations: tuple[tuple[str, str], ...] = (), **arg) -> None:
    """A Mare Nostrum nation's action; ``nations``: the keys of ``arg`` that name another nation
    (an unknown one, like an unknown --nation, is a usage error: exit 2)."""
    from bellica.engine.mare_nostrum.ruleset import act

    with _open(campaign, only=MN) as c:
        nation = resolve_faction(c, nation, param_hint="--nation")
        for key, hint in nations:
            arg[key] = resolve_faction(c, arg[key], param_hint=hint, word="nation")
        _echo(act(c, step, nation, **arg))
        _next_line(c)


@group.command("lottery")
@CAMPAIGN
@click.argument("numbers", nargs=-1, type=WHOLE)
@click.option("--wheel", default=None, help="The wheel (BA, CA, FI, GE, MI, NA, its city, or its nation) whose draw NUMBERS are.")
@click.option("--turn", "turn_", type=WHOLE, default=None, help="The turn the draw is for (default: the next to begin).")
@click.option("--number", "label", default=None,
              help="Instead of a wheel: the label of one test's number (siege/3/Apulia, peace/2/Romans/Seleucids, "
                   "alliance/TURN/NATION/PROVINCE, naval/TURN/SEA/WHY/SIDE); NUMBERS is that one number.")
def lottery(campaign: Path, numbers: tuple[int, ...], wheel: str | None, turn_: int | None, label: str | None) -> None:
    """Mare Nostrum: enter the real lottery numbers (the published draw) before they are needed.

    A wheel's five numbers, in the order drawn: the first orders the play, the second picks
    the random event, the third an invasion's province.  A turn whose wheels were not entered
    draws them from the campaign seed, and the log keeps every number either way.

    Examples: bellica turn lottery mare.duckdb --wheel BA 12 45 3 8 9;
    bellica turn lottery mare.duckdb --number siege/1/Apulia 70
    """
    from bellica.engine.mare_nostrum.ruleset import enter_number, enter_wheel

    if (wheel is None) == (label is None):
        raise click.BadParameter("give --wheel WHEEL N N N N N or --number LABEL N (one of them)", param_hint="--wheel")
    if not numbers:
        raise click.BadParameter("give the numbers after the campaign", param_hint="NUMBERS")
    with _open(campaign, only=MN) as c:
        if label is not None:
            if len(numbers) != 1 or turn_ is not None:
                raise click.BadParameter("--number LABEL takes one number (and the label names its turn)",
                                         param_hint="NUMBERS")
            _echo(enter_number(c, label, numbers[0]))
        else:
            _echo(enter_wheel(c, wheel, numbers, turn=turn_))
        _next_line(c)


@group.command("begin")
@CAMPAIGN
def begin(campaign: Path) -> None:
    """Mare Nostrum: begin the next turn: the wheels (entered, or drawn from the seed), the
    order of play, pirate raids, each nation's random event, treasury and actions.

    Example: bellica turn begin mare.duckdb
    """
    from bellica.engine.mare_nostrum.ruleset import run_engine_step

    with _open(campaign, only=MN) as c:
        _echo(run_engine_step(c, "begin"))
        _next_line(c)


@group.command("build")
@CAMPAIGN
@NATION
@click.argument("work")
@click.argument("province")
@click.option("--sea", default=None, help="For a fleet: the sea quadrant (needed where the province faces several).")
def build(campaign: Path, nation: str, work: str, province: str, sea: str | None) -> None:
    """Mare Nostrum: the acting nation builds WORK (fortification, suburbs, temple, fleet) in
    PROVINCE, one action; it stands when the nation finishes.

    Example: bellica turn build mare.duckdb --nation Romans fortification Latium
    """
    _mn_act(campaign, "build", nation, work=work, province=province, sea=sea)


@group.command("peace")
@CAMPAIGN
@NATION
@click.option("--with", "with_", required=True, help="The nation to bind: one after it in this turn's order of play.")
def peace(campaign: Path, nation: str, with_: str) -> None:
    """Mare Nostrum: impose peace (one action; 46-90 succeeds): the other may not attack it this turn.

    Example: bellica turn peace mare.duckdb --nation Romans --with Carthaginians
    """
    _mn_act(campaign, "peace", nation, target=with_, nations=(("target", "--with"),))


@group.command("ally")
@CAMPAIGN
@NATION
@click.option("--against", "against", required=True, help="The enemy province the invaders threaten.")
def ally(campaign: Path, nation: str, against: str) -> None:
    """Mare Nostrum: ally with the invaders of an enemy's province (one action; 31-90 succeeds):
    a land battle with their army, the province the nation's if won.

    Example: bellica turn ally mare.duckdb --nation Romans --against Baetica
    """
    _mn_act(campaign, "alliance", nation, province=against)


@group.command("grain")
@CAMPAIGN
@NATION
def grain(campaign: Path, nation: str) -> None:
    """Mare Nostrum: distribute grain (one action): +2 stability.

    Example: bellica turn grain mare.duckdb --nation Gauls
    """
    _mn_act(campaign, "grain", nation)


@group.command("naval")
@CAMPAIGN
@NATION
@click.option("--sea", required=True, help="The sea quadrant.")
@click.option("--enemy", required=True, help="The nation whose fleets it attacks there (or Pirates).")
def naval(campaign: Path, nation: str, sea: str, enemy: str) -> None:
    """Mare Nostrum: attack an enemy's fleets with all the nation's fleets in a quadrant (one
    action), decided at once by lottery numbers.

    Example: bellica turn naval mare.duckdb --nation Carthaginians --sea "Mare Tyrrhenum" --enemy Romans
    """
    _mn_act(campaign, "naval", nation, sea=sea, enemy=enemy)


@group.command("destroy")
@CAMPAIGN
@NATION
@click.argument("work", type=click.Choice(["fortification", "temple"]))
@click.argument("province")
def destroy(campaign: Path, nation: str, work: str, province: str) -> None:
    """Mare Nostrum: use an Earthquake (fortification) or Great Blaze (temple) on a province the
    nation does not hold (no action).

    Example: bellica turn destroy mare.duckdb --nation Romans fortification Sicilia
    """
    _mn_act(campaign, "destroy", nation, work=work, province=province)


@group.command("artworks")
@CAMPAIGN
@NATION
@click.argument("province")
def artworks(campaign: Path, nation: str, province: str) -> None:
    """Mare Nostrum: a nation with Defensive Artworks names its province, which counts as
    fortified this turn (no action; any time before the battles, in any nation's turn).

    Example: bellica turn artworks mare.duckdb --nation Ptolemaics Aegyptus
    """
    _mn_act(campaign, "artworks", nation, province=province)


@group.command("done")
@CAMPAIGN
@NATION
def done(campaign: Path, nation: str) -> None:
    """Mare Nostrum: the acting nation finishes its actions: its works stand, the next acts.

    Example: bellica turn done mare.duckdb --nation Romans
    """
    _mn_act(campaign, "done", nation)


@group.command("end")
@CAMPAIGN
def end(campaign: Path) -> None:
    """Mare Nostrum: fight the declared battles with their entered results (sieges drawn), in
    the order declared, and give the verdict; the next turn may begin.

    Example: bellica turn end mare.duckdb
    """
    from bellica.engine.mare_nostrum.ruleset import run_engine_step

    with _open(campaign, only=MN) as c:
        _echo(run_engine_step(c, "end"))
        _next_line(c)
