-- Consecutive endpoints along one uninterrupted link type: their regions touch,
-- or one hex is an attachment of both (two towns sharing a Coast hex).
CREATE OR REPLACE VIEW logistics_links AS
WITH regions AS MATERIALIZED (SELECT * FROM logistics_regions),
owners AS MATERIALIZED (
    SELECT faction, link_type, cell, seed AS structure FROM regions
    UNION
    SELECT r.faction, r.link_type, r.cell, a.structure
    FROM regions r
    JOIN logistics_attachments a ON a.link_type = r.link_type AND a.cell = r.cell
    JOIN logistics_endpoints e ON e.faction = r.faction AND e.link_type = r.link_type AND e.structure = a.structure
)
SELECT DISTINCT o1.faction, o1.link_type, o1.structure AS a, o2.structure AS b
FROM owners o1
JOIN owners o2 ON o2.faction = o1.faction AND o2.link_type = o1.link_type
              AND o2.cell = o1.cell AND o2.structure <> o1.structure
UNION
SELECT DISTINCT o1.faction, o1.link_type, o1.structure, o2.structure
FROM owners o1
JOIN logistics_edges e ON e.link_type = o1.link_type AND e.cell = o1.cell
JOIN owners o2 ON o2.faction = o1.faction AND o2.link_type = o1.link_type
              AND o2.cell = e.neighbor AND o2.structure <> o1.structure;
