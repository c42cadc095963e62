-- Hexes where a faction's logistics lines are interrupted, per medium:
--   land  (Road and River hexes): the ZoC of another faction's army or of
--         another faction's controlled, unsieged town/city,
--   coast (Coast hexes): the ZoC of another faction's navy or controlled,
--         unsieged town/city.
-- ZoC as the seed's "Zones of Control": army = 1 ring on land hexes; navy = 1
-- ring on all hexes; town/city as logistics_structure_zoc; sieged or
-- uncontrolled structures none.  An army standing in a Coast or Sea hex is at
-- sea, i.e. a navy (docs/rules/naval.md: a navy is an army on a water hex).
CREATE OR REPLACE VIEW logistics_zoc_sources AS
WITH units AS MATERIALIZED (
    SELECT a.faction, a.cell, h.kind = 'land' AS on_land
    FROM armies a JOIN hexes h ON h.cell = a.cell
    WHERE NOT coalesce(a.eliminated, false)
),
around AS MATERIALIZED (
    SELECT u.faction, u.on_land, u.cell AS centre, u.cell FROM units u
    UNION ALL
    SELECT u.faction, u.on_land, u.cell, n.neighbor FROM units u JOIN hex_neighbors n ON n.cell = u.cell
)
SELECT a.faction, 'land' AS medium, a.cell
FROM around a JOIN hexes h ON h.cell = a.cell AND h.kind = 'land'
WHERE a.on_land
UNION
SELECT faction, 'coast', cell FROM around WHERE NOT on_land
UNION
SELECT c.controller, z.medium, z.cell
FROM logistics_structure_zoc z
JOIN control c ON c.structure = z.structure
WHERE c.controller IS NOT NULL
  AND z.structure NOT IN (SELECT structure FROM sieges);

CREATE OR REPLACE VIEW logistics_interruptions AS
SELECT DISTINCT f.name AS faction, z.medium, z.cell
FROM factions f
JOIN logistics_zoc_sources z ON z.faction <> f.name;

-- A town/city is blockaded when it lies in the ZoC (own hex + 1 ring, every hex)
-- of the navy of a faction other than its controller (any navy if nobody controls it).
CREATE OR REPLACE VIEW logistics_blockades AS
WITH fleets AS (
    SELECT a.faction, a.cell FROM armies a JOIN hexes h ON h.cell = a.cell
    WHERE NOT coalesce(a.eliminated, false) AND h.kind <> 'land'
),
reach AS (
    SELECT faction, cell FROM fleets
    UNION
    SELECT f.faction, n.neighbor FROM fleets f JOIN hex_neighbors n ON n.cell = f.cell
)
SELECT DISTINCT s.name AS structure, r.faction AS navy_faction
FROM structures s
JOIN reach r ON r.cell = s.cell
LEFT JOIN control c ON c.structure = s.name
WHERE c.controller IS DISTINCT FROM r.faction;
