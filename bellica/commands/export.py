"""`bellica export`: the situation now, as one viewer may see it, as GeoPackage/GeoJSON, and with
``--packet`` a player packet per faction for play by email.

What a viewer may see is the campaign's ruleset's player view (:mod:`bellica.schema.view`, read
by :func:`bellica.services.situation.read_situation`); the packet adds the faction's map (the
``bellica render map`` command's own code), its log as it may read it
(:func:`bellica.engine.core.sealed.log_view`) and, where the ruleset takes orders by file, an
orders file to fill in (:meth:`Ruleset.order_sheet`).

A packet, ``packets/<faction>/`` under ``--out``, holds exactly what that faction may see:

* ``map.html``: ``bellica render map CAMPAIGN --faction F``;
* ``log.txt`` and ``log.jsonl``: ``bellica log CAMPAIGN --faction F`` (and its ``--json``): other
  factions' orders sealed as the engine seals them, the faction's own in full;
* Vae Victis II: ``orders-round-N.toml``, one ``[armies.N] moves = ""`` per live army of F, its
  comments naming the army's hex, the structure there, its strength and, for a besieger, the
  siege; N is the current round in the orders phase, else the next;
* the faction's own export of the situation (``situation.gpkg`` / ``geojson/`` / ``status.json``).

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
    from bellica.etl.situation import UnknownFactionError, formats_of
    from bellica.services.situation import export_campaign

    formats = formats_of(fmt)
    extra = (lambda situation, folder: write_packets(campaign, situation, folder, formats)) if packet else None
    try:
        path, situation = export_campaign(campaign, out, faction=faction, formats=formats, force=force, extra=extra)
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


def write_packets(campaign: Path, situation, folder: Path, formats) -> list[Path]:
    """Write ``packets/<faction>/`` into ``folder`` for the situation's viewer, or for every
    faction when it is the umpire's; returns the packet folders (a progress bar on a terminal:
    each packet renders a map)."""
    from bellica.engine.core.ruleset import get_ruleset
    from bellica.geo.progress import progress_bar

    factions = [situation.viewer] if situation.viewer else list(situation.factions)
    log_texts = faction_logs(campaign, factions)
    ruleset = get_ruleset(situation.view.ruleset)
    written = []
    with progress_bar(total=len(factions), desc="packets", unit="faction") as bar:
        for faction in factions:
            written.append(_write_packet(campaign, situation, folder / PACKETS_DIR / folder_name(faction), formats,
                                         faction, ruleset, log_texts[faction]))
            bar.update(1)
    return written


def _write_packet(campaign: Path, situation, here: Path, formats, faction: str, ruleset, log_text) -> Path:
    """One faction's packet in the folder ``here`` (see the module doc)."""
    from bellica.etl.situation import write_situation
    from bellica.services.situation import read_situation

    view = situation if situation.viewer == faction else read_situation(campaign, faction=faction)
    here.mkdir(parents=True)
    render_faction_map(campaign, here / MAP_NAME, faction)
    text, jsonl = log_text
    (here / LOG_NAME).write_text(text, encoding="utf-8")
    (here / LOG_JSON_NAME).write_text(jsonl, encoding="utf-8")
    sheet = ruleset.order_sheet(view.view, campaign.name)
    if sheet is not None:
        (here / sheet[0]).write_text(sheet[1], encoding="utf-8")
    write_situation(view, here, formats)
    return here


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

    from bellica.commands.campaigns import open_campaign
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
