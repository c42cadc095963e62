"""`bellica <group> ...` for a ruleset that declares its steps, built from the declarations.

A ruleset names its command group (``Ruleset.command_group``) and declares its steps
(:class:`bellica.engine.core.steps.Action`, in its package's ``steps`` module); this module
makes the group: ``start`` and ``status`` for every such ruleset, then one command per declared
step, its arguments and options from the step's parameters.  Nothing here knows a ruleset: the
top-level command line (bellica/cli.py) asks the registry which ruleset owns a group name, so
an installed ruleset's group appears with no file of bellica edited.

Every command opens the campaign (another ruleset's file is bad input, exit 1), resolves the
acting faction (an unknown one is a usage error, exit 2), parses the parameters with the
declarations' one parser (engine/core/steps.py), runs the step and prints its events as the
actor may read them, then what comes next.
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.campaigns import open_campaign, require_started, resolve_faction
from bellica.commands.options import WHOLE

__all__ = ["group_for", "ruleset_of_group"]

#: The positional argument every command of a ruleset's group begins with.
CAMPAIGN_ARG = "campaign"

#: Commands of no ruleset that a ruleset's group also offers, by group name: "module:attribute"
#: under bellica.commands (``bellica round verify`` checks any ruleset's campaign).
EXTRA_COMMANDS: dict[str, tuple[str, ...]] = {"round": ("checks:verify",)}


def ruleset_of_group(name: str):
    """The installed ruleset whose declared steps make the command group ``name`` (None: none)."""
    from bellica.engine.core.ruleset import get_ruleset, ruleset_names

    default = get_ruleset(None)  # the default ruleset's group found without importing every other (a step's time)
    if default.command_group == name and default.actions():
        return default
    for ruleset_name in ruleset_names():
        ruleset = get_ruleset(ruleset_name)
        if ruleset.command_group == name and ruleset.actions():
            return ruleset
    return None


def group_names() -> list[str]:
    """The command groups the installed rulesets' declarations make."""
    from bellica.engine.core.ruleset import get_ruleset, ruleset_names

    return sorted({r.command_group for r in map(get_ruleset, ruleset_names()) if r.command_group and r.actions()})


def group_for(ruleset) -> click.Group:
    """The command group of ``ruleset``: start, status and its declared steps (a step declared
    ``start`` or ``status`` is the ruleset's own), then :data:`EXTRA_COMMANDS`."""
    import importlib

    extras = [getattr(importlib.import_module(f"bellica.commands.{module}"), attribute)
              for module, attribute in (spec.split(":") for spec in EXTRA_COMMANDS.get(ruleset.command_group, ()))]
    names = ", ".join(dict.fromkeys(["start", "status", *(a.name for a in ruleset.actions()), *(c.name for c in extras)]))
    group = click.Group(name=ruleset.command_group, help=f"Play a {ruleset.title or ruleset.name} campaign: {names}.")
    group.add_command(_start_command(ruleset))
    group.add_command(_status_command(ruleset))
    for action in ruleset.actions():
        group.add_command(_step_command(ruleset, action))
    for command in extras:
        group.add_command(command)
    return group


# --- opening the campaign ----------------------------------------------------------------------------


def _open(ruleset, campaign: Path, *, read_only: bool = False, started: bool | None = True):
    """The campaign at ``campaign``, which must be ``ruleset``'s (another's: bad input, exit 1);
    ``started``: refused as a step out of order (exit 3) before (False: after) its start."""
    from bellica.geo.errors import InputError

    if not campaign.exists():
        raise InputError(f"{campaign}: no such campaign file: make one with `bellica campaign new --scenario ... "
                         f"--out {campaign}` (`bellica campaign new --help` lists the scenarios)")
    c = open_campaign(campaign, read_only=read_only)
    try:
        if c.ruleset.name != ruleset.name:
            raise InputError(f"{campaign} is a {c.ruleset.name} campaign, not a {ruleset.title or ruleset.name} one: "
                             f"play it with `{c.ruleset.play_command}`")
        if started is not None:
            require_started(c, started)
    except BaseException:
        c.close()
        raise
    return c


def _next_line(c) -> None:
    click.echo("next: " + c.ruleset.next_step(c, c.snapshot()).replace("CAMPAIGN", str(c.path)))


# --- start and status ---------------------------------------------------------------------------------


def _start_command(ruleset) -> click.Command:
    def start(campaign: Path, seed: int | None) -> None:
        with _open(ruleset, campaign, started=False) as c:
            s = c.start(seed=seed)
            for line in ruleset.said(c, c.events(), None):
                click.echo(line)
            click.echo(f"{campaign}: campaign started, {ruleset.round_word} {s.campaign('round')}, seed {s.campaign('seed')}")
            _next_line(c)

    return click.Command("start", callback=start, help=(
        f"Start the campaign: every side at its start, {ruleset.round_word} 1.\n\n"
        f"Example: {_example(ruleset, 'start')} --seed 7"), params=[
        _campaign_argument(),
        click.Option(["--seed"], type=WHOLE, default=None, help="The campaign's random seed (default 1): every die comes from it.")])


def _status_command(ruleset) -> click.Command:
    flag = ruleset.faction_flag

    def status(campaign: Path, as_json: bool, **viewer) -> None:
        with _open(ruleset, campaign, read_only=True, started=None if ruleset.status_before_start else True) as c:
            who = resolve_faction(c, viewer.popitem()[1], param_hint=flag)
            view = ruleset.player_view(c, who)
        if as_json:
            from bellica.services.jsonout import echo_json

            echo_json(_with_file(view.status, campaign) if ruleset.status_json_names_file else view.status)
            return
        for line in ruleset.status_lines(view.status):
            click.echo(line.replace("CAMPAIGN", str(campaign)))

    return click.Command("status", callback=status, help=(
        f"Where the campaign stands, as a {_word(ruleset)} sees it with {flag} (default: the umpire).\n\n"
        f"Example: {_example(ruleset, 'status')}"), params=[
        _campaign_argument(),
        click.Option([flag, "viewer"], default=None, help=f"See as this {_word(ruleset)} (its name, any case, or its beginning)."),
        click.Option(["--json", "as_json"], is_flag=True, help="One JSON object: the player view's status.")])


def _example(ruleset, command: str) -> str:
    """A generated command's example: this group's command on the ruleset's example file."""
    return f"bellica {ruleset.command_group} {command} {ruleset.example_campaign}"


def _with_file(status, campaign: Path):
    """``status`` with the placeholder ``CAMPAIGN`` of its words replaced by the file's name."""
    if isinstance(status, str):
        return status.replace("CAMPAIGN", str(campaign))
    if isinstance(status, dict):
        return {k: _with_file(v, campaign) for k, v in status.items()}
    if isinstance(status, list):
        return [_with_file(v, campaign) for v in status]
    return status


# --- a declared step ------------------------------------------------------------------------------------


def _step_command(ruleset, action) -> click.Command:
    from bellica.engine.core.steps import SIDE

    params: list[click.Parameter] = [] if action.opens == "offline" else [_campaign_argument()]
    params += [_click_param(p) for p in action.params if p.positional]
    if action.who == SIDE:
        params.append(click.Option([ruleset.faction_flag, "actor"], required=not action.umpire_too,
                                   help=action.actor_help or (
                                       f"The {_word(ruleset)} taking the step (its name, any case, or its beginning)"
                                       + ("; default: the umpire, for it." if action.umpire_too else "."))))
    params += [_click_param(p) for p in action.params if not p.positional]

    def callback(campaign: Path | None = None, actor: str | None = None, **given) -> None:
        _run(ruleset, action, campaign, actor, given)

    return click.Command(action.name, callback=callback, params=params, help=action.help_text(),
                         short_help=action.summary)


def _run(ruleset, action, campaign: Path, actor: str | None, given: dict) -> None:
    from bellica.engine.core.steps import ParamError, parse_input, run_action

    if action.opens == "offline":
        try:
            events = run_action(action, None, None, parse_input(action, given, (), _word(ruleset)))
        except ParamError as e:
            raise click.BadParameter(e.reason, param_hint=e.param.label) from None
        for line in ruleset.said(None, events, None):
            click.echo(line)
        return
    opening = {"step": {}, "view": {"read_only": True}, "start": {"started": False}}[action.opens]
    with _open(ruleset, campaign, **opening) as c:
        actor = resolve_faction(c, actor, param_hint=ruleset.faction_flag)
        try:
            typed = parse_input(action, given, ruleset.factions(c), _word(ruleset))
            # A step's own check of its parameters together (one of two flags) is a usage error too.
            events = run_action(action, c, actor, typed, _signer(actor))
        except ParamError as e:
            raise click.BadParameter(e.reason, param_hint=e.param.label) from None
        for line in ruleset.said(c, events, actor):
            click.echo(line)
        if action.opens == "step" and ruleset.says_next:
            _next_line(c)


def _signer(actor: str | None):
    """Who signs a step on the command line: the faction named (every army of it, recorded by its
    name), or the umpire (recorded as "umpire")."""
    from bellica.engine.core.steps import Signer

    return Signer("umpire", by="umpire") if actor is None else Signer("player", actor, by=actor)


def _campaign_argument() -> click.Argument:
    return click.Argument([CAMPAIGN_ARG], type=click.Path(dir_okay=False, path_type=Path))


def _click_param(p) -> click.Parameter:
    """The click argument or option of a declared parameter (click checks its type: a word for a
    number is a usage error, exit 2, as everywhere)."""
    kind = {"whole": WHOLE, "choice": click.Choice(p.choices, case_sensitive=False)}.get(p.kind, click.STRING)
    if p.keyed:
        kind = click.STRING  # KEY=VALUE items: the declaration's parser reads the value
    if p.positional:
        return click.Argument([p.name], type=kind, nargs=-1 if p.repeats else 1, required=p.required,
                              metavar=p.metavar or None)
    if p.kind == "flag":
        return click.Option([p.flag, *p.aliases, p.name], is_flag=True, default=bool(p.default), help=p.help)
    return click.Option([p.flag, *p.aliases, p.name], type=kind, multiple=p.repeats, required=p.required, default=None,
                        metavar=p.metavar or None, help=p.help)


def _word(ruleset) -> str:
    return ruleset.faction_flag.lstrip("-")
