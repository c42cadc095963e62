"""Vae Victis II's state tables, their state event kinds, and CampaignState <-> tables.

The core (:mod:`engine.core.state`) keeps the log and applies the reducers; this
module says where Vae Victis II's state tables are defined (:data:`STATE_SQL`), how each of its state
kinds changes the tables (:data:`REDUCERS`), and turns the tables into the
:class:`~engine.vae_victis.model.CampaignState` the rules functions take, and a new
state back into state events (:func:`save_state`).

State kinds (``data`` fields; ``was`` holds the previous value for the log):

* ``set_army``: army, faction, cell, strength, eliminated
* ``set_control``: structure, controller
* ``set_siege``: structure, faction, resilience, start_resilience, started_round, armies
* ``drop_siege``: structure
* ``set_vp``: faction, vp
* ``put_orders``: round, army, moves, initiative, lift_siege, assault, transfers, sea_links
  (``[[zone, structure], ...]``)
* ``put_engagement``: round, battle, engagement, army_a, army_b, assault
* ``drop_engagement``: round, engagement (a retreat re-lists the round's engagements)
* ``put_result``: round, engagement, army, outcome, casualties
* ``set_superiority``: zone, faction, level (``null`` drops the row: the base level again)
* ``set_sea_links``: faction, zone, structures (the targets in the order chosen; ``[]`` drops the
  faction's links in that zone)
* ``set_navy_rest``: army, until_round (``null`` drops the row: the army may act as a navy again)

plus the core's ``set_campaign`` (round, phase, stage, seed, winner) and ``put_note``.

At the start (:func:`start_snapshot`) every sea zone of ``hex_sea_zones`` holds every faction at the
rules' ``naval.superiority_base``, and each faction's sea-zone links are the default rule's
(:func:`engine.vae_victis.logistics.sea.default_sea_links`: nobody has written orders yet).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from bellica.engine.core.tables import Snapshot
from bellica.engine.vae_victis.explain import describe
from bellica.engine.vae_victis.model import Army, CampaignState, Event, Phase, Siege
from bellica.geo.errors import InputError, BellicaError

__all__ = [
    "STATE_SQL",
    "REDUCERS",
    "snapshot_state",
    "state_events",
    "save_state",
    "load_state",
    "replay",
    "start_snapshot",
    "initial_events",
    "structure_names",
]

#: The state tables, defined once (their PRIMARY KEY names the columns keying their rows).
STATE_SQL = Path(__file__).resolve().parent / "sql" / "state.sql"


# --- the reducers ---------------------------------------------------------------------


def _int_or_none(v):
    return None if v is None else int(v)


def _set_army(snap: Snapshot, d: Mapping[str, Any]) -> None:
    army = int(d["army"])
    snap.tables["armies"][(army,)] = (army, d["faction"], d["cell"], int(d["strength"]), bool(d["eliminated"]))


def _set_control(snap: Snapshot, d: Mapping[str, Any]) -> None:
    snap.tables["control"][(d["structure"],)] = (d["structure"], d["controller"])


def _drop_members(snap: Snapshot, structure: str) -> None:
    members = snap.tables["siege_armies"]
    for k in [k for k in members if k[0] == structure]:
        del members[k]


def _set_siege(snap: Snapshot, d: Mapping[str, Any]) -> None:
    s = d["structure"]
    snap.tables["sieges"][(s,)] = (s, d["faction"], int(d["resilience"]), int(d["start_resilience"]), int(d["started_round"]))
    _drop_members(snap, s)
    for army in d["armies"]:
        snap.tables["siege_armies"][(s, int(army))] = (s, int(army))


def _drop_siege(snap: Snapshot, d: Mapping[str, Any]) -> None:
    snap.tables["sieges"].pop((d["structure"],), None)
    _drop_members(snap, d["structure"])


def _set_vp(snap: Snapshot, d: Mapping[str, Any]) -> None:
    snap.tables["victory_points"][(d["faction"],)] = (d["faction"], int(d["vp"]))


def _put_orders(snap: Snapshot, d: Mapping[str, Any]) -> None:
    r, army = int(d["round"]), int(d["army"])
    snap.tables["orders"][(r, army)] = (
        r, army, d.get("moves"), d.get("initiative"), bool(d.get("lift_siege", False)), d.get("assault"),
        json.dumps(d.get("transfers") or [], sort_keys=True),
        json.dumps([[str(z), str(s)] for z, s in d.get("sea_links") or []]),
    )


def _put_engagement(snap: Snapshot, d: Mapping[str, Any]) -> None:
    r, e = int(d["round"]), int(d["engagement"])
    snap.tables["engagements"][(r, e)] = (
        r, int(d["battle"]), e, _int_or_none(d.get("army_a")), _int_or_none(d.get("army_b")), d.get("assault"),
    )


def _drop_engagement(snap: Snapshot, d: Mapping[str, Any]) -> None:
    r, e = int(d["round"]), int(d["engagement"])
    snap.tables["engagements"].pop((r, e), None)
    results = snap.tables["engagement_results"]
    for k in [k for k in results if k[0] == r and k[1] == e]:
        del results[k]


def _put_result(snap: Snapshot, d: Mapping[str, Any]) -> None:
    r, e, army = int(d["round"]), int(d["engagement"]), int(d["army"])
    snap.tables["engagement_results"][(r, e, army)] = (r, e, army, d["outcome"], int(d["casualties"]))


def _set_superiority(snap: Snapshot, d: Mapping[str, Any]) -> None:
    key = (d["zone"], d["faction"])
    if d.get("level") is None:
        snap.tables["naval_superiority"].pop(key, None)
    else:
        snap.tables["naval_superiority"][key] = (d["zone"], d["faction"], int(d["level"]))


def _set_sea_links(snap: Snapshot, d: Mapping[str, Any]) -> None:
    faction, zone = d["faction"], d["zone"]
    links = snap.tables["sea_links"]
    for k in [k for k in links if k[0] == faction and k[1] == zone]:
        del links[k]
    for rank, structure in enumerate(d.get("structures") or [], start=1):
        links[(faction, zone, structure)] = (faction, zone, structure, rank)


def _set_navy_rest(snap: Snapshot, d: Mapping[str, Any]) -> None:
    army = int(d["army"])
    if d.get("until_round") is None:
        snap.tables["navy_rest"].pop((army,), None)
    else:
        snap.tables["navy_rest"][(army,)] = (army, int(d["until_round"]))


REDUCERS = {
    "set_army": _set_army,
    "set_control": _set_control,
    "set_siege": _set_siege,
    "drop_siege": _drop_siege,
    "set_vp": _set_vp,
    "put_orders": _put_orders,
    "put_engagement": _put_engagement,
    "drop_engagement": _drop_engagement,
    "put_result": _put_result,
    "set_superiority": _set_superiority,
    "set_sea_links": _set_sea_links,
    "set_navy_rest": _set_navy_rest,
}


# --- CampaignState <-> tables ----------------------------------------------------------


def snapshot_state(snap: Snapshot) -> CampaignState:
    """The :class:`CampaignState` the snapshot's tables hold."""
    if snap.campaign("round") is None:
        raise InputError("the campaign has not been started: run `bellica round start CAMPAIGN.duckdb` first")
    armies = tuple(
        Army(id=i, faction=f, cell=c, strength=s, eliminated=bool(e)) for (i, f, c, s, e) in snap.rows("armies")
    )
    members: dict[str, list[int]] = {}
    for s, a in snap.rows("siege_armies"):
        members.setdefault(s, []).append(a)
    sieges = tuple(
        Siege(structure=s, faction=f, armies=tuple(sorted(members.get(s, []))), resilience=r, start_resilience=sr, started_round=sround)
        for (s, f, r, sr, sround) in snap.rows("sieges")
    )
    superiority: dict[str, dict[str, int]] = {}
    for zone, faction, level in snap.rows("naval_superiority"):
        superiority.setdefault(zone, {})[faction] = int(level)
    sea_links: dict[str, dict[str, list[str]]] = {}
    for faction, zone, structure, _rank in sorted(snap.rows("sea_links"), key=lambda r: (r[0], r[1], r[3], r[2])):
        sea_links.setdefault(faction, {}).setdefault(zone, []).append(structure)
    return CampaignState(
        round=int(snap.campaign("round")),
        phase=Phase(snap.campaign("phase")),
        armies=armies,
        control={s: c for s, c in snap.rows("control")},
        sieges=sieges,
        victory_points={f: v for f, v in snap.rows("victory_points")},
        seed=int(snap.campaign("seed", "0")),
        winner=snap.campaign("winner"),
        superiority=superiority,
        sea_links={f: {z: tuple(t) for z, t in by_zone.items()} for f, by_zone in sea_links.items()},
        navy_rest={int(a): int(u) for a, u in snap.rows("navy_rest")},
    )


def load_state(campaign) -> CampaignState:
    """The current :class:`CampaignState` of a :class:`~engine.core.campaign.Campaign`."""
    campaign.require_state()
    return snapshot_state(campaign.snapshot())


def replay(campaign) -> CampaignState:
    """The :class:`CampaignState` the event log replays to (checked by ``campaign.verify()``)."""
    campaign.require_state()
    return snapshot_state(campaign.replay_snapshot())


def _siege_data(s: Siege) -> dict:
    return {
        "structure": s.structure,
        "faction": s.faction,
        "resilience": int(s.resilience),
        "start_resilience": int(s.start_resilience),
        "started_round": int(s.started_round),
        "armies": sorted(int(a) for a in s.armies),
    }


def state_events(before: Snapshot, state: CampaignState, *, round: int, phase: str, names=None) -> list[Event]:
    """The state-kind events that turn ``before`` into ``state`` (armies, control, sieges, VP, campaign keys).

    ``names`` (cell -> structure name) only improves the words of the log.
    """
    out: list[Event] = []

    def emit(kind, data, text=None):
        ev = Event(round=round, phase=phase, kind=kind, data=data, text=text or "")
        out.append(Event(round=round, phase=phase, kind=kind, data=data, text=describe(ev, names)))

    old = snapshot_state(before) if before.campaign("round") is not None else None
    old_armies = {a.id: a for a in old.armies} if old else {}
    for a in sorted(state.armies, key=lambda a: a.id):
        prev = old_armies.get(a.id)
        if prev == a:
            continue
        data = {"army": a.id, "faction": a.faction, "cell": a.cell, "strength": int(a.strength), "eliminated": bool(a.eliminated)}
        if prev is not None:
            data["was"] = {"cell": prev.cell, "strength": int(prev.strength), "eliminated": bool(prev.eliminated)}
        emit("set_army", data)
    if old and {a.id for a in state.armies} < set(old_armies):
        missing = sorted(set(old_armies) - {a.id for a in state.armies})
        raise BellicaError(f"a rules step dropped armies {missing} from the state: armies are eliminated, never deleted")
    old_control = dict(old.control) if old else {}
    for s in sorted(state.control):
        if s not in old_control or old_control[s] != state.control[s]:
            data = {"structure": s, "controller": state.control[s]}
            if s in old_control:
                data["was"] = old_control[s]
            emit("set_control", data)
    old_sieges = {s.structure: s for s in old.sieges} if old else {}
    new_sieges = {s.structure: s for s in state.sieges}
    for s in sorted(old_sieges.keys() - new_sieges.keys()):
        emit("drop_siege", {"structure": s, "was": _siege_data(old_sieges[s])})
    for s in sorted(new_sieges):
        if _siege_data(new_sieges[s]) != (_siege_data(old_sieges[s]) if s in old_sieges else None):
            data = _siege_data(new_sieges[s])
            if s in old_sieges:
                data["was"] = _siege_data(old_sieges[s])
            emit("set_siege", data)
    old_vp = dict(old.victory_points) if old else {}
    for f in sorted(state.victory_points):
        if old_vp.get(f) != state.victory_points[f]:
            data = {"faction": f, "vp": int(state.victory_points[f])}
            if f in old_vp:
                data["was"] = int(old_vp[f])
            emit("set_vp", data)
    _naval_events(old, state, emit)
    phase_value = state.phase.value if isinstance(state.phase, Phase) else str(state.phase)
    for key, value in (("round", str(state.round)), ("phase", phase_value), ("seed", str(state.seed)), ("winner", state.winner)):
        if before.campaign(key) != value:
            emit("set_campaign", {"key": key, "value": value, "was": before.campaign(key)})
    return out


def _flat_superiority(state: CampaignState | None) -> dict[tuple[str, str], int]:
    if state is None:
        return {}
    return {(z, f): int(v) for z, by_faction in state.superiority.items() for f, v in by_faction.items()}


def _flat_sea_links(state: CampaignState | None) -> dict[tuple[str, str], tuple[str, ...]]:
    if state is None:
        return {}
    return {(f, z): tuple(t) for f, by_zone in state.sea_links.items() for z, t in by_zone.items() if t}


def _naval_events(old: CampaignState | None, state: CampaignState, emit) -> None:
    """The ``set_superiority`` / ``set_sea_links`` / ``set_navy_rest`` events from ``old`` to ``state``
    (a key that disappears is dropped: its level reads as the base again, its links end, its rest ends)."""
    was, now = _flat_superiority(old), _flat_superiority(state)
    for zone, faction in sorted(was.keys() | now.keys()):
        level, before = now.get((zone, faction)), was.get((zone, faction))
        if level == before:
            continue
        data = {"zone": zone, "faction": faction, "level": level}
        if before is not None:
            data["was"] = before
        text = (f"{faction}'s naval superiority in {zone}: " + (f"{before} -> " if before is not None else "")
                + (str(level) if level is not None else "the base level"))
        emit("set_superiority", data, text)
    was_l, now_l = _flat_sea_links(old), _flat_sea_links(state)
    for faction, zone in sorted(was_l.keys() | now_l.keys()):
        targets, before = now_l.get((faction, zone), ()), was_l.get((faction, zone), ())
        if targets == before:
            continue
        data = {"faction": faction, "zone": zone, "structures": list(targets)}
        if before:
            data["was"] = list(before)
        text = (f"{faction}'s sea-zone logistics across {zone}: " + (", ".join(targets) if targets else "none")
                + (f" (was {', '.join(before)})" if before else ""))
        emit("set_sea_links", data, text)
    was_r = dict(old.navy_rest) if old is not None else {}
    now_r = dict(state.navy_rest)
    for army in sorted(was_r.keys() | now_r.keys()):
        until, before = now_r.get(army), was_r.get(army)
        if until == before:
            continue
        data = {"army": int(army), "until_round": None if until is None else int(until)}
        if before is not None:
            data["was"] = int(before)
        text = (f"army {army} may not act as a navy until after round {until}" if until is not None
                else f"army {army} may act as a navy again")
        emit("set_navy_rest", data, text)


def save_state(campaign, state: CampaignState, *, events: Iterable[Event] = (), phase: str | None = None, names=None) -> Snapshot:
    """Record ``events`` (the rules' explanations) and the changes that lead to ``state``.

    The changes are derived by diffing the stored tables with ``state`` and are
    appended as state-kind events, so the tables only ever change through the log.
    Call inside ``campaign.transaction()``.
    """
    events = list(events)
    kinds = campaign.ruleset.schema.state_kinds
    for ev in events:
        if ev.kind in kinds:
            raise BellicaError(f"a rules module emitted an event of the reserved kind {ev.kind!r}")
    before = campaign.snapshot()
    rnd = int(before.campaign("round") or state.round)
    ph = phase or before.campaign("phase") or state.phase
    ph = ph.value if isinstance(ph, Phase) else str(ph)
    return campaign.append(events + state_events(before, state, round=rnd, phase=ph, names=names), before=before)


# --- starting a campaign from its scenario ---------------------------------------------


def start_snapshot(campaign, *, seed: int) -> Snapshot:
    """The state at the start of the campaign, straight from the scenario tables.

    Placements give the armies (all at the rules' ``start.army_fp``, which a scenario's
    ``start_fp`` sets); ``structures.controller`` gives control; every faction starts at 0 VP;
    round 1, phase orders, stage initiative.  Placement rules are checked: an
    army starts in one of its faction's controlled towns/cities, at most one
    army of a faction per structure.
    """
    con = campaign.con
    tables = campaign.tables()
    for needed in ("placements", "structures", "factions"):
        if needed not in tables:
            raise InputError(
                f"the campaign database has no `{needed}` table: create it with `bellica campaign new` before starting"
            )
    start_fp = campaign.rules.start.army_fp
    structures = {
        name: (cell, controller)
        for name, cell, controller in con.execute("SELECT name, cell, controller FROM structures").fetchall()
    }
    factions = [r[0] for r in con.execute("SELECT name FROM factions ORDER BY name").fetchall()]
    snap = campaign.ruleset.schema.empty()
    seen: set[tuple[str, str]] = set()
    placements = con.execute("SELECT army, faction, structure, cell FROM placements ORDER BY army").fetchall()
    if not placements:
        raise InputError("the `placements` table is empty: place every army in a controlled town or city first")
    for army, faction, structure, cell in placements:
        if army is None:
            raise InputError(f"a placement at {structure!r} has no army number: number every army")
        if (int(army),) in snap.tables["armies"]:
            raise InputError(f"army {army} is placed twice in `placements`: keep one row per army")
        if faction not in factions:
            raise InputError(f"army {army} belongs to unknown faction {faction!r}: use one of {', '.join(factions)}")
        if structure is not None:
            if structure not in structures:
                raise InputError(f"army {army} is placed in unknown structure {structure!r}: name a town or city of `structures`")
            s_cell, controller = structures[structure]
            if controller != faction:
                raise InputError(
                    f"army {army} ({faction}) is placed in {structure}, controlled by {controller or 'nobody'}: "
                    f"place it in a town or city {faction} controls"
                )
            if (faction, structure) in seen:
                raise InputError(f"army {army} is a second {faction} army in {structure}: one army per faction per starting point")
            seen.add((faction, structure))
            cell = cell or s_cell
            if cell != s_cell:
                raise InputError(f"army {army} is placed in {structure} but at cell {cell}, not the structure's cell {s_cell}: fix `placements`")
        if cell is None:
            raise InputError(f"army {army} has neither a structure nor a cell in `placements`: give one")
        snap.tables["armies"][(int(army),)] = (int(army), faction, cell, start_fp, False)
    for name in structures:
        snap.tables["control"][(name,)] = (name, structures[name][1])
    for f in factions:
        snap.tables["victory_points"][(f,)] = (f, 0)
    base = int(campaign.rules.naval.superiority_base)
    if "hex_sea_zones" in tables:
        for (zone,) in con.execute("SELECT DISTINCT zone FROM hex_sea_zones WHERE zone IS NOT NULL ORDER BY zone").fetchall():
            for f in factions:
                snap.tables["naval_superiority"][(zone, f)] = (zone, f, base)
    for key, value in (("round", "1"), ("phase", Phase.ORDERS.value), ("stage", "initiative"), ("seed", str(int(seed)))):
        snap.tables["campaign"][(key,)] = (key, value)
    _start_sea_links(campaign, snap, tables)
    return snap


def _start_sea_links(campaign, snap: Snapshot, tables) -> None:
    """The sea-zone links in force at the start: the default rule's for every faction and zone
    (:func:`engine.vae_victis.logistics.sea.default_sea_links`), nobody having written orders.
    Skipped on a map without sea zones or without the tables the logistics SQL reads."""
    from bellica.engine.vae_victis.ruleset import LOGISTICS_INPUTS

    if not snap.tables["naval_superiority"] or not LOGISTICS_INPUTS <= set(tables):
        return
    from bellica.engine.vae_victis.logistics.sea import default_sea_links

    for faction, by_zone in default_sea_links(campaign.board, snapshot_state(snap)).items():
        for zone, targets in by_zone.items():
            for rank, structure in enumerate(targets, start=1):
                snap.tables["sea_links"][(faction, zone, structure)] = (faction, zone, structure, rank)


def structure_names(campaign) -> dict[str, str]:
    """cell -> structure name, for the words of the log (empty when there are no structures); kept on the campaign."""
    names = campaign.cache.get("structure_names")
    if names is None:
        names = {}
        if "structures" in campaign.tables():
            names = {cell: name for name, cell in campaign.con.execute("SELECT name, cell FROM structures").fetchall()}
        campaign.cache["structure_names"] = names
    return names


def initial_events(campaign, *, seed: int) -> list[Event]:
    """The events that set up the campaign: the placements, starting control and VP, round 1."""
    snap = start_snapshot(campaign, seed=seed)
    names = structure_names(campaign)
    events: list[Event] = []

    def emit(kind, data, text=""):
        ev = Event(round=1, phase="setup", kind=kind, data=data, text=text)
        events.append(Event(round=1, phase="setup", kind=kind, data=data, text=describe(ev, names)))

    emit("campaign_started", {"seed": int(seed), "armies": len(snap.tables["armies"])})
    for key in ("seed", "round", "phase", "stage"):
        emit("set_campaign", {"key": key, "value": snap.campaign(key)})
    for army, faction, cell, strength, eliminated in snap.rows("armies"):
        emit("set_army", {"army": army, "faction": faction, "cell": cell, "strength": strength, "eliminated": eliminated})
    for structure, controller in snap.rows("control"):
        emit("set_control", {"structure": structure, "controller": controller})
    for faction, vp in snap.rows("victory_points"):
        emit("set_vp", {"faction": faction, "vp": vp})
    for zone, faction, level in snap.rows("naval_superiority"):
        emit("set_superiority", {"zone": zone, "faction": faction, "level": level},
             f"{faction} starts with naval superiority {level} in {zone}")
    for faction, zone in sorted({(f, z) for f, z, _s, _r in snap.rows("sea_links")}):
        targets = [s for f, z, s, _r in sorted(snap.rows("sea_links"), key=lambda r: r[3]) if f == faction and z == zone]
        emit("set_sea_links", {"faction": faction, "zone": zone, "structures": targets},
             f"{faction}'s sea-zone logistics across {zone} start at {', '.join(targets)}")
    return events
