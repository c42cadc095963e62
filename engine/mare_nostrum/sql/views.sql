-- Mare Nostrum's umpire views (docs/sql.md, "Mare Nostrum campaigns"): the questions the umpire and
-- the players ask of the campaign file, answered from the state as it stands (live views).
--
-- They read the state tables (mn_control, mn_nations_state, mn_works, mn_fleets, mn_attacks,
-- mn_order, mn_game), the static scenario (mn_provinces, mn_nations, mn_borders, mn_passages) and
-- the frozen rules (rules: JSON values; one rule read by the core's rule_* macros, engine/core/sql/rules.sql).
-- Each one restates a rule of engine/mare_nostrum/ in SQL;
-- tests/engine/test_mare_nostrum_views.py proves the rows equal to the Python's on played states.
-- Words used below:
--   held      a province a nation controls (mn_control; NULL: independent);
--   playing   a nation that has not left the game (mn_nations_state.left_game empty);
--   reaches   a land attack may go from a province to another: they share a border (mn_borders,
--             both ways) or a diagonal passage of the seed leads there (mn_passages, "to" from
--             "from"; backwards too when the option diagonals is "both_ways": battles.reaches).

-- Which provinces each playing nation may attack by land now (battles.land_targets): a province it
-- does not hold, not yet attacked this turn, reached from one of its bases; a base is a province
-- it holds that no other side attacks this turn (and, with the option one_attack_per_base, that is
-- not already the base of one of its attacks); not a province of a nation that imposed peace on it
-- this turn; not a capital still held by its own nation until battles.capital_needs_homes_lost of
-- that nation's other home provinces are lost (option capital_rule_counts: "not_held" counts
-- independent ones too, "enemy_held" only those another nation holds).
-- "Which provinces can the Romans attack this turn": WHERE attacker = 'Romans'.
CREATE OR REPLACE VIEW mn_attackable AS
WITH
r AS (
    SELECT
        rule_text('options.diagonals', 'both_ways') AS diagonals,
        rule_bool('options.one_attack_per_base', false) AS one_per_base,
        rule_text('options.capital_rule_counts', 'not_held') AS capital_counts,
        rule_int('battles.capital_needs_homes_lost') AS homes_needed),
game AS (
    SELECT
        max(CASE WHEN key = 'phase' THEN value END) AS phase,
        max(CASE WHEN key = 'current' THEN CAST(value AS INTEGER) END) AS current,
        coalesce(max(CASE WHEN key = 'peace' THEN value END), '[]') AS peace
    FROM mn_game),
peace AS (
    SELECT p[1] AS imposer, p[2] AS bound
    FROM (SELECT unnest(from_json(game.peace, '[["VARCHAR"]]')) AS p FROM game)),
acting AS (
    SELECT o.nation FROM mn_order o, game WHERE game.phase = 'actions' AND o.position = game.current + 1),
playing AS (
    SELECT nation, actions - used AS actions_left FROM mn_nations_state WHERE coalesce(left_game, '') = ''),
held AS (SELECT province, nation FROM mn_control WHERE nation IS NOT NULL),
ways AS (
    SELECT a AS base, b AS target, 'border' AS way FROM mn_borders
    UNION SELECT b, a, 'border' FROM mn_borders
    UNION SELECT from_province, to_province, 'passage' FROM mn_passages
    UNION SELECT to_province, from_province, 'passage' FROM mn_passages, r WHERE r.diagonals = 'both_ways'),
lost AS (  -- each nation's home provinces (its capital aside) that count as lost for the capital rule
    SELECT p.nation, count(*) FILTER (WHERE c.nation IS DISTINCT FROM p.nation
                                        AND (c.nation IS NOT NULL OR r.capital_counts <> 'enemy_held')) AS n
    FROM mn_provinces p LEFT JOIN mn_control c ON c.province = p.name, r
    WHERE p.role = 'home'
    GROUP BY p.nation),
bases AS (
    SELECT h.province AS base, h.nation FROM held h, r
    WHERE NOT EXISTS (SELECT 1 FROM mn_attacks a WHERE a.target = h.province AND a.attacker IS DISTINCT FROM h.nation)
      AND NOT (r.one_per_base AND EXISTS (SELECT 1 FROM mn_attacks a WHERE a.base = h.province AND a.attacker = h.nation))),
options AS (
    SELECT DISTINCT b.nation AS attacker, w.target, b.base
    FROM bases b
    JOIN ways w ON w.base = b.base
    WHERE w.target <> b.base)
SELECT o.attacker, o.target AS province, c.nation AS held_by, p.role, p.nation AS home_of,
       list(o.base ORDER BY o.base) AS from_provinces,
       coalesce(wk.fortifications, 0) > 0 AS fortified,
       o.attacker IN (SELECT nation FROM acting) AS acting,
       max(pl.actions_left) AS actions_left
FROM options o
JOIN playing pl ON pl.nation = o.attacker
JOIN mn_provinces p ON p.name = o.target
LEFT JOIN mn_control c ON c.province = o.target
LEFT JOIN mn_works wk ON wk.province = o.target
LEFT JOIN lost l ON l.nation = p.nation
CROSS JOIN r
WHERE c.nation IS DISTINCT FROM o.attacker
  AND o.target NOT IN (SELECT target FROM mn_attacks)
  AND NOT EXISTS (SELECT 1 FROM peace x WHERE x.imposer = c.nation AND x.bound = o.attacker)
  AND NOT (p.role = 'capital' AND c.nation = p.nation AND coalesce(l.n, 0) < r.homes_needed)
GROUP BY o.attacker, o.target, c.nation, p.role, p.nation, wk.fortifications, p.ord
ORDER BY o.attacker, p.ord;

-- Each playing nation's actions (actions.action_count) counted on the state as it stands: its
-- treasury (treasury.per_province a held province's revenue, per_suburbs a suburb and per_temple
-- a temple in them), one action for every points_per_action points but never fewer than
-- min_actions, plus its random event's change this turn (events.KEY.actions), less the stability
-- penalty (penalty_actions at stability penalty_at or less); the option action_floor "final" keeps
-- the result at min_actions or more, "treasury" floors only the treasury count.  allotted, used and
-- actions_left are the turn's own (mn_nations_state: counted when the turn began, before the
-- turn's builds and grain change treasury and stability).
CREATE OR REPLACE VIEW mn_actions AS
WITH
r AS (
    SELECT
        rule_int('treasury.per_province') AS per_province,
        rule_int('treasury.per_suburbs') AS per_suburbs,
        rule_int('treasury.per_temple') AS per_temple,
        rule_int('treasury.points_per_action') AS per_action,
        rule_int('treasury.min_actions') AS min_actions,
        rule_int('stability.penalty_at') AS penalty_at,
        rule_int('stability.penalty_actions') AS penalty_actions,
        rule_text('options.action_floor', 'final') AS floor_rule),
event_actions AS (
    SELECT split_part(key, '.', 2) AS event, CAST(value AS INTEGER) AS actions
    FROM rules WHERE key LIKE 'events.%.actions'),
points AS (
    SELECT c.nation, count(*) AS provinces,
           sum(p.revenue * r.per_province + coalesce(w.suburbs, 0) * r.per_suburbs
               + coalesce(w.temples, 0) * r.per_temple) AS treasury
    FROM mn_control c
    JOIN mn_provinces p ON p.name = c.province
    LEFT JOIN mn_works w ON w.province = c.province
    CROSS JOIN r
    WHERE c.nation IS NOT NULL
    GROUP BY c.nation),
counted AS (
    SELECT s.nation, n.ord, CAST(coalesce(pt.provinces, 0) AS INTEGER) AS provinces,
           CAST(coalesce(pt.treasury, 0) AS INTEGER) AS treasury,
           greatest(r.min_actions, CAST(coalesce(pt.treasury, 0) AS INTEGER) // r.per_action) AS from_treasury,
           nullif(s.event, '') AS event, coalesce(e.actions, 0) AS event_actions, s.stability,
           CASE WHEN s.stability <= r.penalty_at THEN r.penalty_actions ELSE 0 END AS stability_penalty,
           CASE WHEN r.floor_rule = 'final' THEN r.min_actions ELSE 0 END AS floor,
           s.actions AS allotted, s.used
    FROM mn_nations_state s
    JOIN mn_nations n ON n.name = s.nation
    LEFT JOIN points pt ON pt.nation = s.nation
    LEFT JOIN event_actions e ON e.event = s.event
    CROSS JOIN r
    WHERE coalesce(s.left_game, '') = '')
SELECT nation, provinces, treasury, CAST(from_treasury AS INTEGER) AS from_treasury, event,
       CAST(event_actions AS INTEGER) AS event_actions, stability, CAST(stability_penalty AS INTEGER) AS stability_penalty,
       CAST(greatest(floor, from_treasury + event_actions - stability_penalty) AS INTEGER) AS actions,
       allotted, used, allotted - used AS actions_left
FROM counted
ORDER BY ord;

-- Who can reach each province by land: every playing nation holding a province from which a land
-- attack reaches it (the nation's own provinces left out), whatever this turn's attacks, peace and
-- the capital rule say (mn_attackable says what may be declared now).  borders: its held provinces
-- sharing a border; passages: those reaching it only by a diagonal passage; held_by: who holds it.
-- "Who can reach Baetica by land": SELECT nation FROM mn_reach WHERE province = 'Baetica'.
CREATE OR REPLACE VIEW mn_reach AS
WITH
r AS (
    SELECT rule_text('options.diagonals', 'both_ways') AS diagonals),
playing AS (SELECT nation FROM mn_nations_state WHERE coalesce(left_game, '') = ''),
held AS (SELECT province, nation FROM mn_control WHERE nation IS NOT NULL AND nation IN (SELECT nation FROM playing)),
borders AS (SELECT a, b FROM mn_borders UNION SELECT b, a FROM mn_borders),
passages AS (
    SELECT from_province AS a, to_province AS b FROM mn_passages
    UNION SELECT to_province, from_province FROM mn_passages, r WHERE r.diagonals = 'both_ways'),
ways AS (
    SELECT a, b, 'border' AS way FROM borders
    UNION SELECT a, b, 'passage' FROM passages WHERE (a, b) NOT IN (SELECT (a, b) FROM borders))
SELECT w.b AS province, h.nation,
       list(h.province ORDER BY h.province) AS from_provinces,
       coalesce(list(h.province ORDER BY h.province) FILTER (WHERE w.way = 'border'), []) AS borders,
       coalesce(list(h.province ORDER BY h.province) FILTER (WHERE w.way = 'passage'), []) AS passages,
       c.nation AS held_by
FROM held h
JOIN ways w ON w.a = h.province
LEFT JOIN mn_control c ON c.province = w.b
WHERE w.b <> h.province AND c.nation IS DISTINCT FROM h.nation
GROUP BY w.b, h.nation, c.nation
ORDER BY province, nation;

-- Each playing nation's provinces and richness (victory.standings), best first: the victory
-- question (victory.provinces at once; after the last turn the most provinces, then the richness
-- tie-break).  Richness: victory.temple_points a temple, suburbs_points a suburb and
-- fortification_points a fortification in its held provinces, fleet_points a fleet of its at
-- sea and stability_points a level of its stability.  place: 1 for the leader (provinces, then
-- richness, then name, as victory.standings orders them); tied: another nation has the same
-- provinces and richness.
CREATE OR REPLACE VIEW mn_richness AS
WITH
r AS (
    SELECT
        rule_int('victory.temple_points') AS temple_points,
        rule_int('victory.suburbs_points') AS suburbs_points,
        rule_int('victory.fortification_points') AS fortification_points,
        rule_int('victory.fleet_points') AS fleet_points,
        rule_int('victory.stability_points') AS stability_points,
        rule_int('victory.provinces') AS to_win),
works AS (
    SELECT c.nation, count(*) AS provinces, sum(coalesce(w.temples, 0)) AS temples,
           sum(coalesce(w.suburbs, 0)) AS suburbs, sum(coalesce(w.fortifications, 0)) AS fortifications
    FROM mn_control c LEFT JOIN mn_works w ON w.province = c.province
    WHERE c.nation IS NOT NULL
    GROUP BY c.nation),
fleets AS (SELECT owner AS nation, count(*) AS fleets FROM mn_fleets GROUP BY owner),
rows AS (
    SELECT s.nation, CAST(coalesce(w.provinces, 0) AS INTEGER) AS provinces,
           CAST(coalesce(w.temples, 0) AS INTEGER) AS temples, CAST(coalesce(w.suburbs, 0) AS INTEGER) AS suburbs,
           CAST(coalesce(w.fortifications, 0) AS INTEGER) AS fortifications,
           CAST(coalesce(f.fleets, 0) AS INTEGER) AS fleets, s.stability, r.to_win,
           CAST(coalesce(w.temples, 0) * r.temple_points + coalesce(w.suburbs, 0) * r.suburbs_points
                + coalesce(w.fortifications, 0) * r.fortification_points + coalesce(f.fleets, 0) * r.fleet_points
                + s.stability * r.stability_points AS INTEGER) AS richness
    FROM mn_nations_state s
    LEFT JOIN works w ON w.nation = s.nation
    LEFT JOIN fleets f ON f.nation = s.nation
    CROSS JOIN r
    WHERE coalesce(s.left_game, '') = '')
SELECT nation, provinces, richness, temples, suburbs, fortifications, fleets, stability,
       CAST(row_number() OVER (ORDER BY provinces DESC, richness DESC, nation) AS INTEGER) AS place,
       count(*) OVER (PARTITION BY provinces, richness) > 1 AS tied,
       provinces >= to_win AS has_won_by_provinces
FROM rows
ORDER BY place;
