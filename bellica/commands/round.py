"""`bellica round ...`: the umpire walks a round through its phases, one step per command.

Each command is one transaction on the campaign database: it either completes
or leaves the database as it was.  Steps out of order are refused with the
command that comes next (`bellica round status` always says it).
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.campaigns import file_faction as _file_faction
from bellica.commands.campaigns import open_campaign, require_started, resolve_faction
from bellica.commands.options import WHOLE, shown

CAMPAIGN = click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))


def open_round_campaign(campaign: Path, *, read_only: bool = False, started: bool | None = True):
    """:func:`open_campaign` for a ``bellica round`` step: a campaign of another game (Rise of Rome,
    Magna Graecia, ...) is refused in one line naming the command that plays it (exit 1); with
    ``started`` True (False), one not yet (already) started is a step out of order (exit 3)."""
    from bellica.geo.errors import InputError

    c = open_campaign(campaign, read_only=read_only)
    try:
        if c.ruleset.play_command != "bellica round":
            raise InputError(f"{campaign} is a {c.ruleset.name} campaign: play it with `{c.ruleset.play_command}` "
                             "(`bellica round` plays Vae Victis II campaigns)")
        if started is not None:
            require_started(c, started)
    except BaseException:
        c.close()
        raise
    return c


UMPIRE = click.option("--umpire", is_flag=True,
                      help="Submit as the umpire (recorded as \"umpire\"), for any army; refused in commit-reveal mode.")


def submitter(c, faction: str | None, umpire: bool) -> tuple[str | None, str]:
    """(faction, submitted_by) of a submission: --faction F (its armies only, recorded as F) or
    --umpire (any army, recorded as "umpire"); one of them is required, never both."""
    if umpire and faction is not None:
        raise click.BadParameter("give --faction F or --umpire, not both", param_hint="--umpire")
    if umpire:
        return None, "umpire"
    if faction is None:
        raise click.BadParameter("say who submits: --faction F (its armies only) or --umpire", param_hint="--faction")
    return faction, faction


def _echo_events(events) -> None:
    for ev in events:
        if ev.kind == "put_note":
            continue  # bookkeeping for later steps, not news
        click.echo(ev.text)


def _army_items(items, param_hint: str, example: str = "9=strength") -> dict[int, str]:
    """ARMY=VALUE items by army.  What is wrong inside an item is bad input (exit 1), as in an
    order ("9=3 x 3"): README.md, "Exit codes"."""
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    out: dict[int, str] = {}
    for item in items:
        army_text, sep, value = item.partition("=")
        army = whole_number(army_text)  # ASCII digits only: "٩=3" is not army 9
        if not sep or army is None:
            raise InputError(f"{param_hint} {shown(item)} is not ARMY=VALUE with the army in digits 0-9 (e.g. {example})")
        if army in out:
            raise InputError(f"{param_hint}: army {army} is given twice: give each army once")
        out[army] = value.strip()
    return out


@click.group(name="round")
def group() -> None:
    """Adjudicate rounds: orders, movement, battles, administration, victory (umpire)."""


@group.command("start")
@CAMPAIGN
@click.option("--seed", type=WHOLE, default=None, help="The campaign's random seed (default 1); recorded in the campaign table.")
@click.option("--orders-mode", type=click.Choice(["sealed", "commit-reveal"]), default=None,
              help="How orders are taken (docs/sealed-orders.md; default sealed).")
def start(campaign: Path, seed: int | None, orders_mode: str | None) -> None:
    """Start the campaign from its scenario (Vae Victis II: armies from `placements`, control from `structures`), round 1.

    Example: bellica round start punic.duckdb --seed 264
    """
    with open_round_campaign(campaign, started=False) as c:
        s = c.start(seed=seed)
        if orders_mode is not None:
            from bellica.engine.vae_victis import rounds

            rounds.set_orders_mode(c, orders_mode)
    armies = f", {len(s.tables['armies'])} armies" if "armies" in s.tables else ""
    click.echo(f"{campaign}: campaign started, round {s.campaign('round')}, phase {s.campaign('phase')}{armies}, seed {s.campaign('seed')}")


@group.command("status")
@CAMPAIGN
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object: round, phase, stage, who has submitted (never what), engagements, next, deadline.")
def status(campaign: Path, as_json: bool) -> None:
    """Where the round stands and the next command.

    Example: bellica round status punic.duckdb --json
    """
    from bellica.commands.jsonout import echo_json, status_json
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign, read_only=True) as c:
        s = rounds.round_status(c)
        data = status_json(s, campaign=c) if as_json else None
    if as_json:
        echo_json(data)
        return
    for line in s.lines():
        click.echo(line)


@group.command("initiative")
@CAMPAIGN
@click.argument("uses", nargs=-1, required=True)
@click.option("--faction", default=None, help="The submitting faction: its armies only (or --umpire).")
@UMPIRE
def initiative(campaign: Path, uses: tuple[str, ...], faction: str | None, umpire: bool) -> None:
    """Step 1.1: initiative uses as ARMY=USE, USE being `strength` or a sea zone (sealed).

    Example: bellica round initiative punic.duckdb --faction Roma 9=strength "10=Mare Tyrrhenum"
    """
    from bellica.engine.vae_victis import rounds

    given = _army_items(uses, "USES")
    with open_round_campaign(campaign) as c:
        faction, by = submitter(c, resolve_faction(c, faction), umpire)
        events = rounds.submit_initiative(c, given, faction=faction, submitted_by=by)
    click.echo(f"initiative stored (sealed) for arm{'y' if len(events) == 1 else 'ies'} {', '.join(str(e.data['army']) for e in events)}")


@group.command("publish")
@CAMPAIGN
def publish(campaign: Path) -> None:
    """Step 1.2: open the initiative uses (default: strength) and publish naval superiority.

    Example: bellica round publish punic.duckdb
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign) as c:
        _echo_events(rounds.publish_initiative(c))


@group.command("orders")
@CAMPAIGN
@click.argument("items", nargs=-1)
@click.option("--file", "orders_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A faction's TOML orders file (format: engine/vae_victis/orders.py).")
@click.option("--faction", default=None, help="The submitting faction: its armies only (default: the file's `faction`; or --umpire).")
@UMPIRE
@click.option("--army", type=WHOLE, default=None, help="One army's orders from the options below.")
@click.option("--moves", default=None, help='Moves as players write them: "3 3 5 0 5" ("" stands still).')
@click.option("--initiative", "initiative_use", default="strength", show_default=True, help="Initiative use (before publication only).")
@click.option("--assault", default=None, help="Assault this besieged structure.")
@click.option("--lift-siege", is_flag=True, help="Lift this army's siege.")
@click.option("--transfer", "transfers", multiple=True, help="TO:FP, FP given to army TO (repeatable).")
@click.option("--sea-link", "sea_links", multiple=True,
              help='ZONE:STRUCTURE, a sea-zone logistics link to that town/city (repeatable), e.g. "Mare Sardoum:Caralis".')
def orders(campaign, items, orders_file, faction, umpire, army, moves, initiative_use, assault, lift_siege, transfers, sea_links) -> None:
    """Step 1.3: movement, siege, assault and transfer orders, sealed from everyone (the umpire too)
    until the reveal: the last army's orders, or `bellica round reveal` after the deadline.

    Give a file, or ARMY=MOVES items, or --army with --moves and the other options.
    Nothing is stored unless every order is legal.

    Example: bellica round orders punic.duckdb --faction Roma "9=3 3 5 0 5" "10=0"
    """
    from bellica.engine.vae_victis import orders as orders_mod
    from bellica.engine.vae_victis import rounds

    if sea_links and army is None:
        raise click.BadParameter("--sea-link goes with --army N (or a file's sea_links)", param_hint="--sea-link")
    ways = sum([orders_file is not None, bool(items), army is not None])
    if ways != 1:
        raise click.BadParameter("give exactly one of: --file FILE, ARMY=MOVES items, or --army N --moves \"...\"", param_hint="ITEMS")
    round_ = None
    source = "the command line"
    if orders_file is not None:
        parsed = orders_mod.load_orders_file(orders_file)
        file_faction = parsed.faction
        round_ = parsed.round
        given = dict(parsed.orders)
        source = str(orders_file)
    elif items:
        given = orders_mod.orders_from_cli(items)
    else:
        if moves is None:
            raise click.BadParameter("--army needs --moves (\"\" to stand still)", param_hint="--moves")
        given = {army: orders_mod.army_orders_from_cli(
            army, moves, initiative=initiative_use, lift_siege=lift_siege, assault=assault, transfers=transfers,
            sea_links=sea_links)}
    with open_round_campaign(campaign) as c:
        faction = resolve_faction(c, faction)
        if orders_file is not None and file_faction is not None:
            file_faction = _file_faction(c, file_faction, f"{orders_file} faction")
            if faction is not None and file_faction != faction:
                raise click.BadParameter(f"{orders_file} is for faction {file_faction!r}, not {faction!r}", param_hint="--faction")
            if not umpire:
                faction = file_faction
        if orders_file is not None and faction is None and not umpire:
            raise click.BadParameter(f"{orders_file} names no `faction`: add faction = \"...\" to it, or give --faction F "
                                     "(or --umpire)", param_hint="--faction")
        faction, by = submitter(c, faction, umpire)
        events = rounds.submit_orders(c, given, faction=faction, submitted_by=by, round=round_, source=source)
    stored = [e for e in events if e.kind == "put_orders"]
    click.echo(f"orders stored (sealed) for arm{'y' if len(stored) == 1 else 'ies'} {', '.join(str(e.data['army']) for e in stored)}")
    for e in events:
        if e.kind == "orders_revealed":
            click.echo(e.text)


@group.command("show")
@CAMPAIGN
@click.option("--faction", default=None, help="Show the orders as this faction may see them (default: the umpire's view).")
def show(campaign: Path, faction: str | None) -> None:
    """This round's orders; before the reveal only your faction's (the umpire sees who submitted, not what).

    Example: bellica round show punic.duckdb --faction Carthago
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign, read_only=True) as c:
        faction = c.viewer = resolve_faction(c, faction)
        view = rounds.orders_view(c, faction=faction)
        submitters = rounds.order_submitters(c)
        snap = c.snapshot()
        all_open = rounds.ORDER_SEAL.opened(int(snap.campaign("round")), snap) is None
    for army, army_faction, o in view:
        if o is None:
            if army in submitters:
                by = submitters[army]
                click.echo(f"army {army:>3} ({army_faction}): orders in" + (f" from {by}" if by else "") + ", sealed until the reveal")
            else:
                click.echo(f"army {army:>3} ({army_faction}): -")
            continue
        parts = [f"initiative {o.initiative}"]
        if all_open or army_faction == faction:
            parts.append(f"moves \"{' '.join(map(str, o.moves))}\"")
        elif army in submitters:
            by = submitters[army]
            parts.append("orders in" + (f" from {by}" if by else "") + ", sealed until the reveal")
        if o.assault:
            parts.append(f"assault {o.assault}")
        if o.lift_siege:
            parts.append("lift siege")
        parts += [f"transfer {t.fp} FP to army {t.to_army}" for t in o.transfers]
        parts += [f"sea link to {structure} across {zone}" for zone, structure in o.sea_links]
        click.echo(f"army {army:>3} ({army_faction}): " + ", ".join(parts))


@group.command("deadline")
@CAMPAIGN
@click.argument("when")
def deadline(campaign: Path, when: str) -> None:
    """The current round's orders deadline, ISO-8601 in UTC; after it `bellica round reveal` may reveal.

    It may not be before the campaign started nor more than 10 years from now.

    Example: bellica round deadline punic.duckdb 2030-06-01T18:00:00Z
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign) as c:
        _echo_events(rounds.set_deadline(c, when)[:1])


@group.command("mode")
@CAMPAIGN
@click.argument("mode", type=click.Choice(["sealed", "commit-reveal"]))
def mode(campaign: Path, mode: str) -> None:
    """How orders are taken from this round on: sealed (default) or commit-reveal (before the round's first order).

    Example: bellica round mode punic.duckdb commit-reveal
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign) as c:
        _echo_events(rounds.set_orders_mode(c, mode))


@group.command("reveal")
@CAMPAIGN
def reveal(campaign: Path) -> None:
    """After the deadline: armies without orders stand still (default orders) and the orders are revealed.

    Example: bellica round reveal punic.duckdb
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign) as c:
        _echo_events(rounds.reveal_round(c))


def _faction_orders_file(orders_file: Path):
    from bellica.engine.vae_victis import orders as orders_mod

    return orders_mod.load_orders_file(orders_file)


@group.command("commitment")
@click.option("--file", "orders_file", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The faction's TOML orders file (format: engine/vae_victis/orders.py).")
@click.option("--secret", required=True, help="A long random secret, kept until the reveal.")
def commitment(orders_file: Path, secret: str) -> None:
    """Print the commitment (SHA-256) of an orders file and a secret, offline: no campaign is read.

    Example: bellica round commitment --file roma.toml --secret 5f0c...
    """
    from bellica.engine.vae_victis import rounds

    click.echo(rounds.orders_commitment(dict(_faction_orders_file(orders_file).orders), secret))


@group.command("commit")
@CAMPAIGN
@click.option("--faction", required=True, help="The committing faction.")
@click.option("--digest", default=None, help="The commitment from `bellica round commitment` (computed on your machine).")
@click.option("--file", "orders_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Or compute it here from the orders file ...")
@click.option("--secret", default=None, help="... and the secret (only the digest is stored).")
def commit(campaign: Path, faction: str, digest: str | None, orders_file: Path | None, secret: str | None) -> None:
    """Commit-reveal mode: store a faction's commitment to its orders (only the digest).

    Example: bellica round commit punic.duckdb --faction Roma --digest 3a7b...
    """
    from bellica.engine.vae_victis import rounds

    if (digest is None) == (orders_file is None) or (orders_file is not None) != (secret is not None):
        raise click.BadParameter("give --digest D, or --file FILE with --secret S", param_hint="--digest")
    if digest is None:
        digest = rounds.orders_commitment(dict(_faction_orders_file(orders_file).orders), secret)
    with open_round_campaign(campaign) as c:
        f = resolve_faction(c, faction)
        _echo_events(rounds.commit_orders(c, f, digest, submitted_by=f))


@group.command("reveal-orders")
@CAMPAIGN
@click.option("--faction", required=True, help="The revealing faction.")
@click.option("--file", "orders_file", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The orders file committed to.")
@click.option("--secret", required=True, help="The secret committed with it.")
def reveal_orders(campaign: Path, faction: str, orders_file: Path, secret: str) -> None:
    """Commit-reveal mode: reveal a faction's orders; refused ("tampered") unless they give its commitment.

    Example: bellica round reveal-orders punic.duckdb --faction Roma --file roma.toml --secret 5f0c...
    """
    from bellica.engine.vae_victis import rounds

    parsed = _faction_orders_file(orders_file)
    with open_round_campaign(campaign) as c:
        f = resolve_faction(c, faction)
        if parsed.faction is not None and _file_faction(c, parsed.faction, f"{orders_file} faction") != f:
            raise click.BadParameter(f"{orders_file} is for faction {parsed.faction!r}, not {f!r}", param_hint="--faction")
        if parsed.round is not None and parsed.round != int(c.snapshot().campaign("round")):
            raise click.BadParameter(f"{orders_file} is for round {parsed.round}, not the campaign's", param_hint="--file")
        _echo_events(rounds.reveal_orders(c, f, dict(parsed.orders), secret, submitted_by=f, source=str(orders_file)))


@group.command("move")
@CAMPAIGN
def move(campaign: Path) -> None:
    """Phase 2: simultaneous movement, then the engagements of phase 3.

    Example: bellica round move punic.duckdb
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign) as c:
        _echo_events(rounds.run_movement(c))


@group.command("battles")
@CAMPAIGN
def battles(campaign: Path) -> None:
    """Phase 3: the engagements, their Field of Glory II set-up and recorded results.

    Example: bellica round battles punic.duckdb
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign, read_only=True) as c:
        for line in rounds.battle_sheet(c):
            click.echo(line)


@group.command("retreat")
@CAMPAIGN
@click.argument("army", type=WHOLE)
def retreat(campaign: Path, army: int) -> None:
    """Phase 3: ARMY retreats rather than fight (before any engagement is fought).

    Example: bellica round retreat punic.duckdb 7
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign) as c:
        _echo_events(rounds.declare_retreat(c, army))


def _casualties(items) -> dict[int, int]:
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    out = {}
    for army, value in _army_items(items, "--casualties", "9=25").items():
        pct = whole_number(value)
        if pct is None or pct > 100:
            raise InputError(f"--casualties {army}={value}: {shown(value)} is not a whole percentage 0-100 in digits 0-9 "
                             "(e.g. 9=25)")
        out[army] = pct
    return out


@group.command("result")
@CAMPAIGN
@click.argument("engagement", type=WHOLE)
@click.option("--winner", default=None, help="The winning army, or `defender` when an assault fails.")
@click.option("--draw", is_flag=True, help="The engagement was drawn.")
@click.option("--casualties", "casualties", multiple=True, required=True, help="ARMY=PCT, casualties as FoG II shows them (each army).")
@click.option("--replace", is_flag=True,
              help="Correct a result already recorded (until administration); the log keeps the old one as a correction.")
def result(campaign: Path, engagement: int, winner: str | None, draw: bool, casualties, replace: bool) -> None:
    """Phase 3: record an engagement's result (once: a second time needs --replace).

    Example: bellica round result punic.duckdb 1 --winner 9 --casualties 9=25 --casualties 4=48
    """
    from bellica.engine.vae_victis import rounds
    from bellica.geo.files import whole_number

    if draw == (winner is not None):
        raise click.BadParameter("give either --winner ARMY (or `defender`) or --draw", param_hint="--winner")
    pct = _casualties(casualties)
    won = "draw" if draw else "defender" if winner == "defender" else whole_number(winner)
    if won is None:
        raise click.BadParameter(f"{shown(winner)}: name an army given in --casualties (digits 0-9), or `defender`",
                                 param_hint="--winner")
    outcomes = rounds.result_outcomes(won, pct)
    with open_round_campaign(campaign) as c:
        _echo_events(rounds.record_result(c, engagement, outcomes, correction=replace))


def named_hexes(c, choices):
    """``choices`` with every hex written as a hex name (a structure and clock steps from it,
    "Gela 5 3", as the map's tooltips name hexes) turned into its H3 cell; clock positions,
    structure names and cells go to the engine as given.  The engine knows no hex names: they
    are the maps' (bellica.web_maps.play_aids), so they are read here, at the edge."""
    import dataclasses
    import re

    from bellica.web_maps.play_aids import load_hex_names

    path = re.compile(r"\D.*\s\d{1,2}\s*$")
    names = None

    def cells(items: dict, where: str) -> dict:
        nonlocal names
        out = {}
        for army, value in items.items():
            if isinstance(value, str) and path.match(value.strip()):
                names = names or load_hex_names(c.con)
                value = names.resolve(value, where=f"{where} {army}")
            out[army] = value
        return out

    return dataclasses.replace(choices, advances=cells(choices.advances, "advance of army"),
                               debarks=cells(choices.debarks, "debark of navy"))


@group.command("administer")
@CAMPAIGN
@click.option("--choices", "choices_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML file of umpire/player choices (format: docs/rules/rounds.md).")
@click.option("--advance", "advances", multiple=True, help="ARMY=HEX: a winner advances (clock position, H3 cell, structure, or hex name like 'Gela 5').")
@click.option("--siege", "sieges", multiple=True, help="ARMY=STRUCTURE: the army starts (or joins) a siege.")
@click.option("--take-over", "take_overs", multiple=True, help="STRUCTURE: continue another faction's siege of it.")
@click.option("--surrender", "surrenders", multiple=True, help="STRUCTURE: its controller surrenders it.")
@click.option("--debark", "debarks", multiple=True,
              help="NAVY=HEX: the navy debarks its army (clock position, H3 cell, structure or hex name); others stay at sea.")
def administer(campaign: Path, choices_file: Path | None, advances, sieges, take_overs, surrenders, debarks) -> None:
    """Phase 4: the nine administration steps (refused until every engagement has a result).

    Choices come from --choices FILE or the options (not both).

    Example: bellica round administer punic.duckdb --siege 4=Gela --advance 14=9 --debark 6=3
    """
    from bellica.engine.vae_victis import rounds

    given = bool(advances or sieges or take_overs or surrenders or debarks)
    if choices_file is not None and given:
        raise click.BadParameter("give choices either in --choices FILE or as options, not both", param_hint="--choices")
    if choices_file is not None:
        choices = rounds.load_choices(choices_file)
    else:
        choices = rounds.AdminChoices(
            advances=_army_items(advances, "--advance", "14=5"),
            siege_starts=_army_items(sieges, "--siege", "4=Gela"),
            take_overs=frozenset(take_overs),
            surrenders=frozenset(surrenders),
            debarks=_army_items(debarks, "--debark", "6=3"),
        )
    with open_round_campaign(campaign) as c:
        _echo_events(rounds.run_administration(c, named_hexes(c, choices)))


@group.command("victory")
@CAMPAIGN
def victory(campaign: Path) -> None:
    """Victory points and the five victory conditions; starts the next round unless someone won.

    Example: bellica round victory punic.duckdb
    """
    from bellica.engine.vae_victis import rounds

    with open_round_campaign(campaign) as c:
        _echo_events(rounds.run_victory(c))


@group.command("verify")
@CAMPAIGN
@click.option("--readjudicate", is_flag=True, help="Also re-run every recorded step from the scenario on a copy and compare the logs.")
def verify(campaign: Path, readjudicate: bool) -> None:
    """Check the event log's hash chain, replay the log from the scenario and compare it with every state table.

    A damaged log or table is one `error:` line naming the first bad event or row (exit 4).
    The head hash printed can be noted down: a later verify showing the same head proves the
    log was not rewritten since (docs/campaign-file.md).

    Example: bellica round verify punic.duckdb --readjudicate
    """
    from bellica.engine.core.readjudicate import readjudicate as readjudicate_log

    with open_campaign(campaign, read_only=True, started=True) as c:  # nothing to verify before the start: exit 3
        c.verify()
        n = len(c.events())
        head = c.log_head()
    chain = (f"hash chain intact (head {head})" if head else
             "no hash chain yet (written before bellica hashed its log; the next step adds it)")
    click.echo(f"{campaign}: {n} events replay to the stored state exactly; {chain}")
    if readjudicate:
        steps = readjudicate_log(campaign)
        click.echo(f"{campaign}: {steps} recorded steps re-adjudicated from the scenario give the same {n} events")
