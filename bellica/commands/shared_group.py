"""A command group several rulesets share: ``bellica turn <command> CAMPAIGN ...``.

Each ruleset that declares its steps has its own group (``bellica <command_group> ...``, made by
:mod:`bellica.commands.play`).  Rulesets whose :attr:`~bellica.engine.core.ruleset.Ruleset.play_command`
is ``bellica <name>`` are also played through one shared group of that name: each of its
commands reads the campaign file argument, opens the campaign to learn its ruleset, and runs that
ruleset's generated command of the same name with the same arguments, so the two spellings
accept, refuse and print the same.  Nothing here knows a ruleset: the group lists the commands
the rulesets declaring it offer, found in the registry.

A campaign of a ruleset played elsewhere is refused in one line naming its own command (exit 1);
a command the campaign's ruleset does not offer is refused in one line naming the rulesets that
do (exit 1).  ``--help`` on a command shows every such ruleset's options.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

__all__ = ["SharedGroup", "group"]

HELP_FLAGS = ("-h", "--help")


def _rulesets(play_command: str) -> list:
    """The installed rulesets played with ``play_command`` that declare their steps, by name."""
    from bellica.engine.core.ruleset import get_ruleset, ruleset_names

    found = [get_ruleset(n) for n in ruleset_names()]
    return [r for r in found if r.play_command == play_command and r.command_group and r.actions()]


def _generated(ruleset) -> click.Group:
    from bellica.commands.play import group_for

    return group_for(ruleset)


def _campaign_of(offered: list[tuple[object, click.Command]], name: str, args: list[str], parent) -> str | None:
    """The campaign file among ``args``, as the commands ``offered`` (one per ruleset) read them: the
    first that parses them (resiliently) says; else the first word that is no option."""
    from bellica.commands.play import CAMPAIGN_ARG

    for _ruleset, command in offered:
        try:
            ctx = command.make_context(name, list(args), parent=parent, resilient_parsing=True)
        except click.ClickException:
            continue
        value = ctx.params.get(CAMPAIGN_ARG)
        if value is not None:
            return str(value)
    return next((a for a in args if not a.startswith("-")), None)


class SharedCommand(click.Command):
    """``bellica <group> <name> CAMPAIGN ...``: runs the campaign's ruleset's own command ``name``."""

    def __init__(self, name: str, shared: "SharedGroup"):
        self.shared = shared
        self.name = name
        offered = shared.offering(name)
        super().__init__(name, callback=None, help=self._help(offered), short_help=self._short(offered),
                         params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED, metavar="CAMPAIGN [ARGS]...")],
                         context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
                         add_help_option=False)

    # --- help: every offering ruleset's -----------------------------------------------------------

    def _spelled(self, ruleset, text: str) -> str:
        """``text`` with the ruleset's own group spelled as this shared one."""
        return re.sub(rf"\bbellica {re.escape(ruleset.command_group)}\b", f"bellica {self.shared.name}", text)

    def _help(self, offered) -> str:
        parts, examples = [], []
        for ruleset, command in offered:
            text = (command.help or "").strip()
            paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
            last = paragraphs[-1].strip() if paragraphs else ""
            if re.match(r"Examples?: ", last):
                paragraphs = paragraphs[:-1]
                for one in re.split(r";\s*(?=bellica )", " ".join(last.split(": ", 1)[1].split())):
                    one = self._spelled(ruleset, one)
                    if one not in examples:
                        examples.append(one)
            body = self._spelled(ruleset, "\n\n".join(paragraphs))
            parts.append(f"{ruleset.title or ruleset.name} (`bellica {ruleset.command_group} {self.name}`): {body}"
                         if len(offered) > 1 else body)
        if examples:
            parts.append(f"Example{'s' if len(examples) > 1 else ''}: " + "; ".join(examples))
        return "\n\n".join(parts)

    def _short(self, offered) -> str:
        texts = {c.get_short_help_str(limit=300) for _r, c in offered}
        if len(texts) == 1:
            return texts.pop()
        return " ".join(f"{r.title or r.name}: {c.get_short_help_str(limit=300).rstrip('.')}." for r, c in offered)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each offering ruleset's options, under its name."""
        for ruleset, command in self.shared.offering(self.name):
            sub = click.Context(command, info_name=self.name, parent=ctx.parent)
            rows = [r for p in command.get_params(sub)
                    if isinstance(p, click.Option) and (r := p.get_help_record(sub)) is not None]
            usage = " ".join(command.collect_usage_pieces(sub))
            with formatter.section(f"{ruleset.title or ruleset.name}: bellica {self.shared.name} {self.name} {usage}"):
                formatter.write_dl(rows)

    # --- running -----------------------------------------------------------------------------------

    def invoke(self, ctx: click.Context):
        args = list(ctx.params.get("args") or ()) + list(ctx.args)
        offered = self.shared.offering(self.name)
        campaign = _campaign_of(offered, self.name, args, ctx.parent)
        if campaign is None or not Path(campaign).is_file():
            if any(a in HELP_FLAGS for a in args):
                click.echo(ctx.get_help(), color=ctx.color)
                ctx.exit()
            # Missing or absent: the first ruleset's command says so, as it would for its own group.
            return self._run(ctx, offered[0][1], args)
        ruleset = self._ruleset_of(Path(campaign))
        command = _generated(ruleset).get_command(ctx, self.name)
        if command is None:
            from bellica.geo.errors import InputError

            titles = ", ".join(r.title or r.name for r, _c in offered)
            raise InputError(f"{campaign} is a {ruleset.title or ruleset.name} campaign: this command is for {titles}; "
                             f"`bellica {self.shared.name} status` says what comes next")
        return self._run(ctx, command, args)

    def _ruleset_of(self, campaign: Path):
        """The ruleset of ``campaign``, which must be played with this shared group (one line naming its own otherwise)."""
        from bellica.commands.campaigns import open_campaign
        from bellica.geo.errors import InputError

        with open_campaign(campaign, read_only=True) as c:
            ruleset = c.ruleset
        if ruleset.play_command != self.shared.play_command or not ruleset.command_group or not ruleset.actions():
            raise InputError(f"{campaign} is a {ruleset.name} campaign, not a {self.shared.kind} one: "
                             f"play it with `{ruleset.play_command}`")
        return ruleset

    def _run(self, ctx: click.Context, command: click.Command, args: list[str]):
        with command.make_context(self.name, args, parent=ctx.parent) as sub:
            return command.invoke(sub)


class SharedGroup(click.Group):
    """The group ``bellica <name>`` of the rulesets whose ``play_command`` is ``bellica <name>``;
    ``kind`` names their campaigns in a refusal (``a province one``)."""

    def __init__(self, name: str, *, kind: str, help: str):
        super().__init__(name=name, help=help)
        self.kind = kind
        self.play_command = f"bellica {name}"
        self._offering: dict[str, list] | None = None

    def offering(self, command: str) -> list[tuple[object, click.Command]]:
        """(ruleset, its generated command ``command``) for every ruleset of this group that has it."""
        if self._offering is None:
            self._offering = {}
            for ruleset in _rulesets(self.play_command):
                group = _generated(ruleset)
                for name in group.list_commands(click.Context(group)):
                    self._offering.setdefault(name, []).append((ruleset, group.commands[name]))
        return self._offering.get(command, [])

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rulesets = _rulesets(self.play_command)
        with formatter.section("Rulesets"):
            formatter.write_dl([(r.title or r.name, f"bellica {r.command_group} ...: " + ", ".join(
                _generated(r).list_commands(ctx))) for r in rulesets])
        super().format_epilog(ctx, formatter)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self.offering("")
        return sorted(self._offering)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and self.offering(name):
            self.add_command(SharedCommand(name, self))
        return self.commands.get(name)


group = SharedGroup("turn", kind="province", help=(
    "Play a province campaign: each command reads CAMPAIGN's ruleset and runs that ruleset's own command of the "
    "same name, with the same arguments (the rulesets and their own groups are listed below).  "
    "`bellica turn COMMAND --help` shows each ruleset's options."))
