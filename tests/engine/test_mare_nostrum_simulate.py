"""Mare Nostrum games played by policies (bellica simulate mare-nostrum): legal, whole, reproducible."""

from __future__ import annotations

import pytest

from bellica.engine.core.simulate import run_seeds, simulate
from bellica.engine.mare_nostrum import policies
from bellica.engine.mare_nostrum.policies import GameRunner, battle_die, legal_actions, make_policy, play_one
from bellica.engine.mare_nostrum.rules import default_rules
from bellica.engine.mare_nostrum.scenario import default_scenario
from bellica.engine.mare_nostrum.lottery import lottery_for
from bellica.engine.mare_nostrum.model import provinces_of
from bellica.engine.mare_nostrum.turn import begin_turn, new_game
from bellica.geo.errors import InputError

R = default_rules()
S = default_scenario()
NATIONS = list(S.nations)
START = {n: len(provinces_of(S, new_game(S, R), n)) for n in NATIONS}


def test_same_runs_in_one_process_and_two():
    seeds = run_seeds(5, 6)
    for name in ("aggressor", "random"):
        one = simulate(GameRunner(name), seeds, workers=1)
        two = simulate(GameRunner(name), seeds, workers=2)
        assert one == two
        assert [r["run"] for r in one] == list(range(6))
    assert play_one(seeds[0], policy="random") == play_one(seeds[0], policy="random")


@pytest.mark.parametrize("name", sorted(policies.POLICIES))
def test_every_policy_plays_whole_games_legally(name, monkeypatch):
    # every action a policy takes goes through the rules' own functions, which refuse an illegal one;
    # here each is also checked against legal_actions before it is applied.
    applied = []
    real = policies._apply

    def checked(scenario, state, rules, nation, action, lottery=None):
        assert state.acting == nation and state.nations[nation].actions_left > 0
        assert action in legal_actions(scenario, state, rules, nation)
        applied.append(action)
        return real(scenario, state, rules, nation, action, lottery)

    monkeypatch.setattr(policies, "_apply", checked)
    for seed in (1, 2):
        row = play_one(seed, policy=name)
        assert row["winner"] in NATIONS + ["none"] and row["policy"] == name
        assert row["turns"] >= R.game.turns or row["winner"] != "none"
        for n in NATIONS:
            series = row[f"provinces_{n}"]
            assert len(series) == R.game.turns + 1 and series[0] == START[n]
            assert row[f"final_{n}"] >= 0
        assert sum(row[f"final_{n}"] for n in NATIONS) <= len(S.provinces)
    assert applied
    kinds = {a[0] for a in applied}
    assert kinds == {"build"} if name == "builder" else "attack" in kinds
    if name in ("diplomat", "random"):
        assert {"peace", "ally", "grain"} <= kinds


def test_builder_prefers_fortifications_and_aggressor_the_weakest_target():
    st, _ = begin_turn(S, new_game(S, R), R, lottery_for(R, 3))
    nation = st.acting
    b = make_policy("builder", 3).choose(S, st, R, nation, 0)
    assert b[:2] == ("build", "fortification")
    a = make_policy("aggressor", 3).choose(S, st, R, nation, 0)
    options = [x for x in legal_actions(S, st, R, nation) if x[0] == "attack"]
    if options:
        assert a[0] == "attack" and a in options
        held = [st.control.get(x[2]) for x in options]
        if None in held:                                   # an independent province first
            assert st.control.get(a[2]) is None
    else:
        assert a == b


def test_battle_die_and_unknown_policy():
    assert battle_die(9, 3, "Latium") == battle_die(9, 3, "Latium")
    assert {battle_die(s, 1, "Latium") for s in range(60)} == set(range(1, 7))
    with pytest.raises(InputError, match="no Mare Nostrum policy called 'timid'"):
        make_policy("timid", 1)
    with pytest.raises(InputError, match="timid"):
        play_one(1, policy={"Romans": "timid"})


def test_a_mapping_plays_each_nation_its_own_way():
    row = play_one(4, policy={"Romans": "aggressor"})
    assert row["policy"].startswith("Carthaginians=builder") and "Romans=aggressor" in row["policy"]


# --- diplomacy in the policies, and one policy per nation ------------------------------------


def _acting_state(seed=3):
    st, _ = begin_turn(S, new_game(S, R), R, lottery_for(R, seed))
    return st


def test_diplomatic_actions_follow_the_rules_conditions():
    from dataclasses import replace

    st = _acting_state()
    nation = st.acting
    talks = policies.diplomatic_actions(S, st, R, nation)
    later = st.order[st.order.index(nation) + 1:]
    # peace only on the nations after it in the order of play (the seed's rule)
    assert [a[1] for a in talks if a[0] == "peace"] == list(later)
    # alliances only against an enemy's province the invaders threaten
    for _, province in (a for a in talks if a[0] == "ally"):
        assert S.invader_at(province) is not None and st.control[province] not in (None, nation)
    # grain only below the maximum stability
    assert (("grain",) in talks) == (st.nations[nation].stability < R.stability.maximum)
    full = st.with_nation(nation, stability=R.stability.maximum)
    assert ("grain",) not in policies.diplomatic_actions(S, full, R, nation)
    # a peace it has imposed is not offered again; nobody else's turn offers anything
    bound = replace(st, peace=st.peace | {(nation, later[0])})
    assert ("peace", later[0]) not in policies.diplomatic_actions(S, bound, R, nation)
    assert policies.diplomatic_actions(S, st, R, later[0]) == []
    # every one is accepted by the rules' own functions
    for action in talks:
        policies._apply(S, st, R, nation, action, lottery_for(R, 3))


def test_the_diplomat_feeds_its_people_binds_a_neighbour_attacks_fortifies_then_courts_the_invaders(monkeypatch):
    from dataclasses import replace

    st = _acting_state()
    nation = st.acting                                  # seed 3: the Gauls, peace and alliances on offer
    low = st.with_nation(nation, stability=R.stability.penalty_at + 1)
    assert make_policy("diplomat", 3).choose(S, low, R, nation, 0) == ("grain",)
    calm = st.with_nation(nation, stability=R.stability.penalty_at + 2, actions=3)
    talks = policies.diplomatic_actions(S, calm, R, nation)
    threats = [a for a in talks if a[0] == "peace" and policies._threat(S, calm, R, a[1], nation)]
    allies = [a for a in talks if a[0] == "ally"]
    assert len(threats) > 1 and allies
    # one peace a turn, on the biggest nation after it that can reach it, while two actions remain
    d = make_policy("diplomat", 3)
    first = d.choose(S, calm, R, nation, 0)
    assert first in threats
    assert len(provinces_of(S, calm, first[1])) == max(len(provinces_of(S, calm, a[1])) for a in threats)
    aggressor = make_policy("aggressor", 3).choose(S, calm, R, nation, 0)
    assert d.choose(S, calm, R, nation, 1) == aggressor                         # tried: no second peace
    assert make_policy("diplomat", 3).choose(S, st.with_nation(nation, actions=2), R, nation, 0) == \
        make_policy("aggressor", 3).choose(S, st.with_nation(nation, actions=2), R, nation, 0)  # none to spare
    assert d.choose(S, replace(calm, turn=calm.turn + 1), R, nation, 0) == first  # the next turn, again
    # with no land attack open: a fortification first, then the alliances, each tried once a turn
    monkeypatch.setattr(policies, "_weakest_attack", lambda *a: None)
    d2 = make_policy("diplomat", 3)
    d2.tried.add((calm.turn, nation, "peace"))
    assert d2.choose(S, calm, R, nation, 0)[:2] == ("build", "fortification")
    walled = calm
    for p in provinces_of(S, calm, nation):
        walled = walled.with_works(p, fortifications=R.building.fortifications_per_province)
    chosen = [d2.choose(S, walled, R, nation, k) for k in range(len(allies))]
    assert sorted(chosen) == sorted(allies)
    sizes = [len(provinces_of(S, walled, walled.control[a[1]])) for a in chosen]
    assert sizes == sorted(sizes)
    assert d2.choose(S, walled, R, nation, len(allies))[0] == "build"          # then builds as builder


def test_one_policy_per_nation_and_the_names_checked():
    names = policies.resolve_policies({"romans": "diplomat", "GAULS": "random"}, NATIONS, "aggressor")
    assert names == {n: {"Romans": "diplomat", "Gauls": "random"}.get(n, "aggressor") for n in NATIONS}
    assert policies.policy_label(names).startswith("Carthaginians=aggressor,Gauls=random")
    assert policies.policy_label({n: "builder" for n in NATIONS}) == "builder"
    with pytest.raises(InputError, match="no nation called 'Atlantis' in Mare Nostrum: choose one of Carthaginians"):
        policies.resolve_policies({"Atlantis": "builder"}, NATIONS)
    with pytest.raises(InputError, match="no Mare Nostrum policy called 'timid'"):
        policies.resolve_policies({"Romans": "timid"}, NATIONS)
    # the runner takes (nation, policy) pairs; same seeds, same rows in one process and two
    runner = GameRunner(tuple({"Romans": "diplomat", "Gauls": "random"}.items()))
    seeds = run_seeds(8, 4)
    one = simulate(runner, seeds, workers=1)
    assert one == simulate(runner, seeds, workers=2)
    assert one[0]["policy"] == play_one(seeds[0], policy={"Romans": "diplomat", "Gauls": "random"})["policy"]
    assert "Romans=diplomat" in one[0]["policy"] and "Macedonians=builder" in one[0]["policy"]
