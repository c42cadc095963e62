-- The endpoints of a faction's lines: the towns/cities it controls that are
-- not sieged (and, for Coast links, not blockaded).  Only endpoints anchor
-- links: every other structure (uncontrolled, sieged, another faction's) is
-- just its hexes, so a line runs past it without ending or switching type
-- there, and never hops from one of its sides to the other through its land
-- hex (a town between two seas does not join them for anybody but its owner).
-- Another faction's unsieged structure cuts lines by its ZoC anyway.
CREATE OR REPLACE VIEW logistics_nodes AS
SELECT f.name AS faction, s.name AS structure, s.cell,
       coalesce(c.controller = f.name, false)
           AND s.name NOT IN (SELECT structure FROM sieges) AS endpoint,
       s.name IN (SELECT structure FROM logistics_blockades b WHERE b.navy_faction <> f.name) AS blockaded
FROM factions f
CROSS JOIN structures s
LEFT JOIN control c ON c.structure = s.name;

CREATE OR REPLACE VIEW logistics_endpoints AS
SELECT n.faction, t.link_type, n.structure
FROM logistics_nodes n
CROSS JOIN (VALUES ('road'), ('coast'), ('river')) t(link_type)
WHERE n.endpoint AND NOT (t.link_type = 'coast' AND n.blockaded);

-- Multi-source breadth-first "regions": per faction and link type, every
-- uninterrupted hex of the link graph takes the nearest endpoint (ties: the
-- alphabetically first).  Two endpoints whose regions touch are consecutive along
-- an uninterrupted path of one link type; two endpoints are connected in the graph
-- exactly when a chain of touching regions joins them, so this is exact
-- connectivity with only as many recursion steps as half the largest gap
-- between structures (a hex-by-hex search from the capitals needs the whole
-- length of the coast).
-- The search runs on logistics_core_edges, the link graph without its dead ends
-- (stretches of coast, road or river beyond the last structure, which can never
-- join two structures; see engine/vae_victis/logistics/sql.py _core_cells), and over each
-- faction's uninterrupted edges, filtered once before the recursion.  Inside the
-- recursion hexes are integers (logistics_cell_ids), factions x link types one
-- integer key k = 4 * faction index + link type index, structures their
-- alphabetical rank (so min(rank) is the alphabetically first structure).
-- USING KEY with UNION ALL: each step's rows replace the key's row (DuckDB 1.5.6
-- deprecates plain UNION there; with USING KEY the two behave the same).
CREATE OR REPLACE VIEW logistics_regions AS
WITH RECURSIVE
fk AS MATERIALIZED (SELECT name AS faction, (row_number() OVER (ORDER BY name))::INTEGER AS fi FROM factions),
sk AS MATERIALIZED (SELECT name AS structure, (row_number() OVER (ORDER BY name))::INTEGER AS si FROM structures),
tk AS (SELECT * FROM (VALUES ('road', 0, 'land'), ('coast', 1, 'coast'), ('river', 2, 'land')) t(link_type, ti, medium)),
blocked AS MATERIALIZED (
    SELECT fk.fi * 4 + tk.ti AS k, c.id
    FROM logistics_interruptions i
    JOIN fk ON fk.faction = i.faction
    JOIN tk ON tk.medium = i.medium
    JOIN logistics_cell_ids c ON c.cell = i.cell
),
open_edges AS MATERIALIZED (
    SELECT fk.fi * 4 + e.t AS k, e.a, e.b
    FROM fk
    JOIN logistics_core_edges e ON true  -- not CROSS JOIN: see naval/superiority.sql
    ANTI JOIN blocked i ON i.k = fk.fi * 4 + e.t AND i.id = e.b
),
open_attachments AS MATERIALIZED (
    SELECT fk.fi * 4 + tk.ti AS k, c.id, sk.si
    FROM logistics_endpoints n
    JOIN logistics_attachments a ON a.structure = n.structure AND a.link_type = n.link_type
    JOIN fk ON fk.faction = n.faction
    JOIN tk ON tk.link_type = a.link_type
    JOIN sk ON sk.structure = a.structure
    JOIN logistics_cell_ids c ON c.cell = a.cell
    ANTI JOIN blocked i ON i.k = fk.fi * 4 + tk.ti AND i.id = c.id
),
r(k, id, seed, dist) USING KEY (k, id) AS (
    SELECT k, id, min(si), 0
    FROM open_attachments
    GROUP BY k, id
    UNION ALL
    SELECT r.k, e.b, min(r.seed), min(r.dist) + 1
    FROM r
    JOIN open_edges e ON e.k = r.k AND e.a = r.id
    ANTI JOIN recurring.r q ON q.k = r.k AND q.id = e.b
    GROUP BY r.k, e.b
)
SELECT fk.faction, tk.link_type, c.cell, sk.structure AS seed, r.dist
FROM r
JOIN fk ON fk.fi = r.k // 4
JOIN tk ON tk.ti = r.k % 4
JOIN logistics_cell_ids c ON c.id = r.id
JOIN sk ON sk.si = r.seed;
