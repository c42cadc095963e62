"""`bellica export`: the situation now (armies, control, sieges, lines of logistics, ZoC) as
GeoPackage/GeoJSON, and with ``--packet`` a player packet per faction for play by email.

The tables and views are read by SQL in :mod:`bellica.etl.situation` (which says what each
layer holds and which are public); the packet needs the engine (the log as a faction may
read it: :func:`bellica.engine.core.sealed.log_view`) and the faction map (the ``bellica
render map`` command's own code), so it is built here, in the CLI layer.

A packet, ``packets/<faction>/`` under ``--out``, holds exactly what that faction may see:

* ``map.html``: ``bellica render map CAMPAIGN --faction F`` (other factions' strengths hidden);
* ``log.txt`` and ``log.jsonl``: ``bellica log CAMPAIGN --faction F`` (and its ``--json``): other
  factions' orders sealed as the engine seals them, the faction's own in full;
* ``orders-round-N.toml``: an orders template (engine/vae_victis/orders.py's file format) with
  one ``[armies.N] moves = ""`` per live army of F, its comments naming the army's hex, the
  structure there, its strength and, for a besieger, the siege; N is the current round in
  the orders phase, else the next round (the one whose orders the players write next);
* the faction's own export of the situation (``situation.gpkg`` / ``geojson/``), as
  ``--faction F`` writes it.

Decisions: ``--packet`` without ``--faction`` writes a packet for every faction of the
campaign (the umpire plays the non-player ones, and they need orders too); with
``--faction F`` only F's.  Everything is written into one temporary folder renamed into place,
so a failure (a map that cannot render) leaves no half packet and keeps an earlier export.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import click

PACKETS_DIR = "packets"
LOG_NAME = "log.txt"
LOG_JSON_NAME = "log.jsonl"
MAP_NAME = "map.html"


@click.command(name="export")
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write (replaced whole, only with --force and only an earlier export).")
@click.option("--faction", default=None, metavar="NAME",
              help="Export what this faction may see (other factions' strengths and lines of logistics hidden).")
@click.option("--format", "fmt", type=click.Choice(["gpkg", "geojson", "both"], case_sensitive=False),
              default="both", show_default=True, help="GeoPackage (a layer per thing), GeoJSON (a file per thing) or both.")
@click.option("--packet", is_flag=True,
              help="Add packets/<faction>/ with the faction's map, log and orders template (every faction, or --faction's).")
@click.option("--force", is_flag=True, help="Replace an earlier export in --out.")
def command(campaign: Path, out: Path, faction: str | None, fmt: str, packet: bool, force: bool) -> None:
    """Export the campaign's situation now: armies and navies, control, sieges (with
    Resilience), lines of logistics, zones of control, as GeoPackage and/or GeoJSON in EPSG:4326.

    Example: bellica export punic.duckdb --out roma-now --faction Roma --packet
    """
    from bellica.etl.situation import UnknownFactionError, export_situation, formats_of

    formats = formats_of(fmt)
    views = ruleset_views(campaign)
    read = (lambda: views(faction)) if views else None
    extra = (lambda situation, folder: write_packets(campaign, situation, folder, formats, views)) if packet else None
    try:
        path, situation = export_situation(campaign, out, faction=faction, formats=formats, force=force, extra=extra,
                                           read=read)
    except UnknownFactionError as e:
        raise click.BadParameter(f"{faction!r} is not a faction of this campaign: use one of {', '.join(e.factions)}",
                                 param_hint="--faction") from None
    counts = ", ".join(f"{n} {name}" for name, n in situation.manifest()["layers"].items())
    who = situation.viewer or "the umpire"
    click.echo(f"{path}: round {situation.round}, phase {situation.phase}, as {who} sees it: {counts}")
    if packet:
        factions = [situation.viewer] if situation.viewer else situation.factions
        click.echo(f"player packets: {', '.join(str(path / PACKETS_DIR / folder_name(f)) for f in factions)}")


def folder_name(faction: str) -> str:
    """A faction's packet folder: its name with anything but letters, digits, - and _ as _."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", faction) or "_"


def ruleset_views(campaign: Path):
    """``views(faction) -> Situation`` from the campaign's ruleset's player view
    (:meth:`~bellica.engine.core.ruleset.Ruleset.player_view`), or None for a ruleset without one
    (Vae Victis II, whose situation :mod:`bellica.etl.situation` reads) and for a file that is no
    started campaign (the situation reader says why in one line)."""
    from bellica.commands.round import open_campaign, resolve_faction
    from bellica.engine.core.ruleset import Ruleset
    from bellica.etl.situation import Situation

    from bellica.geo.errors import InputError

    try:
        with open_campaign(campaign, read_only=True) as c:
            if type(c.ruleset).player_view is Ruleset.player_view or not c.has_state():
                return None
    except InputError:
        return None

    def views(faction: str | None) -> Situation:
        with open_campaign(campaign, read_only=True) as c:
            c.viewer = viewer = resolve_faction(c, faction)
            return Situation.from_view(campaign, c.ruleset.player_view(c, viewer), c.ruleset.factions(c))

    return views


def write_packets(campaign: Path, situation, folder: Path, formats, views=None) -> list[Path]:
    """Write ``packets/<faction>/`` into ``folder`` for the situation's viewer, or for every
    faction when it is the umpire's; returns the packet folders.  ``views`` (a ruleset's player
    views, :func:`ruleset_views`) gives each faction's situation; without it, the Vae Victis
    situation is narrowed per faction and an orders template is added."""
    from bellica.etl.situation import write_situation

    factions = [situation.viewer] if situation.viewer else list(situation.factions)
    log_texts = faction_logs(campaign, factions)
    written = []
    for faction in factions:
        if situation.viewer == faction:
            view = situation
        else:
            view = views(faction) if views else situation.for_faction(faction)
        here = folder / PACKETS_DIR / folder_name(faction)
        here.mkdir(parents=True)
        render_faction_map(campaign, here / MAP_NAME, faction)
        text, jsonl = log_texts[faction]
        (here / LOG_NAME).write_text(text, encoding="utf-8")
        (here / LOG_JSON_NAME).write_text(jsonl, encoding="utf-8")
        if views is None:
            round_ = orders_round(view)
            (here / f"orders-round-{round_}.toml").write_text(orders_template(view, campaign.name), encoding="utf-8")
        write_situation(view, here, formats)
        written.append(here)
    return written


def render_faction_map(campaign: Path, out: Path, faction: str) -> Path:
    """``bellica render map CAMPAIGN --out OUT --faction F`` through the render command itself
    (its defaults and checks), its one echoed line kept off this command's output."""
    from bellica.commands import render

    cmd = render.map_command
    args = [str(campaign), "--out", str(out), "--faction", faction]
    with cmd.make_context(cmd.name, args) as ctx, contextlib.redirect_stdout(io.StringIO()):
        cmd.invoke(ctx)
    return out


def faction_logs(campaign: Path, factions) -> dict[str, tuple[str, str]]:
    """The log as each faction may read it: the lines of ``bellica log --faction F`` and of its ``--json``."""
    import json

    from bellica.commands.round import open_campaign
    from bellica.engine.core.sealed import log_view

    texts = {}
    with open_campaign(campaign, read_only=True) as c:
        for faction in factions:
            c.viewer = faction
            lines = log_view(c, viewer=faction)
            texts[faction] = (
                "".join(f"{ln.event.seq:>5}  R{ln.event.round} {ln.event.phase:<14} {ln.text}\n" for ln in lines),
                "".join(json.dumps({"seq": ln.event.seq, "round": ln.event.round, "phase": ln.event.phase,
                                    "kind": ln.event.kind, "data": ln.data, "text": ln.text}, sort_keys=True) + "\n"
                        for ln in lines),
            )
    return texts


def orders_round(situation) -> int:
    """The round whose orders the players write next: this one in the orders phase, else the next."""
    return situation.round if situation.phase == "orders" else situation.round + 1


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def orders_template(situation, campaign_name: str) -> str:
    """An orders file (engine/vae_victis/orders.py's format) for the situation viewer's live
    armies, every one standing in place (``moves = ""``) until the player writes its moves."""
    faction = situation.viewer
    round_ = orders_round(situation)
    sieges = situation.layers["sieges"]
    lines = [
        f"# Orders of {faction} for round {round_} of {campaign_name} (written by `bellica export --packet`"
        f" in round {situation.round}, phase {situation.phase}).",
        "# moves: clock positions and 0s separated by blanks, as the rules write them (\"3 3 5 0 5\");",
        "# \"\" stands in place.  Optional keys per army: initiative = \"strength\" or a sea zone,",
        "# lift_siege = true, assault = \"<structure it besieges>\", transfers = [{ to = ARMY, fp = N }],",
        "# sea_links = { \"<sea zone>\" = [\"<structure>\"] }.  Send the file back to the umpire.",
        f"faction = {_toml_string(faction)}",
        f"round = {round_}",
    ]
    armies = situation.live_armies(faction)
    if armies.empty:
        lines.append("# no army of yours is on the board: nothing to order")
    for a in armies.itertuples():
        where = f"hex {a.cell} ({a.kind})"
        if isinstance(a.structure, str) and a.structure:
            where += f", at {a.structure}"
        if a.navy:
            where += f", a navy in {a.zones}" if a.zones else ", a navy"
        strength = "" if a.strength is None or str(a.strength) == "<NA>" else f", {int(a.strength)} FP"
        lines += ["", f"[armies.{int(a.id)}]", f"# army {int(a.id)}{strength}: {where}"]
        for s in sieges.itertuples():
            if str(int(a.id)) in [x.strip() for x in str(s.armies).split(",")]:
                lines.append(f"# besieging {s.structure} (Resilience {s.resilience}): assault = {_toml_string(s.structure)}"
                             " or lift_siege = true")
        lines.append('moves = ""')
    return "\n".join(lines) + "\n"
