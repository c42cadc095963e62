-- Sea-zone links (seed, "Lines of logistics" 4): "across sea zones from already connected Towns
-- and Cities to other unsieged and unblockaded Towns and Cities controlled by the faction
-- adjacent to a Coast hex in the same sea zone, extending to not more of such other Towns and
-- Cities (as selected by the faction as part of submitting movement instructions each round)
-- than the faction's Naval superiority level in that sea zone (i.e., with a Naval Superiority
-- level of zero, a logistics line can not extend across that sea zone at all)".
--
-- The choices in force are the state table sea_links(faction, zone, structure, rank), rank
-- 1.. in the order chosen (engine/vae_victis/logistics/sea.py fills a faction's zones it chose
-- nothing in by the default rule).  Only the targets ranked within the faction's level in the
-- zone count (naval_superiority; a missing row reads as the rules' naval.superiority_base): a
-- chosen target that is no longer eligible still takes its place in the order, because the
-- choice was made with the orders.
-- A port of a faction in a zone: an endpoint (controlled, unsieged) that is not blockaded,
-- adjacent to a Coast hex of the zone (logistics_sea_coast).  Each counted target that is a
-- port is linked from every other port of the faction in that zone: directed edges source ->
-- target, never back (the target is where the line extends to; lines.sql's recursion follows
-- an edge only from a source already connected, which is the seed's "from already connected").
-- Coast hexes in between do not matter (no interruption at sea), only blockades do.
CREATE OR REPLACE VIEW logistics_sea_links AS
WITH base AS (
    SELECT max(CAST(value AS INTEGER)) AS level FROM rules WHERE key = 'naval.superiority_base'
),
counted AS (
    SELECT l.faction, l.zone, l.structure
    FROM sea_links l
    JOIN base b ON true  -- not CROSS JOIN: see naval/superiority.sql
    LEFT JOIN naval_superiority s ON s.zone = l.zone AND s.faction = l.faction
    WHERE l.rank <= coalesce(s.level, b.level)
),
ports AS MATERIALIZED (
    SELECT n.faction, c.zone, n.structure
    FROM logistics_nodes n
    JOIN logistics_sea_coast c ON c.structure = n.structure
    WHERE n.endpoint AND NOT n.blockaded
      AND n.faction IN (SELECT faction FROM counted)
)
SELECT k.faction, s.structure AS from_structure, k.structure AS to_structure, k.zone
FROM counted k
JOIN ports t ON t.faction = k.faction AND t.zone = k.zone AND t.structure = k.structure
JOIN ports s ON s.faction = k.faction AND s.zone = k.zone AND s.structure <> k.structure;
