-- The Rise of Rome's umpire views (docs/sql.md, "Rise of Rome"): the questions the solo player
-- asks of the campaign file, answered from the state as it stands (live views).
--
-- They read the state tables (ror_control, ror_externals), the static scenario (ror_provinces,
-- ror_powers, ror_borders) and the frozen rules (rules: JSON values).  Each one restates a rule of
-- engine/rise_of_rome/ in SQL; tests/engine/rise_of_rome/test_views.py proves the rows equal to
-- the Python's on played states.  Words used below:
--   held      a province a power controls and no external army occupies (model.provinces_of);
--   active    a power that controls one of its home provinces, occupied or not (model.is_active);
--   subject   an inactive power all of whose home provinces one active power holds (model.suzerain).

-- The words above as views, each rule once (the views below and the umpire's queries read them).
-- Who holds which province: its controller, unless an external army occupies it.
CREATE OR REPLACE VIEW ror_held AS
SELECT c.province, c.power FROM ror_control c
WHERE c.power IS NOT NULL
  AND c.province NOT IN (SELECT province FROM ror_externals WHERE province IS NOT NULL);

-- The active powers: each controls one of its home provinces, occupied or not.
CREATE OR REPLACE VIEW ror_active AS
SELECT DISTINCT p.home AS power FROM ror_provinces p
JOIN ror_control c ON c.province = p.name AND c.power = p.home;

-- The land borders (ror_borders, the Strait of Messina included) both ways: (a, b) and (b, a).
CREATE OR REPLACE VIEW ror_neighbours AS
SELECT a, b FROM ror_borders UNION SELECT b, a FROM ror_borders;

-- Which provinces can each active power attack now (phase 3, attacks.candidate_targets and
-- attacks.border_provinces): every province held by another active power that borders one of the
-- attacker's held provinces (ror_borders: the scenario's land adjacency, the Strait of Messina
-- included).  "Which provinces can Rome attack this turn": WHERE attacker = 'Romans'.
CREATE OR REPLACE VIEW ror_attackable AS
SELECT m.power AS attacker, t.power AS target, t.province,
       list(m.province ORDER BY m.province) AS from_provinces,
       p.revenue AS province_revenue, p.resource, p.home AS home_of
FROM ror_held m
JOIN ror_neighbours nb ON nb.a = m.province
JOIN ror_held t ON t.province = nb.b
JOIN ror_provinces p ON p.name = t.province
WHERE t.power <> m.power
  AND m.power IN (SELECT power FROM ror_active)
  AND t.power IN (SELECT power FROM ror_active)
GROUP BY m.power, t.power, t.province, p.revenue, p.resource, p.home
ORDER BY attacker, target, province;

-- Each power's revenue at the next revenue phase if control stands as it is now (phase 1,
-- revenue.power_revenue): its held provinces' revenue (less its subjects' homes when the option
-- subject_yield is "replaces"), each subject's yield by its number of home provinces (a subject of
-- civic_only_max_provinces or fewer yields only for Civic Improvement), 10 for two held provinces
-- of one resource and 20 for all of them (at least two), less 5 for each home province not held,
-- never below the floor; the penalty left over eats the civic-only part.  Inactive powers: 0.
CREATE OR REPLACE VIEW ror_revenue_next AS
WITH
r AS (
    SELECT
        rule_text('options.subject_yield', 'bonus') AS subject_yield,
        rule_int('revenue.civic_only_max_provinces') AS civic_max,
        rule_int('revenue.resource_pair') AS pair,
        rule_int('revenue.resource_monopoly') AS monopoly,
        rule_int('revenue.missing_home_penalty') AS penalty,
        rule_int('revenue.floor') AS floor),
yields AS (
    SELECT CAST(split_part(key, '.', 3) AS INTEGER) AS size, CAST(value AS INTEGER) AS amount
    FROM rules WHERE key LIKE 'revenue.subject_yield.%'),
nations AS (SELECT name AS power, ord FROM ror_powers WHERE NOT external),
homes AS (SELECT p.home AS power, p.name AS province FROM ror_provinces p WHERE p.home IS NOT NULL),
owners AS (  -- every nation's home provinces and who controls them (an occupied one: nobody)
    SELECT h.power, count(*) AS n_homes, count(c.power) AS n_controlled,
           count(DISTINCT c.power) AS n_owners, min(c.power) AS owner
    FROM homes h LEFT JOIN ror_held c ON c.province = h.province
    GROUP BY h.power),
subjects AS (  -- (master, subject, its number of home provinces)
    SELECT o.owner AS master, o.power AS subject, o.n_homes
    FROM owners o
    WHERE o.power NOT IN (SELECT power FROM ror_active)
      AND o.n_controlled = o.n_homes AND o.n_owners = 1
      AND o.owner <> o.power AND o.owner IN (SELECT power FROM ror_active)),
subject_yield AS (
    SELECT s.master, s.subject, s.n_homes,
           CASE WHEN s.n_homes <= 0 THEN 0
                ELSE coalesce((SELECT y.amount FROM yields y WHERE y.size = (SELECT max(size) FROM yields WHERE size <= s.n_homes)),
                              (SELECT y.amount FROM yields y ORDER BY y.size LIMIT 1)) END AS amount
    FROM subjects s),
from_subjects AS (
    SELECT y.master AS power,
           sum(CASE WHEN y.n_homes > r.civic_max THEN y.amount ELSE 0 END) AS free_part,
           sum(CASE WHEN y.n_homes <= r.civic_max THEN y.amount ELSE 0 END) AS civic_part
    FROM subject_yield y, r GROUP BY y.master),
from_provinces AS (
    SELECT h.power, sum(p.revenue) AS amount, count(*) AS n
    FROM ror_held h JOIN ror_provinces p ON p.name = h.province, r
    WHERE NOT (r.subject_yield = 'replaces'
               AND h.province IN (SELECT hm.province FROM subjects s JOIN homes hm ON hm.power = s.subject
                                  WHERE s.master = h.power))
    GROUP BY h.power),
resource_totals AS (SELECT resource, count(*) AS total FROM ror_provinces WHERE resource IS NOT NULL AND resource <> '' GROUP BY resource),
resource_held AS (
    SELECT h.power, p.resource, count(*) AS n
    FROM ror_held h JOIN ror_provinces p ON p.name = h.province
    WHERE p.resource IS NOT NULL AND p.resource <> ''
    GROUP BY h.power, p.resource),
from_resources AS (
    SELECT m.power,
           sum(CASE WHEN m.n >= t.total AND m.n >= 2 THEN r.monopoly WHEN m.n >= 2 THEN r.pair ELSE 0 END) AS amount
    FROM resource_held m JOIN resource_totals t USING (resource), r GROUP BY m.power),
missing AS (
    SELECT hm.power, count(*) AS n FROM homes hm
    WHERE NOT EXISTS (SELECT 1 FROM ror_held h WHERE h.province = hm.province AND h.power = hm.power)
    GROUP BY hm.power),
parts AS (
    SELECT n.power, n.ord, n.power IN (SELECT power FROM ror_active) AS active,
           coalesce(p.amount, 0) AS provinces, coalesce(s.free_part, 0) AS free_subjects,
           coalesce(s.civic_part, 0) AS civic_subjects, coalesce(x.amount, 0) AS resources,
           coalesce(m.n, 0) * r.penalty AS penalty, r.floor
    FROM nations n JOIN r ON true  -- not CROSS JOIN: see engine/vae_victis/sql/naval/superiority.sql
    LEFT JOIN from_provinces p ON p.power = n.power
    LEFT JOIN from_subjects s ON s.power = n.power
    LEFT JOIN from_resources x ON x.power = n.power
    LEFT JOIN missing m ON m.power = n.power),
totals AS (
    SELECT *, provinces + free_subjects + resources AS gross_free FROM parts)
SELECT power, active,
       CAST(CASE WHEN active THEN provinces ELSE 0 END AS INTEGER) AS provinces,
       CAST(CASE WHEN active THEN free_subjects + civic_subjects ELSE 0 END AS INTEGER) AS subjects,
       CAST(CASE WHEN active THEN resources ELSE 0 END AS INTEGER) AS resources,
       CAST(CASE WHEN active THEN penalty ELSE 0 END AS INTEGER) AS penalty,
       CAST(CASE WHEN active THEN greatest(floor, gross_free - penalty)
                                  + greatest(0, civic_subjects - greatest(0, penalty - gross_free)) ELSE 0 END AS INTEGER) AS total,
       CAST(CASE WHEN active THEN greatest(0, civic_subjects - greatest(0, penalty - gross_free)) ELSE 0 END AS INTEGER) AS civic_only
FROM totals
ORDER BY ord;

-- Who can reach each province by land now: every active power holding a province that borders it
-- (ror_borders), which is what its attack needs.  One row per (province, power), the power's own
-- provinces left out.  from_provinces: the power's held provinces next to it.  march: the borders an
-- army from the power's nearest held home province crosses to get there, marching only through
-- provinces the power holds (NULL: every bordering province is cut off from the power's held homes).
-- held_by: who controls it now (NULL while an external army occupies it); occupied_by: that army.
-- "Who can reach Campania by land": SELECT power FROM ror_reach WHERE province = 'Campania'.
CREATE OR REPLACE VIEW ror_reach AS
WITH RECURSIVE
occupied AS (SELECT province, min(power) AS army FROM ror_externals WHERE province IS NOT NULL GROUP BY province),
march(power, province, steps) AS (
    SELECT h.power, h.province, 0 FROM ror_held h
    JOIN ror_provinces p ON p.name = h.province AND p.home = h.power
    WHERE h.power IN (SELECT power FROM ror_active)
    UNION
    SELECT m.power, nb.b, m.steps + 1 FROM march m
    JOIN ror_neighbours nb ON nb.a = m.province
    JOIN ror_held h ON h.province = nb.b AND h.power = m.power
    WHERE m.steps < (SELECT count(*) FROM ror_provinces)),
inside AS (SELECT power, province, min(steps) AS steps FROM march GROUP BY power, province)
SELECT nb.b AS province, h.power,
       list(h.province ORDER BY h.province) AS from_provinces,
       CAST(min(i.steps) + 1 AS INTEGER) AS march,
       c.power AS held_by, o.army AS occupied_by
FROM ror_held h
JOIN ror_neighbours nb ON nb.a = h.province
LEFT JOIN inside i ON i.power = h.power AND i.province = h.province
LEFT JOIN occupied o ON o.province = nb.b
LEFT JOIN ror_control c ON c.province = nb.b AND o.army IS NULL
WHERE h.power IN (SELECT power FROM ror_active)
  AND NOT EXISTS (SELECT 1 FROM ror_held x WHERE x.province = nb.b AND x.power = h.power)
GROUP BY nb.b, h.power, c.power, o.army
ORDER BY province, power;
