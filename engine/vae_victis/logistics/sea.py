"""Sea-zone logistics links (seed, "Lines of logistics" 4): the default choice, a round's choice,
and the umpire's naval SQL views.

The seed: lines extend "across sea zones from already connected Towns and Cities to other
unsieged and unblockaded Towns and Cities controlled by the faction adjacent to a Coast hex in
the same sea zone, extending to not more of such other Towns and Cities (as selected by the
faction as part of submitting movement instructions each round) than the faction's Naval
superiority level in that sea zone".  The links themselves are SQL (``sql/logistics/sea.sql``,
view ``logistics_sea_links``), read from the state tables ``sea_links`` and ``naval_superiority``.

Decisions where the seed is silent (docs/rules/naval.md, "Sea-zone lines of logistics"):

* A **port** of a faction in a zone is a town/city it controls, unsieged, not blockaded,
  adjacent to a Coast hex of that zone (a Coast hex on a zone border belongs to both zones).
  A chosen target that is a port is linked *from every port of the faction in that zone*:
  directed edges source -> target, never back; the lines' recursion follows an edge only from a
  source already connected ("from already connected Towns and Cities").  Nothing at sea between
  them interrupts a sea-zone link; only blockades (and sieges, control) do.
* **At most ``level`` targets count** per faction and zone: the first ``level`` in the order
  chosen (``sea_links.rank``), ``level`` being the faction's superiority there (a missing row
  reads as ``naval.superiority_base``).  A chosen target that is not (or no longer) a port keeps
  its place in the order and links nothing: the choice was made with the orders.
* **A round's choice** (:func:`round_sea_links`): a faction's targets in a zone are the union
  of its armies' orders (``ArmyOrders.sea_links``), in army order then in the order written, each
  structure once.  A zone the faction names nothing in takes the default rule.
* **The default rule** (:func:`default_sea_links`), for every faction and zone without a given
  choice: greedy, repeated until nothing changes: among the faction's ports not yet supplied, in
  a zone that has a supplied port and links left (fewer chosen than its level), pick the one
  whose link newly supplies the most structures (the target and everything its lines reach);
  ties: a city before a town, then the structure's name, then the zone with the most links
  left, then the zone's name.  Each pick supplies at least its target, so the rule ends.
  The gains are computed from the land/coast/river links of the position (one query of the
  logistics SQL) and the sea edges as sea.sql draws them; the resulting links go back to the
  SQL, which stays the one definition of what is supplied (a test checks both agree).
* At the start of a campaign the links in force are the default rule's (nobody has written
  orders yet): :func:`engine.vae_victis.state.start_snapshot` fills them.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Mapping

from bellica.engine.vae_victis.logistics.compute import query_for
from bellica.engine.vae_victis.logistics.options import LogisticsOptions
from bellica.engine.vae_victis.model import ArmyOrders, Board, CampaignState
from bellica.geo.spatialdb import run_sql_file

__all__ = ["NAVAL_SQL_DIR", "NAVAL_VIEWS", "default_sea_links", "install_naval_views", "round_sea_links"]

SeaLinks = dict[str, dict[str, tuple[str, ...]]]

# The position's fixed part: land/coast/river links (both directions), each faction's ports per
# zone (sea.sql's definition), and the capitals lines start from (lines.sql's definition).
_POSITION_SQL = """
SELECT 'link' AS row_kind, faction, a, b, NULL::VARCHAR AS kind FROM logistics_links
UNION ALL
SELECT 'port', n.faction, n.structure, c.zone, s.kind
FROM logistics_nodes n
JOIN logistics_sea_coast c ON c.structure = n.structure
JOIN structures s ON s.name = n.structure
WHERE n.endpoint AND NOT n.blockaded
UNION ALL
SELECT 'capital', f.name, cap.structure, NULL, NULL
FROM factions f, unnest(f.capitals) AS cap(structure)
JOIN logistics_nodes n ON n.faction = f.name AND n.structure = cap.structure AND n.endpoint
"""


def _level(board: Board, state: CampaignState, zone: str, faction: str) -> int:
    from bellica.engine.vae_victis.naval_superiority import superiority_level

    return superiority_level(board, state, zone, faction)


def _reach(adj: Mapping[str, Iterable[str]], starts: Iterable[str]) -> set[str]:
    seen = set(starts)
    todo = deque(seen)
    while todo:
        here = todo.popleft()
        for nxt in adj.get(here, ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def default_sea_links(
    board: Board,
    state: CampaignState,
    *,
    given: Mapping[str, Mapping[str, Iterable[str]]] | None = None,
    options: LogisticsOptions | None = None,
) -> SeaLinks:
    """The sea-zone links in force for ``state``: ``given`` {faction: {zone: targets in order}}
    where a faction chose (kept as given, even an empty choice), the default rule (module doc)
    for every other faction and zone.  Returns {faction: {zone: targets}}, empty zones left out.
    """
    given = {f: {z: tuple(t) for z, t in by_zone.items()} for f, by_zone in (given or {}).items()}
    rows = query_for(board, replace(state, sea_links={}), [_POSITION_SQL], options=options)[0]
    land: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    ports: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    kinds: dict[str, str] = {}
    capitals: dict[str, set[str]] = defaultdict(set)
    for row_kind, faction, a, b, kind in rows:
        if row_kind == "link":
            land[faction][a].add(b)
        elif row_kind == "port":
            ports[faction][b].add(a)
            kinds[a] = (kind or "").lower()
        else:
            capitals[faction].add(a)
    zones = sorted({z for zs in board.sea_zones.values() for z in zs})
    out: SeaLinks = {}
    for faction in sorted(board.factions):
        fixed = given.get(faction, {})
        chosen: dict[str, list[str]] = {z: list(t) for z, t in fixed.items()}
        level = {z: _level(board, state, z, faction) for z in set(zones) | set(chosen)}
        fports = ports.get(faction, {})

        def adjacency() -> dict[str, set[str]]:
            adj = {s: set(n) for s, n in land.get(faction, {}).items()}
            for z, targets in chosen.items():
                for t in targets[: max(level[z], 0)]:
                    if t in fports.get(z, ()):
                        for s in fports[z] - {t}:
                            adj.setdefault(s, set()).add(t)
            return adj

        while True:
            adj = adjacency()
            supplied = _reach(adj, capitals.get(faction, ()))
            best = None
            for z in zones:
                if z in fixed or len(chosen.get(z, ())) >= level[z] or not (fports.get(z, set()) & supplied):
                    continue
                left = level[z] - len(chosen.get(z, ()))
                for t in fports.get(z, ()):
                    if t in supplied:
                        continue
                    gain = len(_reach(adj, [t]) - supplied)
                    key = (-gain, kinds.get(t) != "city", t, -left, z)
                    if best is None or key < best[0]:
                        best = (key, z, t)
            if best is None:
                break
            chosen.setdefault(best[1], []).append(best[2])
        links = {z: tuple(t) for z, t in sorted(chosen.items()) if t}
        if links:
            out[faction] = links
    return out


def round_sea_links(
    board: Board,
    state: CampaignState,
    orders: Mapping[int, ArmyOrders],
    *,
    options: LogisticsOptions | None = None,
) -> SeaLinks:
    """The sea-zone links a round's orders put in force: each faction's targets named in its
    armies' orders (union, army order then written order, each once per zone), the default rule
    (:func:`default_sea_links`) for every zone a faction named nothing in."""
    faction_of = {a.id: a.faction for a in state.armies}
    given: dict[str, dict[str, list[str]]] = {}
    for army in sorted(orders):
        faction = faction_of.get(army)
        if faction is None:
            continue
        for zone, structure in orders[army].sea_links:
            targets = given.setdefault(faction, {}).setdefault(zone, [])
            if structure not in targets:
                targets.append(structure)
    return default_sea_links(board, state, given=given, options=options)


# --- the umpire's naval views ---------------------------------------------------------------

NAVAL_SQL_DIR = Path(__file__).resolve().parent.parent / "sql" / "naval"
#: The views of ``engine/vae_victis/sql/naval/``, in creation order (sea_supply reads the logistics
#: views; ``navies`` and ``navy_zoc`` are ZoC views, in ``sql/zoc/``).
NAVAL_VIEWS = ("blockaded_structures", "superiority", "sea_supply")


def install_naval_views(con) -> None:
    """Create (or replace) the naval views on a campaign database: ``blockaded_structures``,
    ``superiority`` and ``sea_supply`` (``engine/vae_victis/sql/naval/``; ``navies`` and ``navy_zoc``
    come with the ZoC views, :func:`engine.vae_victis.zoc.install_zoc_views`).

    They read the map and state tables and (``sea_supply``) the logistics views, which must be
    installed first (:func:`engine.vae_victis.logistics.ensure_logistics`).
    """
    for name in NAVAL_VIEWS:
        run_sql_file(con, NAVAL_SQL_DIR / f"{name}.sql")
