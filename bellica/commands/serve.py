"""``bellica serve``: the campaign as a web app (bellica/app), and the tokens players sign in with.

``bellica serve CAMPAIGN [--host 127.0.0.1] [--port 8000]`` runs the app under uvicorn;
``bellica serve tokens CAMPAIGN [--url URL]`` issues one secret token per faction and one for the
umpire, prints them once with their sign-in links, and stores only their SHA-256 hashes (issuing
again revokes the old ones).  ``serve`` is a group whose default command is the server, so both
spellings above work with one registration.
"""

from __future__ import annotations

from pathlib import Path

import click

from bellica.commands.campaigns import open_campaign, resolve_faction


class _ServeGroup(click.Group):
    """A group that runs ``run`` when its first argument is not a subcommand (``bellica serve X.duckdb``)."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(name="serve", cls=_ServeGroup)
def group() -> None:
    """Play through the browser: `bellica serve CAMPAIGN` runs the app; `bellica serve tokens CAMPAIGN` issues sign-in links.

    Example: bellica serve tokens punic.duckdb && bellica serve punic.duckdb --port 8000
    """


@group.command("run", hidden=True)
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="TCP port.")
@click.option("--secure-cookies", is_flag=True, help="Mark the cookies Secure (the players reach the app over HTTPS).")
@click.option("--behind-proxy", is_flag=True,
              help="Trust X-Forwarded-Proto/-Host from an HTTPS proxy in front (cookies Secure over HTTPS); listen on loopback.")
def run(campaign: Path, host: str, port: int, secure_cookies: bool, behind_proxy: bool) -> None:
    """Run the web app on CAMPAIGN (uvicorn); typed without the word `run`.

    Example: bellica serve punic.duckdb --host 0.0.0.0 --port 8000
    """
    from bellica.app.background import serve
    from bellica.app.tokens import TABLE

    # a missing or wrong file is one line here, not per request; a campaign not started yet is served
    # too: its umpire starts it from the page (issue 21 item 3)
    with open_campaign(campaign, read_only=True) as c:
        if TABLE not in c.tables():
            click.echo(f"warning: {campaign} has no sign-in tokens yet: issue them with `bellica serve tokens {campaign}`", err=True)
    click.echo(f"serving {campaign} on http://{host}:{port}/ (Ctrl-C stops it)")
    serve(campaign, host=host, port=port, secure_cookies=secure_cookies, behind_proxy=behind_proxy)


@group.command("tokens")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--url", default="http://127.0.0.1:8000", show_default=True, help="The app's address, for the sign-in links.")
@click.option("--player", "players", multiple=True, metavar="NAME=FACTION:ARMY,...",
              help="Also a token for a player commanding only these armies of a faction (e.g. Scipio=Roma:9,10).")
def tokens(campaign: Path, url: str, players) -> None:
    """Issue a sign-in token per faction, per --player, and one for the umpire; old ones are revoked.

    The tokens are printed once: hand each player its link. Only their hashes are stored.

    Example: bellica serve tokens punic.duckdb --url http://192.168.1.5:8000 --player Scipio=Roma:9,10
    """
    from bellica.app.tokens import issue_tokens
    from bellica.geo.errors import InputError
    from bellica.geo.files import whole_number

    parsed: dict[str, tuple[str, tuple[int, ...]]] = {}
    for item in players:
        name, sep, rest = item.partition("=")
        faction, sep2, armies = rest.rpartition(":")
        numbers = [whole_number(a.strip()) for a in armies.split(",")]
        # what is wrong inside the value is bad input (exit 1), as in an order; an unknown faction, usage (2)
        if not (sep and sep2 and name.strip() and faction.strip()) or None in numbers:
            raise InputError(f"--player {item!r} is not NAME=FACTION:ARMY,ARMY with armies in digits 0-9 "
                             "(e.g. Scipio=Roma:9,10)")
        if name.strip() in parsed:
            raise InputError(f"--player: player {name.strip()!r} is given twice: give each player once")
        parsed[name.strip()] = (faction.strip(), tuple(numbers))
    with open_campaign(campaign) as c:
        parsed = {n: (resolve_faction(c, f, param_hint="--player"), a) for n, (f, a) in parsed.items()}
        issued = issue_tokens(c, parsed)
    click.echo(f"sign-in links for {campaign} (earlier tokens revoked; keep these secret, they are not shown again):")
    for i in issued:
        armies = f"  (armies {', '.join(map(str, i.armies))} of {i.faction})" if i.armies else ""
        click.echo(f"  {i.name:<12} {url.rstrip('/')}/?token={i.token}{armies}")
