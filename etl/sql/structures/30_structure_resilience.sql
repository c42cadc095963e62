-- Resilience at the start of a siege, before any blockade: the sum of the
-- modifiers for the structure's kind, its hex's terrain, adjacency to a coast
-- hex and capital status.  The modifiers live in resilience_modifiers so a
-- scenario can change them; the seed's values are Town -1, City +2,
-- Farmlands -1, Marshes +1, Mountains +2, coast +1, Capital +2.
CREATE OR REPLACE VIEW structure_resilience AS
WITH parts AS (
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
    LEFT JOIN resilience_modifiers AS mk ON lower(mk.factor) = t.kind
    LEFT JOIN resilience_modifiers AS mt ON lower(mt.factor) = t.terrain
    LEFT JOIN resilience_modifiers AS mc ON lower(mc.factor) = 'coast'
    LEFT JOIN resilience_modifiers AS mp ON lower(mp.factor) = 'capital'
)
SELECT *, (kind_modifier + terrain_modifier + coast_modifier + capital_modifier)::INTEGER AS resilience
FROM parts;
