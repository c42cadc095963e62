"""`bellica campaign ...`: create a campaign from a scenario, place armies, check and list scenarios.

``campaign new`` replaces an existing --out only with ``--force``; ``-q/--quiet`` drops the notes
(``new``) and the override list (``check``) and keeps the summary line and errors; ``structures``
and ``scenarios`` print one JSON array with ``--json`` (:mod:`bellica.services.jsonout`).
"""

from __future__ import annotations

from pathlib import Path

import click


@click.group(name="campaign")
def group() -> None:
    """Create campaigns from scenarios (designer) and place the starting armies."""


@group.command(name="new")
@click.option("--scenario", "scenario", required=True, help="Shipped scenario name (see `bellica campaign scenarios`) or a scenario folder.")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="Campaign database to write.")
@click.option("--map", "map_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Existing map database (same resolution, covering the scenario bbox); default: build one.")
@click.option("--placements", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Placements CSV (army,faction,structure); default: the scenario's placements.csv if any.")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary line (no notes; errors still printed).")
@click.option("--bot", "bots", multiple=True, metavar="FACTION=KIND",
              help="Give FACTION's seat to an engine player of KIND (repeatable; docs/bots.md), e.g. Carthago=heuristic.")
def new(scenario: str, out: Path, map_path: Path | None, placements: Path | None, force: bool, quiet: bool,
        bots: tuple[str, ...]) -> None:
    """Write a new campaign database for SCENARIO.

    A province scenario (Rise of Rome) gets the map's hexes for its bbox and its provinces, built
    from its capitals on that map (or copied from the map's province tables when they are its
    provinces); then `bellica turn start` begins it.  A node scenario (magna-graecia/dionysian)
    gets the map's hexes and the node map of its year built from its node file; then
    `bellica magna-graecia start` begins it.

    --bot seats engine players (kinds per ruleset: docs/bots.md); the umpire changes seats later with
    `bellica campaign bot`.

    Example: bellica campaign new --scenario first-punic-war --map build/med.duckdb --out punic.duckdb --bot Carthago=heuristic
    """
    from bellica.etl.campaign import create_campaign
    from bellica.etl.scenario import is_node_scenario, is_province_scenario, load_node_scenario, load_province_scenario

    _seat_syntax(bots)
    scenario = installed_scenario(scenario)
    if is_node_scenario(scenario):
        if placements is not None:
            raise click.BadParameter("a node scenario takes no placements: omit --placements", param_hint="--placements")
        _new_node_campaign(load_node_scenario(scenario), out, map_path, force, quiet)
        _seat_bots(out, bots, remove_on_error=True)
        return
    if is_province_scenario(scenario):
        if placements is not None:
            raise click.BadParameter("a province scenario takes no placements: omit --placements", param_hint="--placements")
        _new_province_campaign(load_province_scenario(scenario), out, map_path, force, quiet)
        _seat_bots(out, bots, remove_on_error=True)
        return
    result = create_campaign(scenario, out, map_path=map_path, placements=placements, force=force)
    _seat_bots(result.path, bots, remove_on_error=True)
    if not quiet:
        for note in result.notes:
            click.echo(f"  note: {note}")
    c = result.counts
    click.echo(
        f"campaign {result.path}: scenario {result.scenario}, {c['hexes']} hexes, {c['structures']} structures, "
        f"{c['roads']} roads ({c['road_cells']} road hexes), {c['rivers']} rivers, {c['sea_zones']} sea zones, "
        f"{c['overrides']} terrain overrides, {c['ocean_hexes']} ocean hexes, {c['placements']} armies placed in {result.seconds:.1f} s"
        + (" (map built)" if result.map_built else "")
    )


def _seat_syntax(items) -> None:
    """Refuse a --bot item that is not FACTION=KIND before any work is done."""
    for item in items:
        name, sep, kind = str(item).partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise click.BadParameter(f"{item!r} is not FACTION=KIND: give e.g. Carthago=heuristic", param_hint="--bot")


def _seat_bots(path: Path, items, *, remove_on_error: bool = False, by: str = "umpire") -> None:
    """Give the seats of ``items`` (FACTION=KIND, KIND ``person`` gives a seat back) and print each change;
    a refused item leaves a campaign just created unwritten (``remove_on_error``)."""
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.core.players import bot_kinds, parse_seats, set_seats
    from bellica.geo.errors import InputError

    if not items:
        return
    try:
        with Campaign.open(path) as c:
            chosen = parse_seats(items, c.ruleset.factions(c), list(bot_kinds(c.ruleset)))
            lines = set_seats(c, chosen, by=by)
    except InputError:
        if remove_on_error:
            Path(path).unlink(missing_ok=True)
            Path(str(path) + ".wal").unlink(missing_ok=True)
        raise
    for line in lines:
        click.echo(f"  seat {line}")


@group.command(name="bot")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("seats", nargs=-1, metavar="[FACTION=KIND]...")
def bot(campaign: Path, seats: tuple[str, ...]) -> None:
    """Give seats to engine players, or back to a person (KIND `person`); with no seat, list who plays.

    A bot seat reads only its faction's player view and gives its steps as the faction would; the
    umpire runs them with the ruleset's bots step (`bellica round bots CAMPAIGN`; docs/bots.md).
    Each change is kept in the campaign's bot_seats table with who made it and when.

    Example: bellica campaign bot punic.duckdb Carthago=random Roma=person
    """
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.core.players import bot_kinds, seats as seats_of

    from bellica.geo.errors import InputError

    if not Path(campaign).is_file():  # a missing input file is bad input (exit 1), as for every command
        raise InputError(f"campaign database {campaign} does not exist: create it with `bellica campaign new`")
    _seat_syntax(seats)
    if seats:
        _seat_bots(campaign, seats)
    with Campaign.open(campaign, read_only=True) as c:
        found = seats_of(c.con)
        kinds = ", ".join(sorted(bot_kinds(c.ruleset))) or "none"
        for faction in c.ruleset.factions(c):
            click.echo(f"{faction}: " + (f"{found[faction]} bot" if faction in found else "person"))
        if not seats:
            click.echo(f"(bot kinds of {c.ruleset.name}: {kinds})")


def _new_province_campaign(scenario, out: Path, map_path: Path | None, force: bool, quiet: bool) -> None:
    """`campaign new` for a province scenario: the ETL writes the map and provinces, the ruleset its tables."""
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.etl.campaign import create_province_campaign
    from bellica.geo.errors import InputError

    ruleset = get_ruleset(scenario.ruleset)
    writer = getattr(ruleset, "write_scenario_folder", None)
    if writer is None:
        raise InputError(f"ruleset {ruleset.name} cannot make a campaign from a province scenario yet")
    writer(None, scenario.directory)  # reads and checks the scenario's own files before any work is done
    result = create_province_campaign(scenario, out, fill=lambda con: writer(con, scenario.directory),
                                      map_path=map_path, force=force)
    if not quiet:
        for note in result.notes:
            click.echo(f"  note: {note}")
    c = result.counts
    click.echo(f"campaign {result.path}: scenario {result.scenario} (ruleset {result.ruleset}), {c['hexes']} hexes, "
               f"{c['provinces']} provinces ({c['province_hexes']} province hexes, "
               f"{'copied from the map' if result.provinces_from == 'map' else 'built from the capitals'}) "
               f"in {result.seconds:.1f} s" + (" (map built)" if result.map_built else ""))


def _new_node_campaign(scenario, out: Path, map_path: Path | None, force: bool, quiet: bool) -> None:
    """`campaign new` for a node scenario (Magna Graecia): the ETL writes the map and the node tables
    of the scenario's year, the ruleset its scenario file and frozen rules."""
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.etl.campaign import create_node_campaign
    from bellica.geo.errors import InputError

    ruleset = get_ruleset(scenario.ruleset)
    writer = getattr(ruleset, "write_scenario_file", None)
    if writer is None:
        raise InputError(f"ruleset {ruleset.name} cannot make a campaign from a node scenario")
    writer(None, scenario.path)  # reads and checks the scenario file before any work is done
    result = create_node_campaign(scenario, out, fill=lambda con: writer(con, scenario.path), map_path=map_path,
                                  force=force)
    if not quiet:
        for note in result.notes:
            click.echo(f"  note: {note}")
    c = result.counts
    click.echo(f"campaign {result.path}: scenario {result.scenario} (ruleset {result.ruleset}), {c['hexes']} hexes, "
               f"{c['nodes']} places, {c['paths']} paths in {result.seconds:.1f} s"
               + (" (map built)" if result.map_built else ""))


@group.command(name="place")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("placements", type=click.Path(dir_okay=False, path_type=Path))
def place(campaign: Path, placements: Path) -> None:
    """Validate PLACEMENTS (army,faction,structure) against CAMPAIGN and store them (before it starts).

    Example: bellica campaign place punic.duckdb placements.csv
    """
    from bellica.engine.core.machine import StepRefused
    from bellica.engine.core.state import has_state
    from bellica.etl.campaign import open_campaign, place_armies

    con = open_campaign(campaign)
    try:
        started = has_state(con)
    finally:
        con.close()
    if started:  # the engine moves armies once the campaign has started: a step out of order, exit 3
        raise StepRefused(f"campaign {campaign} has already started: placements change only before "
                          "`bellica round start`; move armies with the round's orders")
    n = place_armies(campaign, placements)
    click.echo(f"{campaign}: {n} armies placed")


@group.command(name="check")
@click.option("--scenario", "scenario", required=True, help="Scenario name or folder.")
@click.option("--placements", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("-q", "--quiet", is_flag=True, help="Print only the summary line (not the terrain overrides).")
def check(scenario: str, placements: Path | None, quiet: bool) -> None:
    """Check a scenario's files (without a map) and print what it holds.

    Example: bellica campaign check --scenario first-punic-war --quiet
    """
    from bellica.etl.scenario import (is_node_scenario, is_province_scenario, load_node_scenario,
                                     load_province_scenario, load_scenario)

    scenario = installed_scenario(scenario)
    if is_node_scenario(scenario):
        from bellica.engine.core.ruleset import get_ruleset

        n = load_node_scenario(scenario)
        summary = get_ruleset(n.ruleset).write_scenario_file(None, n.path)
        click.echo(f"scenario {n.name} ({n.path}): ruleset {n.ruleset}, node file {n.nodes.name}, {summary}: OK")
        return
    if is_province_scenario(scenario):
        from bellica.engine.core.ruleset import get_ruleset

        p = load_province_scenario(scenario)
        ruleset = get_ruleset(p.ruleset)
        summary = getattr(ruleset, "write_scenario_folder", lambda con, folder: None)(None, p.directory)
        click.echo(f"scenario {p.name} ({p.directory}): ruleset {p.ruleset}, {len(p.capitals)} provinces"
                   + (f", {summary}" if summary else "") + ": OK")
        return

    s = load_scenario(scenario, placements=placements)
    click.echo(
        f"scenario {s.name} ({s.directory}): {len(s.factions)} factions, {len(s.structures)} structures, "
        f"{len(s.roads)} roads, {len(s.rivers)} rivers, {len([z for z in s.sea_zones if not z.ocean])} sea zones, "
        f"{len(s.overrides)} overrides, {len(s.placements or [])} placements: OK"
    )
    if quiet:
        return
    for o in s.overrides:
        click.echo(f"  override ({o.source}): {o.terrain}: {o.reason}")


@group.command(name="scenarios")
@click.option("--json", "as_json", is_flag=True, help='One JSON array of {"name", "title"}.')
def scenarios(as_json: bool) -> None:
    """List the scenarios bellica ships, then those of installed rulesets.

    Example: bellica campaign scenarios --json
    """
    from bellica.engine.core.ruleset import ruleset_scenarios
    from bellica.etl.scenario import list_scenarios, scenario_title

    shipped = list_scenarios()
    installed = {name: path for name, path in ruleset_scenarios().items() if name not in shipped}
    listed = [(name, scenario_title(name)) for name in shipped]
    listed += [(name, scenario_title(path)) for name, path in sorted(installed.items())]
    if as_json:
        from bellica.services.jsonout import echo_json

        echo_json([{"name": name, "title": title} for name, title in listed])
        return
    for name, title in listed:
        click.echo(f"{name}: {title}")


def installed_scenario(scenario: str) -> str:
    """``scenario`` as the ETL reads it: a path or a name bellica ships stays as given; the name of
    a scenario an installed ruleset ships (:attr:`Ruleset.scenarios`, a distribution's own folder)
    becomes that scenario's path, so a ruleset installed through the ``bellica.rulesets`` entry
    point is played from its own scenarios with no file of bellica edited."""
    from bellica.etl.scenario import list_scenarios

    if Path(scenario).exists() or scenario in list_scenarios():
        return scenario
    from bellica.engine.core.ruleset import ruleset_scenarios

    found = ruleset_scenarios().get(scenario.strip("/").removesuffix(".toml"))
    return str(found) if found is not None else scenario


@group.command(name="structures")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True,
              help='One JSON array of {"structure", "kind", "controller", "terrain", "coast", "resilience"}.')
def structures(campaign: Path, as_json: bool) -> None:
    """Print each structure's controller, terrain, coast adjacency and start Resilience.

    Example: bellica campaign structures punic.duckdb --json
    """
    from bellica.etl.campaign import open_campaign, structure_summary

    con = open_campaign(campaign, needs=("structures", "structure_resilience"))
    try:
        rows = structure_summary(con)
    finally:
        con.close()
    if as_json:
        from bellica.services.jsonout import echo_json, structures_json

        echo_json(structures_json(rows))
        return
    for name, kind, ctl, terrain, coast, res in rows:
        click.echo(f"{name:<20} {kind:<5} {ctl:<10} {terrain or '-':<10} {'coast' if coast else '':<5} {res:+d}")
