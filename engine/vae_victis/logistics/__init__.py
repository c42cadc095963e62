"""Lines of logistics (seed: "Lines of logistics"), as SQL views plus the Python the SQL feeds.

The rules relations live in ``engine/vae_victis/sql/logistics/`` and are queried by the umpire:

* ``logistics_edges`` / ``logistics_attachments`` (static tables): the road, coast
  and river link graphs and the hexes by which each town/city enters them;
  ``logistics_core_edges`` (static): the same graphs without their dead ends (see
  :func:`sql._core_cells`), with integer hexes (``logistics_cell_ids``) for the recursion;
* ``logistics_interruptions(faction, medium, cell)``: enemy ZoC cutting lines (armies, navies =
  armies on water hexes, structures); ``logistics_blockades``: structures in an enemy navy's ZoC;
* ``logistics_sea_coast`` (static): the sea zones each town/city touches by a Coast hex;
  ``logistics_sea_links(faction, from_structure, to_structure, zone)``: the sea-zone links in
  force, from the state tables ``sea_links`` and ``naval_superiority`` (see :mod:`.sea`);
* ``logistics_regions`` / ``logistics_links``: consecutive structures joined by an
  uninterrupted path of one link type (multi-source BFS "regions", see regions.sql);
* ``logistics_line_links`` / ``supplied_structures(faction, structure, depth)`` /
  ``logistics_lines(faction, from_structure, to_structure, link_type, from_depth, to_depth)``:
  the recursive growth from the controlled, unsieged capitals;
* ``army_logistics_distance(army, faction, mp_distance)``: a table written by
  :func:`compute_logistics` (least-MP paths: a heap Dijkstra over the map, :mod:`.paths`).

The modules, by concern: :mod:`.sql` installs the static tables and views on a database
(once per campaign: ``logistics_meta`` says which SQL and options built them) and reads the
lines back; :mod:`.paths` is the graph search (MP distances, the hexes on each line);
:mod:`.tables` writes a Board and a state into the tables the SQL reads; :mod:`.compute`
puts them together, on a campaign database (:func:`compute_logistics`) or for a pure
``(Board, CampaignState)`` (:func:`logistics_for`, in an in-memory DuckDB built from the
campaign the Board was read from (:func:`attach_campaign`), else from the Board), keeping
what it derives from a Board on the Board (``board.derived["logistics"]``); :mod:`.sea` chooses
the default sea-zone links and installs the umpire's naval views (``sql/naval/``).
"""

from bellica.engine.vae_victis.logistics.compute import (
    LogisticsCache,
    attach_campaign,
    close_derived,
    compute_logistics,
    logistics_for,
    query_for,
    logistics_road_edges,
    remember,
)
from bellica.engine.vae_victis.logistics.options import Logistics, LogisticsLine, LogisticsOptions
from bellica.engine.vae_victis.logistics.sea import NAVAL_VIEWS, default_sea_links, install_naval_views, round_sea_links
from bellica.engine.vae_victis.logistics.sql import LINK_TYPES, VIEWS, ensure_logistics, install_logistics
from bellica.engine.vae_victis.logistics.tables import board_to_duckdb, state_to_duckdb

__all__ = [
    "LINK_TYPES",
    "Logistics",
    "LogisticsCache",
    "LogisticsLine",
    "LogisticsOptions",
    "NAVAL_VIEWS",
    "TerrainGraph",
    "VIEWS",
    "army_mp_distance",
    "attach_campaign",
    "board_to_duckdb",
    "close_derived",
    "compute_logistics",
    "default_sea_links",
    "ensure_logistics",
    "enter_cost",
    "install_logistics",
    "install_naval_views",
    "logistics_for",
    "logistics_road_edges",
    "mp_distances_to",
    "query_for",
    "remember",
    "round_sea_links",
    "state_to_duckdb",
]


#: Names of :mod:`.paths` this package exports, imported on first use (PEP 562): .paths imports
#: the graph code, which a CLI step that computes no logistics should not pay for.
_FROM_PATHS = ("TerrainGraph", "army_mp_distance", "enter_cost", "mp_distances_to")


def __getattr__(name: str):
    if name in _FROM_PATHS:
        from bellica.engine.vae_victis.logistics import paths

        return getattr(paths, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
