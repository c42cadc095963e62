"""What a Vae Victis II faction (or the umpire) may see of the board now, as a player view
(:mod:`bellica.schema.view`): the one place this ruleset decides what a faction may read of it.

* ``armies``: one point per live army at its hex centre: id, faction, strength, ``navy`` (true on a
  Coast or Sea hex), the sea ``zones`` of a navy's hex, the hex ``kind`` and the ``structure``
  there.  Every counter is on the board, so a faction sees every army; another faction's
  ``strength`` is None (the faction map shows "hidden").
* ``control`` (public): one point per structure: current ``controller`` (None: nobody),
  ``start_controller``, kind, capital, ``besieged_by``.
* ``sieges`` (public): one point per siege at the besieged structure: the besieging ``faction``,
  ``controller``, ``resilience``, ``start_resilience``, ``started_round``, the besieging ``armies``.
* ``supply_lines``: one line per link of a line of logistics (the rows ``logistics_lines`` selects of
  ``logistics_network``) between structure hexes; a faction sees only its own (they follow its
  sealed sea-link choices).
* ``supplied_structures``: one point per structure on a faction's lines, with its depth; own only.
* ``zoc`` (public): one hex polygon per faction and hex under its Zone of Control (view ``zoc``),
  with the ``armies``, ``navies`` and ``structures`` exercising it.

Orders are never in a view: they are sealed in the log (:mod:`bellica.engine.core.sealed`).
:func:`secrets` is the same decision for the SQL console: before the reveal nobody, the umpire
included, reads a round's orders but a faction its own; a faction never reads another's army
strength, sea-link choices or logistics distances.
Geometry: points and line ends are hex centres (the hex the rules use, so lines meet the
structures they join), polygons are ``hexes.geom``; all OGC:CRS84 (x = longitude).
"""

from __future__ import annotations

import dataclasses

import duckdb

from bellica.engine.core.secrets import Secret
from bellica.engine.core.view import feature_layer
from bellica.geo.errors import InputError, first_line
from bellica.schema.view import PlayerView

#: The rules views a situation is read from (installed when a campaign is opened for a step).
VIEWS = ("logistics_network", "zoc")
#: Layers every viewer sees alike.
PUBLIC = ("control", "sieges", "zoc")
HIDDEN_FROM_A_FACTION = ("strength of other factions' armies (NULL)",
                         "other factions' lines of logistics and supplied structures")

_ARMIES = """
SELECT a.id, a.faction, a.strength, a.cell, h.kind,
       h.kind IN ('coast', 'sea') AS navy,
       coalesce((SELECT string_agg(DISTINCT z.zone, ', ' ORDER BY z.zone) FROM hex_sea_zones z WHERE z.cell = a.cell), '') AS zones,
       (SELECT s.name FROM structures s WHERE s.cell = a.cell) AS structure,
       h.lng, h.lat
FROM armies a JOIN hexes h ON h.cell = a.cell
WHERE NOT coalesce(a.eliminated, false) AND a.cell IS NOT NULL
ORDER BY a.id
"""

# The current controller is the control row; a structure without one keeps its start
# controller (as the structure_zoc view and engine.zoc.controller_of read it).
_CONTROL = """
SELECT s.name AS structure, s.kind, s.capital, s.cell,
       CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller,
       s.controller AS start_controller,
       sg.faction AS besieged_by,
       h.lng, h.lat
FROM structures s
JOIN hexes h ON h.cell = s.cell
LEFT JOIN control c ON c.structure = s.name
LEFT JOIN sieges sg ON sg.structure = s.name
ORDER BY s.name
"""

_SIEGES = """
SELECT sg.structure, sg.faction,
       CASE WHEN c.structure IS NULL THEN s.controller ELSE c.controller END AS controller,
       sg.resilience, sg.start_resilience, sg.started_round,
       coalesce((SELECT string_agg(CAST(sa.army AS VARCHAR), ', ' ORDER BY sa.army) FROM siege_armies sa
                 WHERE sa.structure = sg.structure), '') AS armies,
       s.cell, h.lng, h.lat
FROM sieges sg
JOIN structures s ON s.name = sg.structure
JOIN hexes h ON h.cell = s.cell
LEFT JOIN control c ON c.structure = s.name
ORDER BY sg.structure
"""

#: The lines of logistics and the supplied structures: both are rows of the view ``logistics_network``
#: (``logistics_lines`` and ``supplied_structures`` each select theirs from it), read once, since each
#: read of it traces every faction's network again (:func:`_network`).  Ordered as the two views' rows
#: were: a line by faction, depth, ends, type; a supplied structure by faction, depth, name.
_NETWORK = """
SELECT row_kind, faction, from_structure, to_structure, link_type, from_depth, to_depth
FROM logistics_network
ORDER BY row_kind, faction, to_depth, CASE WHEN row_kind = 'link' THEN from_structure END, to_structure, link_type
"""
_PLACES = "SELECT s.name, s.cell, h.lng, h.lat FROM structures s JOIN hexes h ON h.cell = s.cell"
_LINE_COLUMNS = ["faction", "from_structure", "to_structure", "link_type", "from_depth", "to_depth",
                 "lng", "lat", "lng2", "lat2"]
_SUPPLIED_COLUMNS = ["faction", "structure", "depth", "cell", "lng", "lat"]


_ZOC = """
WITH z AS (
    SELECT faction, cell,
           string_agg(DISTINCT CASE WHEN source_kind = 'army' THEN source END, ', ' ORDER BY CASE WHEN source_kind = 'army' THEN source END) AS armies,
           string_agg(DISTINCT CASE WHEN source_kind = 'navy' THEN source END, ', ' ORDER BY CASE WHEN source_kind = 'navy' THEN source END) AS navies,
           string_agg(DISTINCT CASE WHEN source_kind = 'structure' THEN source END, ', ' ORDER BY CASE WHEN source_kind = 'structure' THEN source END) AS structures
    FROM zoc WHERE faction IS NOT NULL GROUP BY faction, cell
)
SELECT z.faction, z.cell, h.kind, coalesce(z.armies, '') AS armies, coalesce(z.navies, '') AS navies,
       coalesce(z.structures, '') AS structures, ST_AsWKB(h.geom) AS wkb
FROM z JOIN hexes h ON h.cell = z.cell
ORDER BY z.faction, z.cell
"""


def _query(c, sql: str, what: str) -> tuple[list[str], list[dict]]:
    """(column names, rows as dicts) of ``sql``; a one-line InputError when the file cannot answer."""
    try:
        cur = c.con.execute(sql)
        names = [d[0] for d in cur.description]
        return names, [dict(zip(names, r)) for r in cur.fetchall()]
    except duckdb.Error as e:  # a damaged file opens, then fails on its data
        first = first_line(e)
        raise InputError(f"campaign {c.path}: {what} cannot be read ({first}): check it with `bellica round verify`") from None


def _network(c) -> tuple[tuple[list[str], list[dict]], tuple[list[str], list[dict]]]:
    """(the lines of logistics, the supplied structures) as :func:`_query` gives them: a line per
    link between structure hexes in the order faction, depth, ends, type; a point per supplied
    structure in the order faction, depth, name (a structure without a hex is left out of both)."""
    _names, network = _query(c, _NETWORK, "the lines of logistics")
    places = {r["name"]: r for r in _query(c, _PLACES, "the structures")[1]}
    lines, supplied = [], []
    for r in network:
        a, b = places.get(r["from_structure"]), places.get(r["to_structure"])
        if r["row_kind"] == "link" and a is not None and b is not None:
            lines.append({**{k: r[k] for k in _LINE_COLUMNS[:6]},
                          "lng": a["lng"], "lat": a["lat"], "lng2": b["lng"], "lat2": b["lat"]})
        elif r["row_kind"] == "node" and b is not None:
            supplied.append({"faction": r["faction"], "structure": r["to_structure"], "depth": r["to_depth"],
                             "cell": b["cell"], "lng": b["lng"], "lat": b["lat"]})
    return (_LINE_COLUMNS, lines), (_SUPPLIED_COLUMNS, supplied)


def _layer(name: str, kind: str, query: tuple[list[str], list[dict]], make, *, public: bool = True):
    names, rows = query
    columns = [n for n in names if n not in ("lng", "lat", "lng2", "lat2", "wkb")]
    return feature_layer(name, kind, make(rows), public=public, columns=columns)


def _points(rows: list[dict]):
    import shapely  # here: the warm server preloads this package, never shapely

    return [(shapely.Point(r.pop("lng"), r.pop("lat")), r) for r in rows]


def _lines(rows: list[dict]):
    import shapely

    return [(shapely.LineString([(r.pop("lng"), r.pop("lat")), (r.pop("lng2"), r.pop("lat2"))]), r) for r in rows]


def _polygons(rows: list[dict]):
    import shapely

    return [(shapely.from_wkb(bytes(r.pop("wkb"))), r) for r in rows]


def _status(c) -> dict:
    from bellica.engine.vae_victis.rounds.status import round_status

    s = dataclasses.asdict(round_status(c))
    vp = c.con.execute("SELECT faction, vp FROM victory_points ORDER BY faction").fetchall()
    return {**s, "victory_points": {f: v for f, v in vp}}


def player_view(c, viewer: str | None) -> PlayerView:
    c.require_state()
    missing = sorted(set(VIEWS) - c.tables())
    if missing:
        raise InputError(f"campaign {c.path} has no {missing[0]} view (a file from an older bellica?): "
                         "open it once with `bellica round status` to install the rules views")
    armies = _query(c, _ARMIES, "the armies")
    lines, supplied = _network(c)
    if viewer is not None:
        for a in armies[1]:
            if a["faction"] != viewer:
                a["strength"] = None
        lines = lines[0], [x for x in lines[1] if x["faction"] == viewer]
        supplied = supplied[0], [x for x in supplied[1] if x["faction"] == viewer]
    layers = (
        _layer("armies", "Point", armies, _points, public=False),
        _layer("control", "Point", _query(c, _CONTROL, "the control of structures"), _points),
        _layer("sieges", "Point", _query(c, _SIEGES, "the sieges"), _points),
        _layer("supply_lines", "LineString", lines, _lines, public=False),
        _layer("supplied_structures", "Point", supplied, _points, public=False),
        _layer("zoc", "Polygon", _query(c, _ZOC, "the zones of control"), _polygons),
    )
    status = _status(c)
    return PlayerView(ruleset=c.ruleset.name, viewer=viewer, round=int(status["round"]), phase=str(status["phase"]),
                      status=status, layers=layers, hidden=HIDDEN_FROM_A_FACTION if viewer else ())


#: What a faction never reads of another's, in the tables (the view's hidden layers, for SQL).
_ALWAYS = (
    Secret("armies", "other factions' army strengths", "never (the faction map hides them too)",
           mine="faction = $viewer", columns=("strength",)),
    Secret("sea_links", "other factions' sea-zone logistics choices", "never (they follow sealed orders)",
           mine="faction = $viewer"),
    Secret("army_logistics_distance", "other factions' logistics distances", "never (they follow sealed sea links)",
           mine="faction = $viewer"),
)


def secrets(c) -> tuple[Secret, ...]:
    """The tables holding what a viewer may not read now (module doc)."""
    from bellica.engine.vae_victis.rounds.reveal import OPENS, sealed_round

    rnd = sealed_round(c.con)
    if rnd is None:
        return _ALWAYS
    orders = Secret("orders", f"round {rnd}'s sealed orders", OPENS,
                    mine="army IN (SELECT id FROM armies WHERE faction = $viewer)", umpire=False)
    return _ALWAYS + (orders,)
