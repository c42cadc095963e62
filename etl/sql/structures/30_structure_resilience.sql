-- Resilience at the start of a siege, before any blockade: the sum of the
-- modifiers for the structure's kind, its hex's terrain, adjacency to a coast
-- hex and capital status.  The modifiers are the campaign's frozen rules
-- (table rules, keys sieges.resilience.<factor>, JSON numbers): the ruleset
-- file datasets/rules/vae-victis-ii.toml with the scenario's [rules] over it,
-- the same values the engine's sieges.start_resilience reads.
CREATE OR REPLACE VIEW structure_resilience AS
WITH modifiers AS (
    SELECT lower(substr(key, length('sieges.resilience.') + 1)) AS factor,
           CAST(value AS INTEGER) AS value
    FROM rules
    WHERE key LIKE 'sieges.resilience.%'
),
parts AS (
    SELECT s.name AS structure,
           s.cell,
           t.kind,
           t.terrain,
           s.controller,
           coalesce(s.capital, false) AS capital,
           c.adjacent_to_coast,
           coalesce(mk.value, 0) AS kind_modifier,
           coalesce(mt.value, 0) AS terrain_modifier,
           CASE WHEN c.adjacent_to_coast THEN coalesce(mc.value, 0) ELSE 0 END AS coast_modifier,
           CASE WHEN coalesce(s.capital, false) THEN coalesce(mp.value, 0) ELSE 0 END AS capital_modifier
    FROM structures AS s
    JOIN structure_terrain AS t ON t.structure = s.name
    JOIN structure_coast AS c ON c.structure = s.name
    LEFT JOIN modifiers AS mk ON mk.factor = t.kind
    LEFT JOIN modifiers AS mt ON mt.factor = t.terrain
    LEFT JOIN modifiers AS mc ON mc.factor = 'coast'
    LEFT JOIN modifiers AS mp ON mp.factor = 'capital'
)
SELECT *, (kind_modifier + terrain_modifier + coast_modifier + capital_modifier)::INTEGER AS resilience
FROM parts;
