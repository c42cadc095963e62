-- Trossian campaign views (docs/sql.md, "Trossian campaigns").  Read the ruleset's tables
-- (tr_*), the frozen rules (`rules`: dotted key, JSON value; one rule read by the core's rule_value
-- and rule_int, engine/core/sql/rules.sql) and the core's `campaign`.

-- The date now: year, phase index (-1: winter quarters), its name, the core round and stage.
CREATE OR REPLACE VIEW tr_now AS
SELECT CAST(y.value AS INTEGER) AS year,
       CAST(p.value AS INTEGER) AS phase,
       CASE WHEN CAST(p.value AS INTEGER) < 0 THEN 'Winter quarters'
            ELSE json_extract_string(rule_value('calendar.phases'),
                                     '$[' || p.value || ']') END AS phase_name,
       (SELECT CAST(value AS INTEGER) FROM campaign WHERE key = 'round') AS round,
       (SELECT value FROM campaign WHERE key = 'phase') AS stage
FROM tr_game y, tr_game p WHERE y.key = 'year' AND p.key = 'phase';

-- Sea lanes this phase: a freezing lane is shut in the rules' ice phases and in winter quarters.
CREATE OR REPLACE VIEW tr_lanes_now AS
SELECT l.name AS lane, l.freezes,
       l.freezes AND (n.phase < 0 OR list_contains(
           CAST(json_extract_string(rule_value('ice.closed'), '$[*]') AS VARCHAR[]),
           n.phase_name)) AS frozen,
       (SELECT count(*) FROM tr_navies v WHERE v.lane = l.name) AS navies,
       l.note
FROM tr_lanes l, tr_now n;

-- Where each army may march this phase: every province it can end in (paths along borders,
-- no province twice, a province with another nation's army ends the path there), the fewest
-- provinces to it, and whether the whole move can follow roads (the road bonus: one more
-- province; `needs_road_bonus`: reached only thanks to it).  Armies aboard, resting, without an HQ's orders or already moved have no rows.
-- Alliances are read (tr_game 'alliances', sorted pairs): an ally's army never stops a march.
CREATE OR REPLACE VIEW tr_march AS
WITH RECURSIVE
  adj AS (SELECT a, b, road FROM tr_borders UNION ALL SELECT b, a, road FROM tr_borders),
  bonus AS (SELECT rule_int('movement.road_bonus') AS n),
  allied AS (SELECT coalesce(json_transform(value, '[["VARCHAR"]]'), []) AS pairs FROM tr_game WHERE key = 'alliances'),
  movers AS (SELECT army, nation, province, speed FROM tr_armies
             WHERE aboard = 0 AND rest = 0 AND NOT moved AND standing = '' AND speed > 0),
  enemy AS (SELECT DISTINCT a.province, m.army FROM tr_armies a JOIN movers m ON a.nation <> m.nation
            WHERE a.aboard = 0
              AND NOT list_contains(coalesce((SELECT pairs FROM allied), []), list_sort([a.nation, m.nation]))),
  reach(army, province, steps, by_road, path, stopped) AS (
    SELECT army, province, 0, true, [province], false FROM movers
    UNION ALL
    SELECT r.army, adj.b, r.steps + 1, r.by_road AND adj.road, list_append(r.path, adj.b),
           EXISTS (SELECT 1 FROM enemy e WHERE e.province = adj.b AND e.army = r.army)
    FROM reach r JOIN adj ON adj.a = r.province JOIN movers m ON m.army = r.army
    WHERE NOT r.stopped AND r.steps < m.speed + (SELECT n FROM bonus) AND NOT list_contains(r.path, adj.b))
SELECT m.army, m.nation, m.province AS "from", r.province AS "to", m.speed,
       min(r.steps) AS provinces,
       bool_or(r.by_road) AS by_road,
       min(r.steps) FILTER (WHERE r.steps <= m.speed) IS NULL AS needs_road_bonus,
       bool_or(r.stopped) AS contact
FROM reach r JOIN movers m USING (army)
WHERE r.steps > 0 AND (r.steps <= m.speed OR (r.by_road AND r.steps <= m.speed + (SELECT n FROM bonus)))
GROUP BY ALL;

-- Each nation's AP (the umpire's view: AP are a nation's secret in the log): banked now, and
-- what winter quarters would bring from the provinces it holds (land 2, town 4, port 6 by the
-- rules; the engine's income also halves a plagued port and skips what it cannot bank).
CREATE OR REPLACE VIEW tr_ap AS
SELECT t.nation, t.treasury AS banked, t.bank AS banked_by_city,
       (SELECT count(*) FROM tr_control c WHERE c.nation = t.nation) AS provinces,
       (SELECT coalesce(sum(rule_int('treasury.' || p.kind)), 0)
        FROM tr_control c JOIN tr_provinces p ON p.name = c.province WHERE c.nation = t.nation) AS income
FROM tr_treasury t;

-- Couriers in transit (the umpire's view, every nation's).  A nation's own: tr_couriers_of('Russia');
-- nothing of another nation's couriers is in it (what a faction's export reads).
CREATE OR REPLACE VIEW tr_couriers_in_transit AS
SELECT courier, nation, place, mode, addressee, message, moved,
       place IN (SELECT name FROM tr_lanes) AS at_sea
FROM tr_couriers WHERE message <> '';

CREATE OR REPLACE MACRO tr_couriers_of(viewer) AS TABLE
SELECT courier, place, mode, addressee, message, moved FROM tr_couriers_in_transit WHERE nation = viewer;

-- Pacification and sieges: each province where one nation's armies stand against its holder
-- (or in a neutral province), their AP (the units' recruiting costs, HQs as the rules' option
-- says) against the rules' 20, and the siege under way (phases done of needed).  What the end of
-- the phase will do: an army that moved in this phase does not count (the engine checks it).
CREATE OR REPLACE VIEW tr_pacification AS
WITH units AS (
  SELECT a.nation, a.province, a.moved, u.kind
  FROM tr_armies a, unnest(from_json(a.units, '[{"id": "INTEGER", "kind": "VARCHAR", "quality": "VARCHAR"}]')) AS t(u)
  WHERE a.aboard = 0),
worth AS (
  SELECT u.nation, u.province,
         sum(CASE WHEN u.kind = 'hq' AND NOT CAST(rule_value('options.pacify_counts_hq') AS BOOLEAN)
                  THEN 0 ELSE rule_int('costs.' || u.kind) END) AS ap,
         bool_or(u.moved) AS moved
  FROM units u GROUP BY ALL)
SELECT w.province, w.nation, c.nation AS holder, w.ap,
       rule_int('pacification.ap') AS needed_ap,
       w.ap >= rule_int('pacification.ap') AS enough,
       w.moved, s.done, s.needed
FROM worth w JOIN tr_control c ON c.province = w.province
LEFT JOIN tr_sieges s ON s.province = w.province AND s.nation = w.nation
WHERE c.nation IS DISTINCT FROM w.nation;
