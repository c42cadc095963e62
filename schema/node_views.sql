-- Node-map views and macros (docs/nodes.md): the questions movement asks of the node tables.
-- They know nothing of counters: a ruleset joins its own state to them (who is where, who halts).

-- (from_node, to_node, kind, ...): every path in both directions. arrive_bearing: the compass
-- bearing from to_node towards where the path comes in (the attacker's side of to_node's table).
CREATE OR REPLACE VIEW node_links AS
SELECT a AS from_node, b AS to_node, kind, length_km, hexes, bearing_b AS arrive_bearing, from_year, until_year
FROM node_paths
UNION ALL
SELECT b AS from_node, a AS to_node, kind, length_km, hexes, bearing_a AS arrive_bearing, from_year, until_year
FROM node_paths;

-- (from_node, to_node, kind, moves): the fewest moves from one node to another along paths of one
-- kind (every era's places together: use node_reach with a year for one scenario). A node reaches
-- itself in 0 moves; sea rows join coastal nodes only.
CREATE OR REPLACE VIEW node_steps AS
WITH RECURSIVE r(from_node, to_node, kind, moves) USING KEY (from_node, to_node, kind) AS (
    SELECT n.name, n.name, k.kind, 0
    FROM nodes n, (VALUES ('land'), ('sea')) k(kind)
    WHERE k.kind = 'land' OR n.coastal
    UNION
    SELECT r.from_node, l.to_node, r.kind, r.moves + 1
    FROM r JOIN node_links l ON l.from_node = r.to_node AND l.kind = r.kind
    WHERE NOT EXISTS (SELECT 1 FROM recurring.r s
                      WHERE s.from_node = r.from_node AND s.to_node = l.to_node AND s.kind = r.kind)
)
SELECT from_node, to_node, kind, moves FROM r;

-- The places and paths of one year (both limits included; NULL = always).
CREATE OR REPLACE MACRO nodes_in_year(in_year) AS TABLE
SELECT * FROM nodes
WHERE in_year IS NULL OR ((from_year IS NULL OR from_year <= in_year) AND (until_year IS NULL OR in_year <= until_year));

CREATE OR REPLACE MACRO node_links_in_year(in_year) AS TABLE
SELECT l.* FROM node_links l
WHERE l.from_node IN (SELECT name FROM nodes_in_year(in_year))
  AND l.to_node IN (SELECT name FROM nodes_in_year(in_year))
  AND (in_year IS NULL OR ((l.from_year IS NULL OR l.from_year <= in_year) AND (l.until_year IS NULL OR in_year <= l.until_year)));

-- (node, moves): the nodes a land counter at start_node can reach within max_moves moves along land
-- paths, each with the fewest moves (start_node itself at 0). in_year: only the places and paths
-- of that year (NULL: all). No halting: enemy counters are the ruleset's (docs/nodes.md).
CREATE OR REPLACE MACRO node_reach(start_node, max_moves, in_year := NULL) AS TABLE
WITH RECURSIVE r(node, moves) USING KEY (node) AS (
    SELECT name, 0 FROM nodes_in_year(in_year) WHERE name = start_node
    UNION
    SELECT l.to_node, r.moves + 1
    FROM r JOIN node_links_in_year(in_year) l ON l.from_node = r.node AND l.kind = 'land'
    WHERE r.moves < max_moves AND NOT EXISTS (SELECT 1 FROM recurring.r s WHERE s.node = l.to_node)
)
SELECT node, moves FROM r;

-- (node, moves): the coastal nodes a fleet at start_node (a coastal node) can reach within max_moves
-- moves along sea paths, each with the fewest moves (start_node itself at 0).
CREATE OR REPLACE MACRO fleet_reach(start_node, max_moves, in_year := NULL) AS TABLE
WITH RECURSIVE r(node, moves) USING KEY (node) AS (
    SELECT name, 0 FROM nodes_in_year(in_year) WHERE name = start_node AND coastal
    UNION
    SELECT l.to_node, r.moves + 1
    FROM r JOIN node_links_in_year(in_year) l ON l.from_node = r.node AND l.kind = 'sea'
    WHERE r.moves < max_moves AND NOT EXISTS (SELECT 1 FROM recurring.r s WHERE s.node = l.to_node)
)
SELECT node, moves FROM r;
