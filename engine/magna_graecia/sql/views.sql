-- Magna Graecia campaign views (docs/sql.md, "Magna Graecia campaigns"): the node tables
-- (schema/nodes.sql) joined to the state tables (state.sql). The rules themselves are Python
-- (engine/magna_graecia/movement.py); these views answer the same questions for the umpire.

-- The node links of the campaign's year (both directions).
CREATE OR REPLACE VIEW mg_links AS
WITH y AS (SELECT CAST(value AS INTEGER) AS y FROM mg_game WHERE key = 'year'),
here AS (SELECT n.name FROM nodes n, y
         WHERE (n.from_year IS NULL OR n.from_year <= y.y) AND (n.until_year IS NULL OR y.y <= n.until_year))
SELECT l.from_node, l.to_node, l.kind, l.length_km
FROM node_links l, y
WHERE l.from_node IN (SELECT name FROM here) AND l.to_node IN (SELECT name FROM here)
  AND (l.from_year IS NULL OR l.from_year <= y.y) AND (l.until_year IS NULL OR y.y <= l.until_year);

-- Pairs of sides that are friends (a side with itself, and the scenario's alliances both ways).
CREATE OR REPLACE VIEW mg_friends AS
WITH pairs AS (SELECT unnest(from_json(value, '["VARCHAR[]"]')) AS p FROM mg_game WHERE key = 'alliances')
SELECT name AS a, name AS b FROM mg_sides
UNION SELECT p[1], p[2] FROM pairs
UNION SELECT p[2], p[1] FROM pairs;

-- Every land counter with the side it fights for (owner: its side, or its city's ally; '' neutral).
CREATE OR REPLACE VIEW mg_land_counters AS
SELECT c.id, c.side, coalesce(nullif(c.side, ''), ci.ally, '') AS owner, c.city, c.node, c.aboard, c.in_city,
       c.inherent, c.general,
       coalesce(list_sum(map_values(json_transform(c.elements, '"MAP(VARCHAR, INTEGER)"'))), 0)
           + CASE WHEN c.general <> '' THEN 1 ELSE 0 END AS elements
FROM mg_commands c LEFT JOIN mg_cities ci ON ci.name = c.city;

-- (side, node): a land counter of side entering node must halt there: enemy land counters stand
-- in it, unless they are all shut inside walls under siege (a besieged node is passed through).
CREATE OR REPLACE VIEW mg_halts AS
SELECT s.name AS side, e.node
FROM mg_sides s JOIN mg_land_counters e ON e.owner <> '' AND NOT e.aboard
     AND NOT EXISTS (SELECT 1 FROM mg_friends f WHERE f.a = s.name AND f.b = e.owner)
GROUP BY s.name, e.node
HAVING NOT (bool_and(e.in_city) AND e.node IN (SELECT node FROM mg_sieges));

-- (command, side, node, moves): every node a land command of the phasing side can end its move
-- in with the movement points it has left, with the fewest moves; it does not go on from a node
-- where it must halt (mg_halts); neutral cities and besieged nodes are passed through.
CREATE OR REPLACE VIEW mg_reach AS
WITH RECURSIVE r(command, side, node, moves, mp) USING KEY (command, node) AS (
    SELECT id, side, node, 0, mp_left FROM mg_commands
    WHERE side <> '' AND NOT aboard AND NOT inherent AND general <> '' AND mp_left > 0
    UNION
    SELECT r.command, r.side, l.to_node, r.moves + 1, r.mp
    FROM r JOIN mg_links l ON l.from_node = r.node AND l.kind = 'land'
    WHERE r.moves < r.mp
      AND (r.moves = 0 OR NOT EXISTS (SELECT 1 FROM mg_halts h WHERE h.side = r.side AND h.node = r.node))
      AND NOT EXISTS (SELECT 1 FROM recurring.r s WHERE s.command = r.command AND s.node = l.to_node)
)
SELECT command, side, node, moves FROM r WHERE moves > 0;

-- (side, node, moves): every coastal node a side's fleet can end its move in with the movement
-- points it has left: along sea paths, not through a node held by an unsheltered enemy fleet, and
-- not stopping where enemy land counters stand (its own siege of them excepted).
CREATE OR REPLACE VIEW mg_fleet_reach AS
WITH RECURSIVE r(side, node, moves, mp) USING KEY (side, node) AS (
    SELECT side, node, 0, mp_left FROM mg_fleets WHERE mp_left > 0
    UNION
    SELECT r.side, l.to_node, r.moves + 1, r.mp
    FROM r JOIN mg_links l ON l.from_node = r.node AND l.kind = 'sea'
    WHERE r.moves < r.mp
      AND (r.moves = 0 OR NOT EXISTS (SELECT 1 FROM mg_fleets g WHERE g.node = r.node AND g.side <> r.side
                                      AND NOT g.sheltered
                                      AND NOT EXISTS (SELECT 1 FROM mg_friends f WHERE f.a = r.side AND f.b = g.side)))
      AND NOT EXISTS (SELECT 1 FROM recurring.r s WHERE s.side = r.side AND s.node = l.to_node)
)
SELECT r.side, r.node, r.moves FROM r JOIN nodes n ON n.name = r.node AND n.coastal
WHERE r.moves > 0
  AND (NOT EXISTS (SELECT 1 FROM mg_halts h WHERE h.side = r.side AND h.node = r.node)
       OR EXISTS (SELECT 1 FROM mg_sieges s WHERE s.node = r.node AND s.besieger = r.side));

-- (node, owner, counters, elements, inside, aboard, fleet_np): the land counters of each side
-- (or neutral city, owner '') in each node, their elements, how many are inside the walls, how
-- many ride its fleet, and the side's fleet there.
CREATE OR REPLACE VIEW mg_node_counters AS
WITH land AS (
    SELECT node, owner, count(*) FILTER (WHERE NOT aboard) AS counters,
           sum(elements) FILTER (WHERE NOT aboard) AS elements,
           count(*) FILTER (WHERE in_city AND NOT aboard) AS inside, count(*) FILTER (WHERE aboard) AS aboard
    FROM mg_land_counters GROUP BY node, owner
)
SELECT coalesce(l.node, f.node) AS node, coalesce(l.owner, f.side) AS owner, coalesce(l.counters, 0) AS counters,
       coalesce(l.elements, 0) AS elements, coalesce(l.inside, 0) AS inside, coalesce(l.aboard, 0) AS aboard,
       f.np AS fleet_np
FROM land l FULL JOIN mg_fleets f ON f.node = l.node AND f.side = l.owner;

-- (node, besieger, defender, started, rolls, disease, besiegers, inside): every siege in progress
-- with the besieging and besieged counters in the node.
CREATE OR REPLACE VIEW mg_sieges_now AS
SELECT s.node, s.besieger, s.defender, s.started, s.rolls, s.disease,
       (SELECT count(*) FROM mg_land_counters c WHERE c.node = s.node AND c.owner = s.besieger AND NOT c.aboard) AS besiegers,
       (SELECT count(*) FROM mg_land_counters c WHERE c.node = s.node AND c.in_city) AS inside
FROM mg_sieges s;
