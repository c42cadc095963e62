"""The Rise of Rome's rules, each with the seed's own numbers, on tiny synthetic maps."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.rise_of_rome.attacks import attack_modifier, choose_target, roll_attacks
from bellica.engine.rise_of_rome.battles import command_cards, generate, max_generals, score_bonus
from bellica.engine.rise_of_rome.civic import civic_end_of_turn, verdict
from bellica.engine.rise_of_rome.control import transfer
from bellica.engine.rise_of_rome.dice import Roller, ScriptedRoller
from bellica.engine.rise_of_rome.externals import end_of_turn, intervention_modifier
from bellica.engine.rise_of_rome.model import Power, Province, Ruler, Scenario, TurnState, is_active, suzerain
from bellica.engine.rise_of_rome.revenue import power_revenue
from bellica.engine.rise_of_rome.rulers import change_rulers, new_ruler, ratings, rebalance
from bellica.engine.rise_of_rome.rules import default_rules, rules_from_file, rules_with
from bellica.engine.rise_of_rome.spending import Spending, divert, split_by_ruler
from bellica.geo.errors import InputError

R = default_rules()


def opt(**kw):
    return replace(R, options=replace(R.options, **kw))


def scenario(homes: dict[str, list[str]], borders: list[tuple[str, str]], resources=None, revenue=None, coastal=()):
    resources, revenue = resources or {}, revenue or {}
    provinces = {p: Province(p, power, resources.get(p), p in coastal, revenue.get(p, 0))
                 for power, ps in homes.items() for p in ps}
    adj = {p: set() for p in provinces}
    for a, b in borders:
        adj[a].add(b)
        adj[b].add(a)
    powers = {n: Power(n, tuple(ps), player=(n == "Romans")) for n, ps in homes.items()}
    powers["Carthage"] = Power("Carthage", external=True)
    powers["Epirus/Macedonia"] = Power("Epirus/Macedonia", external=True)
    return Scenario("test", provinces, powers, {p: frozenset(n) for p, n in adj.items()}, player="Romans")


# --- revenue ------------------------------------------------------------------------------

@pytest.mark.parametrize("size, expected", [(1, 5), (2, 10), (3, 20)])
def test_subject_yield_5_10_20(size, expected):
    victims = [f"v{i}" for i in range(size)]
    s = scenario({"Romans": ["r"], "Samnites": victims}, [("r", v) for v in victims])
    state = TurnState(1, {"r": "Romans", **{v: "Romans" for v in victims}})
    assert suzerain(s, state, "Samnites") == "Romans"
    rev = power_revenue(s, state, R, "Romans")
    assert rev.subjects == expected and rev.total == expected
    # Only a one-province subject's yield is tied to Civic Improvement.
    assert rev.civic_only == (5 if size == 1 else 0)
    # "replaces": the subject's provinces count only through the yield.
    assert power_revenue(s, state, opt(subject_yield="replaces"), "Romans").provinces == 0


def test_resource_pair_10_and_monopoly_20():
    s = scenario({"Romans": ["a", "b", "c"], "Samnites": ["d"]}, [("a", "b"), ("b", "c"), ("c", "d")],
                 resources={"a": "port", "b": "port", "d": "port", "c": "quarry"})
    state = TurnState(1, {"a": "Romans", "b": "Romans", "c": "Romans", "d": "Samnites"})
    assert power_revenue(s, state, R, "Romans").resources == 10  # two of three ports; one quarry: nothing
    state = replace(state, control={**state.control, "d": "Romans"})
    assert power_revenue(s, state, R, "Romans").resources == 20  # all three: a monopoly


def test_missing_home_costs_5_floored_at_0():
    s = scenario({"Romans": ["a", "b", "c"], "Samnites": ["d"]}, [("a", "b"), ("b", "c"), ("c", "d")],
                 revenue={"a": 12, "b": 3, "c": 3})
    state = TurnState(1, {"a": "Romans", "b": "Samnites", "c": "Romans", "d": "Samnites"})
    assert power_revenue(s, state, R, "Romans").total == 12 + 3 - 5
    state = replace(state, control={"a": "Romans", "b": "Samnites", "c": "Samnites", "d": "Samnites"})
    rev = power_revenue(s, state, R, "Romans")
    assert (rev.penalty, rev.total) == (10, 2)
    state = replace(state, control={**state.control, "a": "Samnites"})
    assert power_revenue(s, state, R, "Romans").total == 0  # inactive: nothing, never negative
    s2 = scenario({"Romans": ["a", "b"], "Samnites": ["d"]}, [("a", "b"), ("b", "d")], revenue={"a": 3})
    st2 = TurnState(1, {"a": "Romans", "b": "Samnites", "d": "Samnites"})
    assert power_revenue(s2, st2, R, "Romans").total == 0  # 3 - 5 floored at 0


# --- rulers -------------------------------------------------------------------------------

def test_ruler_modifiers_per_power():
    mods = R.rulers.modifiers
    assert mods["Samnites"] == (4, 2, -3)
    for p in ("Bruttians and Lucanians", "Senon Celts", "Boian Celts"):
        assert mods[p] == (4, -2, -3)
    for p in ("Campanians", "Tarentine Greeks"):
        assert mods[p] == (-2, 3, 0)
    assert mods["Syracusan Greeks"] == (2, 2, 0)
    assert R.rulers.modifiers_of("Etruscans") == (0, 0, 0)


def test_rebalancing_example():
    # Senon Celts roll 3, 1, 2: +4/-2/-3 gives 7, -1, -1; both lifted to 0, Aggressor pays 2.
    assert rebalance((7, -1, -1)) == (5, 0, 0)
    ruler = new_ruler("Senon Celts", (3, 1, 2), R, 4)
    assert ruler.characteristics == (5, 0, 0) and ruler.ratings == (100, 0, 0) and ruler.since == 4
    # Campanians roll 1, 4, 6: -2/+3/0 gives -1, 7, 6; Protector (highest) pays: 0, 6, 6.
    assert new_ruler("Campanians", (1, 4, 6), R, 1).characteristics == (0, 6, 6)
    assert sum(rebalance((6, 5, -2))) == 9  # the sum never changes


def test_ratings_share_rounded_to_10():
    assert ratings((7, 4, 3), R) == (50, 30, 20)  # 50, 28.6, 21.4
    assert ratings((1, 1, 2), R) == (30, 30, 50)  # 25 rounds half up
    assert ratings((7, 4, 3), opt(rating_scale="tenfold")) == (70, 40, 30)


def test_ruler_change_1d6_plus_turns_since():
    s = scenario({"Romans": ["r"], "Samnites": ["s"]}, [("r", "s")])
    state = TurnState(3, {"r": "Romans", "s": "Samnites"}, rulers={"Samnites": Ruler(50, 30, 20, since=0)})
    stays = ScriptedRoller({"ruler-change/3/Samnites": [2]})  # 2 + 3 = 5
    assert change_rulers(s, state, R, stays)[0].rulers["Samnites"].since == 0
    changes = ScriptedRoller({"ruler-change/3/Samnites": [3], "ruler/3/Samnites": [6, 5, 4]})  # 3 + 3 = 6
    new = change_rulers(s, state, R, changes)[0].rulers["Samnites"]
    assert new.since == 3 and new.characteristics == (10, 7, 1)


# --- attacks ------------------------------------------------------------------------------

@pytest.mark.parametrize("aggressor, modifier", [(0, -1), (20, -1), (30, 0), (50, 0), (60, 1), (70, 1),
                                                 (80, 2), (90, 2), (100, 3)])
def test_aggressor_modifiers(aggressor, modifier):
    assert R.aggressor_modifier(aggressor) == modifier


def test_attack_threshold_9_and_battle_record():
    s = scenario({"Romans": ["r"], "Samnites": ["s"]}, [("r", "s")])
    state = TurnState(2, {"r": "Romans", "s": "Samnites"}, rulers={"Samnites": Ruler(40, 30, 30)},
                      won_last=frozenset({"Samnites"}))
    assert attack_modifier(state, R, "Samnites")[0] == 1
    roller = ScriptedRoller({"attack/2/Samnites": [4, 4], "target/2/Samnites/Romans": [1]})
    plan, _ = roll_attacks(s, state, R, roller)  # 8 + 1 = 9: attacks
    assert [(a.attacker, a.target, a.roll) for a in plan.attacks] == [("Samnites", "Romans", 9)]
    state = replace(state, won_last=frozenset(), lost_last=frozenset({"Samnites"}))
    plan, _ = roll_attacks(s, state, R, ScriptedRoller({"attack/2/Samnites": [5, 4]}))  # 9 - 1 = 8
    assert plan.attacks == ()


def test_target_roll_revenue_rank_and_subject_bonus():
    # Samnites next to Romans (revenue 20), Campanians (10) and Etruscans (15, one province).
    s = scenario({"Samnites": ["s"], "Romans": ["r1", "r2"], "Campanians": ["c1", "c2"], "Etruscans": ["e"]},
                 [("s", "r1"), ("s", "c1"), ("s", "e"), ("r1", "r2"), ("c1", "c2")])
    state = TurnState(1, {p: s.provinces[p].home_of for p in s.provinces},
                      revenue={"Romans": 20, "Campanians": 10, "Etruscans": 15})
    roller = ScriptedRoller({"target/1/Samnites/Romans": [3], "target/1/Samnites/Campanians": [4],
                             "target/1/Samnites/Etruscans": [2],
                             "target/1/Samnites/roll-off/1/Etruscans": [5], "target/1/Samnites/roll-off/1/Romans": [2]})
    target, events = choose_target(s, state, R, roller, "Samnites", ("Romans", "Campanians", "Etruscans"))
    # Campanians 4+1 = 5, Etruscans 2+2+2 (a subject) = 6, Romans 3+3 = 6: a roll-off.
    assert events[0].data["scores"] == {"Romans": 6, "Campanians": 5, "Etruscans": 6}
    assert target == "Etruscans"


# --- battles ------------------------------------------------------------------------------

def test_command_cards_by_builder():
    assert [R.command_cards(b) for b in (0, 10, 19, 20, 30, 39, 40, 100)] == [4, 4, 4, 5, 5, 5, 6, 6]
    s = scenario({"Romans": ["r"], "Samnites": ["s"]}, [("r", "s")])
    state = TurnState(1, {"r": "Romans", "s": "Samnites"}, rulers={"Samnites": Ruler(80, 10, 10)})
    assert command_cards(s, state, R, "Romans") == 5 and command_cards(s, state, R, "Samnites") == 4


@pytest.mark.parametrize("power, points, generals", [
    ("Romans", 105, 3), ("Etruscans", 104, 2), ("Syracusan Greeks", 70, 2),
    ("Campanians", 120, 3), ("Tarentine Greeks", 119, 2),
    ("Samnites", 100, 2), ("Bruttians and Lucanians", 99, 1), ("Senon Celts", 150, 3), ("Boian Celts", 80, 1)])
def test_generals_per_points(power, points, generals):
    assert max_generals(R, power, points) == generals


def test_generator_thresholds():
    # 80 pts: +4; 100 pts: +5.  Higher die of each 2D6.
    major = generate(R, ScriptedRoller({"b/attacker/1": [6, 2], "b/defender/1": [1, 3]}), 80, 80, "b")
    assert (major.winner, major.major, major.scores) == ("attacker", True, (10, 7))  # margin 3: Major
    minor = generate(R, ScriptedRoller({"b/attacker/1": [5, 2], "b/defender/1": [1, 3]}), 80, 80, "b")
    assert (minor.winner, minor.major, minor.scores) == ("attacker", False, (9, 7))  # margin 2: Minor
    defence = generate(R, ScriptedRoller({"b/attacker/1": [1, 1], "b/defender/1": [1, 4]}), 100, 80, "b")
    assert (defence.winner, defence.major, defence.scores) == ("defender", False, (6, 8))  # margin 2: Minor
    assert score_bonus(R, 99) == 4 and score_bonus(R, 100) == 5  # +1 per full 20 points


def test_generator_reroll_on_equal_scores():
    roller = ScriptedRoller({"b/attacker/1": [4, 1], "b/defender/1": [5, 2],   # 4+5 = 9 vs 5+4 = 9: again
                             "b/attacker/2": [1, 1], "b/defender/2": [6, 2]})  # 1+5 = 6 vs 6+4 = 10
    r = generate(R, roller, 100, 80, "b")
    assert (r.winner, r.major, r.scores, len(r.rolls)) == ("defender", True, (6, 10), 4)


# --- control, subjects ------------------------------------------------------------------------

def test_inactive_power_loses_non_home_provinces_to_their_home_power():
    s = scenario({"Romans": ["r"], "Samnites": ["s"], "Etruscans": ["e"]}, [("r", "s"), ("s", "e")])
    state = TurnState(1, {"r": "Romans", "s": "Samnites", "e": "Samnites"})  # Etruscans: Samnite subject
    assert suzerain(s, state, "Etruscans") == "Samnites"
    state, events = transfer(s, state, "s", "Romans")
    assert state.control == {"r": "Romans", "s": "Romans", "e": "Etruscans"}
    assert is_active(s, state, "Etruscans") and suzerain(s, state, "Samnites") == "Romans"
    assert state.subjects_created == (("Samnites", 1),)


def test_rome_losing_every_home_is_defeat():
    s = scenario({"Romans": ["r"], "Samnites": ["s"]}, [("r", "s")])
    state, _ = transfer(s, TurnState(1, {"r": "Romans", "s": "Samnites"}), "r", "Samnites")
    assert state.defeated


# --- spending -----------------------------------------------------------------------------

def test_split_and_diversions():
    s = split_by_ruler(30, Ruler(50, 30, 20))
    assert s == Spending(15, 9, 6)
    assert divert(s, attacking=False, attacked=True) == Spending(0, 24, 6)
    assert divert(s, attacking=True, attacked=False) == Spending(24, 0, 6)


# --- externals and civic ------------------------------------------------------------------

def test_intervention_modifiers():
    s = scenario({"Romans": ["r"], "Samnites": ["s"]}, [("r", "s")])
    state = TurnState(1, {"r": "Romans", "s": "Samnites"}, revenue={"Romans": 20, "Samnites": 39},
                      subjects_created=(("Etruscans", 1), ("Campanians", 2), ("Greeks", 2)))
    assert intervention_modifier(s, state, R, "Carthage") == 3
    assert intervention_modifier(s, state, R, "Epirus/Macedonia") == 6


def test_external_decay_and_landing():
    s = scenario({"Romans": ["r"], "Samnites": ["s"]}, [("r", "s")], coastal=("s",))
    state = TurnState(2, {"r": "Romans", "s": "Samnites"}, revenue={"Samnites": 60})
    roller = ScriptedRoller({"intervention/2/Carthage": [6, 5], "intervention/2/Epirus/Macedonia": [1, 1]})
    state, _ = end_of_turn(s, state, R, roller)  # 11 + 6 = 17 > 12
    assert state.externals["Carthage"].province == "s" and state.externals["Carthage"].points == 100
    state = replace(state, turn=3)
    state, _ = end_of_turn(s, state, R, ScriptedRoller({"intervention/3/Epirus/Macedonia": [6, 6]}))
    assert state.externals["Carthage"].points == 90 and "Epirus/Macedonia" not in state.externals


@pytest.mark.parametrize("total, expected", [(300, "assured"), (250, "assured"), (249, "italy"), (181, "italy"),
                                             (180, "italy"), (179, "provincial"), (151, "provincial"),
                                             (150, "disappear"), (0, "disappear"), (-20, "disappear")])
def test_verdict_bands(total, expected):
    assert verdict(total, R) == expected


def test_verdict_180_option_and_disgrace():
    assert verdict(180, opt(band_180="provincial")) == "provincial"
    assert verdict(400, R, defeated=True) == "disgrace"


def test_civic_penalty_5_per_home_per_turn():
    s = scenario({"Romans": ["a", "b", "c"], "Samnites": ["d"]}, [("a", "b"), ("b", "c"), ("c", "d")])
    state = TurnState(1, {"a": "Romans", "b": "Samnites", "c": "Samnites", "d": "Samnites"}, civic_spent=40)
    state, _ = civic_end_of_turn(s, state, R)
    assert (state.civic_penalty, state.civic_total, state.defeated) == (10, 30, False)


# --- rules data ---------------------------------------------------------------------------

def test_rules_data_numbers():
    assert (R.game.turns, R.game.first_year, R.game.last_year, R.game.years(1)) == (12, -348, -264, (-348, -341))
    assert R.attacks.threshold == 9 and R.battles.base_army == 80 and R.externals.army == 100
    assert (R.civic.assured, R.civic.italy, R.civic.provincial) == (250, 180, 150)


def test_bad_rules_are_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[game\nturns = 12\n")
    with pytest.raises(InputError, match="not valid TOML"):
        rules_from_file(bad)
    with pytest.raises(InputError, match="options.band_180"):
        rules_with({"options": {"band_180": "middle"}})
    with pytest.raises(InputError, match="do not end in"):
        rules_with({"game": {"turns": 11}})


def test_same_seed_same_dice():
    a, b = Roller(5), Roller(5)
    assert [a.roll(2, 6, "x", i).dice for i in range(20)] == [b.roll(2, 6, "x", i).dice for i in range(20)]
    assert a.log == b.log
