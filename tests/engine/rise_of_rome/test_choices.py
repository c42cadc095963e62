"""The audit's changes: the -10 per extra attack counted per army (option ``subject_attacks``), Rome's
named Defense per attack, Rome's province choices, the ``player_battle_bonus`` option (not in the
seed) and the ``prudent`` policy."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.rise_of_rome.attacks import Attack, AttackPlan
from bellica.engine.rise_of_rome.battles import BattleResult, ProvinceQuestion, check_defence_split, fight_battles, generate
from bellica.engine.rise_of_rome.dice import Roller, ScriptedRoller
from bellica.engine.rise_of_rome.model import suzerain
from bellica.engine.rise_of_rome.policies import Prudent, make_policy, simulation_rules
from bellica.engine.rise_of_rome.rules import Rules, default_rules, rules_with
from bellica.engine.rise_of_rome.scenario import load_scenario
from bellica.engine.rise_of_rome.spending import Spending
from bellica.engine.rise_of_rome.turn import start
from bellica.geo.errors import InputError

S = load_scenario()
R = default_rules()


def options(**kw) -> Rules:
    return rules_with({"options": kw})


class Defends:
    """Rome enters every table result as a Minor Victory for the defender; records the province questions."""

    def __init__(self, choose=None):
        self.asked: list[ProvinceQuestion] = []
        self.choose = choose

    def province(self, state, options, why):
        raise AssertionError("province_question is asked instead")

    def province_question(self, state, q):
        self.asked.append(q)
        return self.choose if (q.kind == "extra" or self.choose == "Campania") else None

    def result(self, battle):
        return BattleResult("defender", False)


def subject_state():
    """Turn 1; the Samnites hold the Campanians' two homes: the Campanians are their Subject."""
    state, _ = start(S, R, Roller(1))
    control = dict(state.control, **{"Campania": "Samnites", "Ager Nucerinus": "Samnites"})
    state = replace(state, turn=1, control=control, revenue={p: 10 for p in S.nations})
    assert suzerain(S, state, "Campanians") == "Samnites"
    return state


def test_the_file_counts_attacks_on_a_power_and_its_subject_separately_and_old_campaigns_together():
    assert R.options.subject_attacks == "separate" and R.options.player_battle_bonus == 0
    stored = {k: dict(v) if isinstance(v, dict) else v for k, v in R.values.items()}
    stored["options"] = {k: v for k, v in stored["options"].items() if k not in ("subject_attacks", "player_battle_bonus")}
    old = Rules.from_mapping(stored)  # a campaign file frozen before the options existed plays as it was played
    assert old.options.subject_attacks == "together" and old.options.player_battle_bonus == 0
    with pytest.raises(InputError, match='options.subject_attacks = "apart": give one of "separate", "together"'):
        options(subject_attacks="apart")


@pytest.mark.parametrize("mode, points", [("together", 90), ("separate", 100)])
def test_the_minus_ten_counts_the_attacks_on_each_army(mode, points):
    """The Senones attack the Samnites' own land, the Bruttians their Subject's (Ager Nucerinus, the richer
    province for them): "separate", neither army is attacked twice; "together", the Samnites are.
    Each defence: 80 + 10 (the Samnites do not attack) + half of 20 Defense, -10 if attacked twice."""
    rules = options(subject_attacks=mode)
    plan = AttackPlan((Attack("Senon Celts", "Samnites", 10), Attack("Bruttians and Lucanians", "Samnites", 9)))
    spending = {"Samnites": Spending(0, 20, 0), "Senon Celts": Spending(0, 0, 0), "Bruttians and Lucanians": Spending(0, 0, 0)}
    _state, battles, _ = fight_battles(S, subject_state(), rules, Roller(5), plan, spending)
    assert [(b.army, b.province in S.homes("Samnites")) for b in battles] == [("Samnites", True), ("Campanians", False)]
    assert battles[1].province == "Ager Nucerinus"
    assert [b.defence_points for b in battles] == [points, points]


def test_attacks_on_the_same_army_still_count_when_separate():
    state, _ = start(S, R, Roller(1))
    state = replace(state, turn=1)
    plan = AttackPlan((Attack("Etruscans", "Romans", 9), Attack("Campanians", "Romans", 9)))
    spending = {"Romans": Spending(0, 0, 0), "Etruscans": Spending(0, 0, 0), "Campanians": Spending(0, 0, 0)}
    _s, battles, _ = fight_battles(S, state, R, Roller(5), plan, spending, Defends())
    assert [b.defence_points for b in battles] == [80, 80]  # 80 + 10 - 10, twice


def test_rome_names_its_defence_for_each_attack():
    state, _ = start(S, R, Roller(1))
    state = replace(state, turn=1)
    plan = AttackPlan((Attack("Etruscans", "Romans", 9), Attack("Campanians", "Romans", 9)))
    spending = {"Romans": Spending(0, 30, 0), "Etruscans": Spending(0, 0, 0), "Campanians": Spending(0, 0, 0)}
    _s, even, _ = fight_battles(S, state, R, Roller(5), plan, spending, Defends())
    assert [b.defence_points for b in even] == [95, 95]  # 15 each
    _s, named, _ = fight_battles(S, state, R, Roller(5), plan, spending, Defends(), {"Romans": {"Campanians": 25}})
    assert [b.defence_points for b in named] == [85, 105]  # the 5 not named go to the attack not named
    # A named attack that is cancelled gives its money back to the attacks not named.
    plan = AttackPlan((Attack("Boian Celts", "Romans", 9), Attack("Etruscans", "Romans", 9)))
    _s, battles, events = fight_battles(S, state, R, Roller(5), plan, {"Romans": Spending(0, 10, 0)}, Defends(),
                                        {"Romans": {"Boian Celts": 10}})
    assert any(e.kind == "attack_cancelled" for e in events)
    assert [b.defence_points for b in battles] == [100]  # 80 + 10 + 10, attacked once (separate: cancelled not counted)


def test_a_bad_defence_split_is_one_line():
    plan = AttackPlan((Attack("Etruscans", "Romans", 9), Attack("Campanians", "Romans", 9)))
    check_defence_split(plan, "Romans", 30, {"Etruscans": 30})
    check_defence_split(plan, "Romans", 30, {"Etruscans": 10, "Campanians": 20})
    for split, words in (({"Samnites": 1}, "Samnites do not attack Romans"), ({"Etruscans": 31}, "names 31 points"),
                         ({"Etruscans": 10, "Campanians": 10}, "names every attack on Romans but only 20"),
                         ({"Etruscans": -1}, "give 0 or more")):
        with pytest.raises(InputError, match=words):
            check_defence_split(plan, "Romans", 30, split)


def test_rome_is_asked_for_the_provinces_it_takes():
    """Rome's Major Victory over the Samnites at Samnium Pentrum: Hirpini or Frentani next, Rome's choice."""
    state, _ = start(S, R, Roller(1))
    state = replace(state, turn=1)
    plan = AttackPlan((Attack("Romans", "Samnites", player=True),))

    class Wins(Defends):
        def result(self, battle):
            return BattleResult("attacker", True)

    for choice in ("Frentani", "Hirpini"):
        chooser = Wins(choose=choice)
        new, _b, events = fight_battles(S, state, R, Roller(5), plan, {"Romans": Spending(0, 0, 0)}, chooser)
        assert [(q.battle, q.kind, q.power, sorted(q.options)) for q in chooser.asked] == [
            (1, "target", "Samnites", ["Samnium Pentrum"]), (1, "extra", "Samnites", ["Frentani", "Hirpini"])]
        assert new.control["Samnium Pentrum"] == new.control[choice] == "Romans"
        assert any("the player's choice" in e.text for e in events)
    with pytest.raises(InputError, match="cannot take 'Campania'"):
        fight_battles(S, state, R, Roller(5), plan, {"Romans": Spending(0, 0, 0)}, Wins(choose="Campania"))


def test_player_battle_bonus_adds_to_romes_side_only_when_generated():
    script = {"x/attacker/1": (4, 2), "x/defender/1": (6, 1)}
    plain = generate(R, ScriptedRoller(script), 80, 80, "x")
    edged = generate(R, ScriptedRoller(script), 80, 80, "x", bonuses=(3, 0))
    assert plain.scores == (8, 10) and plain.winner == "defender"  # 4 + 80 // 20 against 6 + 4
    assert edged.scores == (11, 10) and edged.winner == "attacker"
    rules = simulation_rules(options(player_battle_bonus=1))
    state, _ = start(S, rules, Roller(1))
    state = replace(state, turn=1)
    plan = AttackPlan((Attack("Etruscans", "Romans", 9), Attack("Samnites", "Campanians", 9)))
    spending = {p: Spending(0, 0, 0) for p in ("Romans", "Etruscans", "Samnites", "Campanians")}
    _s, _b, events = fight_battles(S, state, rules, Roller(5), plan, spending)
    _s, _b, base = fight_battles(S, state, simulation_rules(), Roller(5), plan, spending)
    results = [e for e in events if e.kind == "battle_result"]
    plain_results = [e for e in base if e.kind == "battle_result"]
    assert "option player_battle_bonus, not in the seed" in results[0].text  # Rome defends: +1 to the defender

    def added(e, side):  # score minus the kept die: the points bonus (+ the edge)
        return e.data["scores"][side] - max(e.data["rolls"][-2 + side])

    assert (added(results[0], 0), added(results[0], 1)) == (added(plain_results[0], 0), added(plain_results[0], 1) + 1)
    assert (added(results[1], 0), added(results[1], 1)) == (added(plain_results[1], 0), added(plain_results[1], 1))
    assert "player_battle_bonus" not in results[1].text  # not Rome's battle
    with pytest.raises(InputError, match="player_battle_bonus"):
        options(player_battle_bonus=0.5)


def test_prudent_defends_to_the_next_step_and_attacks_when_it_can_pay():
    p = Prudent()
    one = AttackPlan((Attack("Etruscans", "Romans", 9),))
    two = AttackPlan(one.attacks + (Attack("Samnites", "Romans", 9),))
    three = AttackPlan(two.attacks + (Attack("Campanians", "Romans", 9),))
    # Bases 90, 80, 70: to 100 (10 each), 100 (20 each), 80 (10 each).
    assert [Prudent.defence_needed(x, "Romans", attacking=False) for x in (AttackPlan(), one, two, three)] == [0, 10, 40, 30]
    assert Prudent.defence_needed(one, "Romans", attacking=True) == 20  # base 80: to 100
    state, _ = start(S, R, Roller(1))
    rich = replace(state, turn=1, revenue={p_: 20 for p_ in S.nations})
    poor = replace(rich, revenue=dict(rich.revenue, Romans=19))
    assert p.attack(S, rich, one) is None and p.attack(S, poor, AttackPlan()) is None
    assert p.attack(S, rich, AttackPlan()) is not None
    mine = AttackPlan((Attack("Romans", "Etruscans", player=True),))
    assert p.spend(S, rich, mine, 25) == Spending(20, 0, 5)
    assert p.spend(S, rich, two, 25) == Spending(0, 25, 0)  # 40 wanted, 25 there
    assert p.spend(S, rich, one, 25) == Spending(0, 10, 15)
    assert p.spend(S, rich, AttackPlan(), 15) == Spending(0, 0, 15)
    assert p.province(rich, ("Campania", "Volsci"), "x") == "Volsci"  # a lost home, retaken
    assert p.province(rich, ("Campania", "Hirpini"), "x") is None  # else the seed's rule
    assert make_policy("prudent", 3).name == "prudent"


def test_simulate_plays_prudent_by_default_and_names_the_edge_as_a_departure():
    from bellica.commands.simulate import command
    from bellica.engine.rise_of_rome.simulate import departures, plot_labels
    from bellica.engine.rise_of_rome.policies import DEFAULT_POLICY, CampaignRunner

    assert DEFAULT_POLICY == "prudent" and CampaignRunner().policy == "prudent"
    option = next(p for p in command.params if p.name == "policy")
    assert option.default is None and "prudent (default)" in option.help  # the ruleset's own default, DEFAULT_POLICY
    plain = simulation_rules()
    edged = simulation_rules(options(player_battle_bonus=1))
    assert len(departures(plain)) == 1 and "generate_player_battles" in departures(plain)[0]
    assert len(departures(edged)) == 2 and "+1" in departures(edged)[1] and "player_battle_bonus" in departures(edged)[1]
    doc = {"runs": 5, "policy": "prudent", "seed": 1}
    assert "Rome +1 in them" in plot_labels(doc, edged)["title"] and "Rome +1" not in plot_labels(doc, plain)["title"]


def test_prudent_plays_by_the_campaigns_own_rules():
    # A campaign whose generator steps by 25 points: Prudent attacks with 25 and lifts a lone
    # defence of 90 to 100 (the next multiple of 25), not by the ruleset file's 20.
    rules = rules_with({"battles": {"generator": {"points_per_bonus": 25}}})
    p = make_policy("prudent", 1, rules)
    one = AttackPlan((Attack("Etruscans", "Romans", 9),))
    assert p.attack_points == 25 and make_policy("prudent", 1).attack_points == 20
    assert p.spend(S, None, one, 40) == Spending(0, 10, 30)
    mine = AttackPlan((Attack("Romans", "Etruscans", player=True),))
    assert p.spend(S, None, mine, 40) == Spending(25, 0, 15)
