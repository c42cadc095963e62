"""A Mare Nostrum turn through the pure rule functions: lottery, events, actions, battles."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.core.events import to_json
from bellica.engine.mare_nostrum import battles, building, diplomacy, events, lottery
from bellica.engine.mare_nostrum.model import Attack, Fleet, pirates_name
from bellica.engine.mare_nostrum.rules import default_rules, rules_with
from bellica.engine.mare_nostrum.scenario import default_scenario
from bellica.engine.mare_nostrum.turn import begin_turn, end_turn, finish_actions, new_game
from bellica.geo.errors import InputError

R = default_rules()
S = default_scenario()
#: The pirate fleets' owner, as the shipped rules name it (events.pirates.title).
PIRATES = pirates_name(R)
ORDER = ("Macedonians", "Carthaginians", "Ptolemaics", "Gauls", "Romans", "Seleucids")


def lot(seed=7, wheels=None, entered=None):
    return lottery.lottery_for(R, seed, wheels=wheels, entered=entered)


def acting(order=ORDER, actions=3, turn=1, **changes):
    """Turn ``turn`` in its actions phase, ``order[0]`` to act, every nation with ``actions``."""
    st = new_game(S, R)
    st = replace(st, turn=turn, order=order, current=0, phase="actions", **changes)
    for n in order:
        st = st.with_nation(n, actions=actions)
    return st


# --- lottery ------------------------------------------------------------------------------


def test_seeded_wheels_are_reproducible_and_valid():
    a, b = lot(11), lot(11)
    wa, wb = a.wheel(3, "BA"), b.wheel(3, "BA")
    assert wa.numbers == wb.numbers and len(set(wa.numbers)) == 5 and all(1 <= n <= 90 for n in wa.numbers)
    assert lot(12).wheel(3, "BA").numbers != wa.numbers or lot(12).wheel(4, "BA").numbers != lot(11).wheel(4, "BA").numbers
    # a number does not depend on what was drawn before it
    c = lot(11)
    c.number("siege", 1, "Apulia")
    assert c.wheel(3, "BA").numbers == wa.numbers
    assert a.number("peace", 2, "Romans", "Seleucids").value == lot(11).number("peace", 2, "Romans", "Seleucids").value


def test_entered_numbers_are_checked():
    with pytest.raises(InputError, match="different"):
        lot(wheels={1: {"BA": [5, 5, 6]}}).wheel(1, "BA")
    with pytest.raises(InputError, match="1 to 90"):
        lot(wheels={1: {"BA": [91, 2, 3]}}).wheel(1, "BA")
    with pytest.raises(InputError, match="1 to 90"):
        lot(entered={"siege/1/Apulia": 0}).number("siege", 1, "Apulia")


def test_pick_halves_the_numbers_like_the_invasion_rule():
    two = ["Apulia", "Bruttium"]
    assert lottery.pick(lot(entered={"x": 45}), two, "x")[0] == "Apulia"
    assert lottery.pick(lot(entered={"x": 46}), two, "x")[0] == "Bruttium"


WHEELS = {1: {"BA": [70, 58, 3, 11, 12], "CA": [45, 38, 50, 1, 2], "FI": [88, 80, 1, 2, 4],
              "GE": [45, 86, 9, 10, 13], "MI": [20, 48, 7, 8, 9], "NA": [5, 3, 60, 61, 62]}}


def test_order_of_play_highest_first_and_ties_by_next_number():
    st = replace(new_game(S, R), turn=1)
    st, ev = lottery.order_of_play(S, st, R, lot(wheels=WHEELS))
    assert st.order == ORDER                       # Ptolemaics (45, then 86) before Gauls (45, then 38)
    assert ev[0].data["tied_numbers"] == [45]
    alt = rules_with({"options": {"order_tie": "wheel_order"}})
    st2, _ = lottery.order_of_play(S, replace(new_game(S, alt), turn=1), alt, lot(wheels=WHEELS))
    assert st2.order.index("Gauls") < st2.order.index("Ptolemaics")   # Cagliari is listed before Genova


# --- events -------------------------------------------------------------------------------


def _event(key, state, nation, numbers=(), lottery_=None):
    return events.apply_event(S, state, R, lottery_ or lot(), nation, R.event_by_key(key), numbers)


def test_invasion_reads_the_third_number():
    st = acting()
    assert events.invasion_target(S, R, "Romans", 45) == "Bruttium"
    assert events.invasion_target(S, R, "Romans", 46) == "Apulia"
    st2, ev = _event("invasion", st, "Romans", (1, 37, 46))
    (a,) = st2.attacks
    assert (a.kind, a.target, a.defender, a.managed_by, a.attacker) == ("invasion", "Apulia", "Romans", "Gauls", None)
    assert a.army == "Samnites: Illyrian"
    # a province already lost is spared
    st3 = replace(st, control={**st.control, "Apulia": "Macedonians"})
    st3, ev = _event("invasion", st3, "Romans", (1, 37, 46))
    assert st3.attacks == () and ev[-1].data["spared"]


def test_event_losses_and_conditions():
    st = acting()
    st = st.with_works("Latium", fortifications=1, suburbs=1, temples=1)
    st2, _ = _event("local_insurrection", st, "Romans")
    assert st2.works_of("Latium").fortifications == 0
    st2, _ = _event("religious_unrest", st, "Romans")
    assert st2.works_of("Latium").temples == 0 and st2.works_of("Latium").suburbs == 1
    st2, _ = _event("famine", st, "Romans")
    assert st2.nations["Romans"].stability == 4
    st2, _ = _event("political_leadership", st, "Romans")
    assert st2.nations["Romans"].stability == 6
    st2, _ = _event("naval_technology", st, "Romans")
    assert st2.nations["Romans"].naval_bonus == 25
    for key, effect in (("siege_train", "siege_train"), ("internal_conspiracy", "own_single_commander"),
                        ("military_training", "enemy_single_commander")):
        assert effect in _event(key, st, "Romans")[0].nations["Romans"].effects
    st2, _ = _event("earthquake", st, "Carthaginians")
    assert st2.nations["Carthaginians"].pending == ("destroy_enemy_fortification",)
    st2, _ = building.destroy_enemy_work(S, st2, R, "Carthaginians", "Latium", "fortification")
    assert st2.works_of("Latium").fortifications == 0 and st2.nations["Carthaginians"].pending == ()
    st2, _ = _event("great_blaze", st, "Carthaginians")
    st2, _ = building.destroy_enemy_work(S, st2, R, "Carthaginians", "Latium", "temple")
    assert st2.works_of("Latium").temples == 0
    with pytest.raises(InputError, match="no event"):
        building.destroy_enemy_work(S, st2, R, "Carthaginians", "Latium", "temple")


def test_storm_and_pirates():
    st = acting(fleets=(Fleet(1, "Romans", "Mare Tyrrhenum"), Fleet(2, "Gauls", "Mare Tyrrhenum")), next_fleet=3)
    st2, _ = _event("great_storm", st, "Romans")
    assert [f.id for f in st2.fleets] == [2]
    # pirates attack the Roman fleet at once; 80 vs 20: the Romans lose it, the pirates stay
    numbers = {"naval/1/Mare Tyrrhenum/pirates 3/Pirates": 80, "naval/1/Mare Tyrrhenum/pirates 3/Romans": 20}
    st3, ev = _event("pirates", st, "Romans", lottery_=lot(entered=numbers))
    assert [(f.id, f.owner) for f in st3.fleets] == [(2, "Gauls"), (3, PIRATES)]
    # next turn they raid every other fleet there once
    st4 = replace(st3, turn=2)
    raid = {"naval/2/Mare Tyrrhenum/pirates 3 raid 2/Pirates": 10, "naval/2/Mare Tyrrhenum/pirates 3 raid 2/Gauls": 70}
    st4, ev = events.pirate_raids(S, st4, R, lot(entered=raid))
    assert [(f.id, f.owner) for f in st4.fleets] == [(2, "Gauls")]


# --- building -----------------------------------------------------------------------------


def test_building_rules():
    st = acting(order=("Romans",) + tuple(n for n in ORDER if n != "Romans"), actions=6)
    with pytest.raises(InputError, match="suburbs"):
        building.build(S, st, R, "Romans", "temple", "Latium")
    with pytest.raises(InputError, match="not Romans'"):
        building.build(S, st, R, "Romans", "suburbs", "Sicilia")
    st, _ = building.build(S, st, R, "Romans", "suburbs", "Latium")
    with pytest.raises(InputError, match="already has"):
        building.build(S, st, R, "Romans", "suburbs", "Latium")
    with pytest.raises(InputError, match="suburbs standing"):             # suburbs ordered now stand only at the end
        building.build(S, st, R, "Romans", "temple", "Latium")
    with pytest.raises(InputError, match="faces no sea|does not face"):
        building.build(S, st, R, "Romans", "fleet", "Latium", "Mare Adriaticum")
    st, _ = building.build(S, st, R, "Romans", "fleet", "Latium")
    st, _ = building.build(S, st, R, "Romans", "fleet", "Campania", "Mare Tyrrhenum")
    with pytest.raises(InputError, match="2 fleets"):
        building.build(S, st, R, "Romans", "fleet", "Etruria", "Mare Tyrrhenum")
    assert st.fleets == ()
    st, _ = finish_actions(S, st, R, "Romans")
    assert st.works_of("Latium").suburbs == 1 and len(st.fleets) == 2 and st.acting == "Macedonians"
    assert st.nations["Romans"].used == 3


def test_actions_run_out_and_only_the_acting_nation_acts():
    st = acting(actions=1)
    st, _ = battles.land_attack(S, st, R, "Macedonians", "Thessalia", "Epirus")
    with pytest.raises(InputError, match="no action left"):
        building.build(S, st, R, "Macedonians", "suburbs", "Macedonia")
    st, _ = finish_actions(S, st, R, "Macedonians")
    with pytest.raises(InputError, match="turn to act is Carthaginians"):
        building.build(S, st, R, "Romans", "suburbs", "Latium")


# --- diplomacy ----------------------------------------------------------------------------


def test_peace_only_on_a_later_nation_and_46_to_90():
    st = acting(order=("Romans", "Carthaginians", "Gauls", "Macedonians", "Ptolemaics", "Seleucids"), actions=3)
    st1, ev = diplomacy.impose_peace(S, st, R, lot(entered={"peace/1/Romans/Carthaginians": 45}), "Romans", "Carthaginians")
    assert st1.peace == frozenset() and not ev[0].data["succeeded"]
    st1, ev = diplomacy.impose_peace(S, st, R, lot(entered={"peace/1/Romans/Carthaginians": 46}), "Romans", "Carthaginians")
    assert st1.peace == {("Romans", "Carthaginians")}
    st1, _ = finish_actions(S, st1, R, "Romans")
    with pytest.raises(InputError, match="plays before"):
        diplomacy.impose_peace(S, st1, R, lot(), "Carthaginians", "Romans")
    with pytest.raises(InputError, match="peace treaty"):
        battles.land_attack(S, st1, R, "Carthaginians", "Sicilia", "Bruttium")


def test_alliance_with_invaders_31_to_90():
    st = acting(order=("Romans",) + tuple(n for n in ORDER if n != "Romans"))
    st1, ev = diplomacy.ally_with_invaders(S, st, R, lot(entered={"alliance/1/Romans/Phrygia": 30}), "Romans", "Phrygia")
    assert st1.attacks == ()
    st1, ev = diplomacy.ally_with_invaders(S, st, R, lot(entered={"alliance/1/Romans/Phrygia": 31}), "Romans", "Phrygia")
    (a,) = st1.attacks
    assert (a.kind, a.attacker, a.army, a.defender) == ("alliance", "Romans", "Attalid", "Seleucids")
    with pytest.raises(InputError, match="not held by an enemy"):
        diplomacy.ally_with_invaders(S, st, R, lot(), "Romans", "Apulia")
    with pytest.raises(InputError, match="no invaders"):
        diplomacy.ally_with_invaders(S, st, R, lot(), "Romans", "Syria")


def test_grain_distribution():
    st = acting()
    st, _ = diplomacy.distribute_grain(S, st, R, "Macedonians")
    assert st.nations["Macedonians"].stability == 7


# --- land battles -------------------------------------------------------------------------


def test_attack_availability():
    st = acting(order=("Gauls", "Romans", "Macedonians", "Carthaginians", "Ptolemaics", "Seleucids"))
    with pytest.raises(InputError, match="cannot be reached"):
        battles.land_attack(S, st, R, "Gauls", "Celtica", "Samnium")
    st, _ = battles.land_attack(S, st, R, "Gauls", "Gallia Cisalpina", "Etruria")
    with pytest.raises(InputError, match="already been attacked"):
        battles.land_attack(S, st, R, "Gauls", "Gallia Cisalpina", "Etruria")
    st, _ = finish_actions(S, st, R, "Gauls")
    # Etruria is under attack: not a base; Latium is a capital with no home province lost
    with pytest.raises(InputError, match="cannot be a base"):
        battles.land_attack(S, st, R, "Romans", "Etruria", "Gallia Cisalpina")
    assert ("Latium", "Samnium") not in battles.land_targets(S, st, R, "Romans")
    targets = battles.land_targets(S, st, R, "Romans")
    assert ("Campania", "Sicilia") not in targets and ("Bruttium", "Sicilia") in targets
    assert all(b != "Etruria" for b, _ in targets)


def test_capital_needs_two_other_homes_lost():
    st = acting(order=("Gauls",) + tuple(n for n in ORDER if n != "Gauls"))
    st = replace(st, control={**st.control, "Etruria": "Gauls"})
    with pytest.raises(InputError, match="capital"):
        battles.land_attack(S, st, R, "Gauls", "Etruria", "Latium")
    st = replace(st, control={**st.control, "Campania": None})        # independent: counts as lost ("not_held")
    assert battles.capital_open(S, st, R, "Latium")
    alt = rules_with({"options": {"capital_rule_counts": "enemy_held"}})
    assert not battles.capital_open(S, st, alt, "Latium")
    st, _ = battles.land_attack(S, st, R, "Gauls", "Etruria", "Latium")
    st = replace(st, phase="battles")
    st = st.with_works("Latium", suburbs=1, temples=1)
    st, ev = battles.resolve_battles(S, st, R, lot(), {"Latium": "attacker"})
    assert not st.nations["Romans"].playing
    # the capital's fall hands every Roman province to the Gauls; the temple burns, suburbs stay
    assert {st.control[p] for p in ("Latium", "Samnium", "Apulia", "Bruttium")} == {"Gauls"}
    assert st.works_of("Latium").temples == 0 and st.works_of("Latium").suburbs == 1


def test_fortification_resists_on_61_to_90_unless_siege_train():
    base = acting(order=("Romans",) + tuple(n for n in ORDER if n != "Romans"))
    base = base.with_works("Sicilia", fortifications=1)
    st, _ = battles.land_attack(S, base, R, "Romans", "Bruttium", "Sicilia")
    st = replace(st, phase="battles")
    held, ev = battles.resolve_battles(S, st, R, lot(entered={"siege/1/Sicilia": 61}), {"Sicilia": "attacker"})
    assert held.control["Sicilia"] == "Carthaginians" and held.works_of("Sicilia").fortifications == 1
    taken, ev = battles.resolve_battles(S, st, R, lot(entered={"siege/1/Sicilia": 60}), {"Sicilia": "attacker"})
    assert taken.control["Sicilia"] == "Romans" and taken.works_of("Sicilia").fortifications == 0
    train = st.with_nation("Romans", effects=frozenset({"siege_train"}))
    taken, ev = battles.resolve_battles(S, train, R, lot(entered={"siege/1/Sicilia": 90}), {"Sicilia": "attacker"})
    assert taken.control["Sicilia"] == "Romans"
    beaten, _ = battles.resolve_battles(S, st, R, lot(), {"Sicilia": "defender"})
    assert beaten.control["Sicilia"] == "Carthaginians"
    with pytest.raises(InputError, match="missing"):
        battles.resolve_battles(S, st, R, lot(), {})


def test_defensive_artworks_count_as_a_fortification():
    st = acting(order=("Romans",) + tuple(n for n in ORDER if n != "Romans"))
    st, _ = _event("defensive_artworks", st, "Carthaginians")
    st, _ = building.place_artworks(S, st, R, "Carthaginians", "Sicilia")
    st, _ = battles.land_attack(S, st, R, "Romans", "Bruttium", "Sicilia")
    st = replace(st, phase="battles")
    held, _ = battles.resolve_battles(S, st, R, lot(entered={"siege/1/Sicilia": 75}), {"Sicilia": "attacker"})
    assert held.control["Sicilia"] == "Carthaginians"


def test_battle_terms_single_commander():
    st = acting(order=("Romans",) + tuple(n for n in ORDER if n != "Romans"))
    st = st.with_nation("Carthaginians", effects=frozenset({"enemy_single_commander"}))
    st, _ = battles.land_attack(S, st, R, "Romans", "Bruttium", "Sicilia")
    t = battles.battle_terms(S, st, R, st.attacks[0])
    assert t["points"] == 500 and t["attacker_commanders"] == 1 and t["defender_commanders"] is None
    assert t["attacker_army"] == "Mid Republican Roman" and t["defender_army"] == "Later Carthaginian (post 235 BC)"


# --- naval and amphibious -----------------------------------------------------------------


def test_amphibious_attack_needs_the_sea_cleared():
    fleets = (Fleet(1, "Carthaginians", "Mare Tyrrhenum"), Fleet(2, "Romans", "Mare Tyrrhenum"))
    st = acting(order=("Carthaginians",) + tuple(n for n in ORDER if n != "Carthaginians"), fleets=fleets, next_fleet=3)
    key = "naval/1/Mare Tyrrhenum/landing Campania/"
    won, ev = battles.amphibious_attack(S, st, R, lot(entered={key + "Carthaginians": 80, key + "Romans": 10}),
                                        "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Campania")
    assert [f.id for f in won.fleets] == [1] and won.attacks[0].kind == "amphibious"
    drawn, ev = battles.amphibious_attack(S, st, R, lot(entered={key + "Carthaginians": 40, key + "Romans": 30}),
                                          "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Campania")
    assert drawn.attacks == () and ev[-1].kind == "landing_aborted" and drawn.nations["Carthaginians"].used == 1
    with pytest.raises(InputError, match="does not face"):
        battles.amphibious_attack(S, st, R, lot(), "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Apulia")
    nofleet = replace(st, fleets=fleets[1:])
    with pytest.raises(InputError, match="no fleet"):
        battles.amphibious_attack(S, nofleet, R, lot(), "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Campania")


def test_naval_attack_once_per_fleet_per_turn():
    fleets = (Fleet(1, "Carthaginians", "Mare Tyrrhenum"), Fleet(2, "Romans", "Mare Tyrrhenum"))
    st = acting(order=("Carthaginians", "Gauls") + tuple(n for n in ORDER if n not in ("Carthaginians", "Gauls")),
                fleets=fleets + (Fleet(3, "Gauls", "Mare Tyrrhenum"),), next_fleet=4)
    st, ev = battles.attack_fleets(S, st, R, lot(entered={"naval/1/Mare Tyrrhenum/attack/Carthaginians": 50,
                                                          "naval/1/Mare Tyrrhenum/attack/Romans": 40}),
                                   "Carthaginians", "Mare Tyrrhenum", "Romans")
    assert ev[0].data["winner"] is None and len(st.fleets) == 3
    st, _ = finish_actions(S, st, R, "Carthaginians")
    with pytest.raises(InputError, match="already attacked"):
        battles.attack_fleets(S, st, R, lot(), "Gauls", "Mare Tyrrhenum", "Romans")


# --- a whole turn, six nations (the demo script's turn) ----------------------------------


def play_turn(seed=5, wheels=WHEELS):
    entered = {"peace/1/Carthaginians/Romans": 50, "alliance/1/Romans/Phrygia": 31}
    lt = lot(seed, wheels=wheels, entered=entered)
    st = new_game(S, R)
    log = []
    st, ev = begin_turn(S, st, R, lt)
    log += ev
    assert st.order == ORDER
    n = st.nations
    assert (n["Macedonians"].stability, n["Ptolemaics"].stability, n["Seleucids"].stability) == (6, 6, 4)
    assert {k: v.actions for k, v in n.items()} == {"Carthaginians": 2, "Gauls": 2, "Macedonians": 2,
                                                    "Ptolemaics": 3, "Romans": 2, "Seleucids": 1}
    assert n["Carthaginians"].naval_bonus == 25 and "siege_train" in n["Romans"].effects
    assert [(a.kind, a.target, a.managed_by) for a in st.attacks] == [("invasion", "Narbonensis", "Carthaginians")]

    def do(fn, *args):
        nonlocal st
        st, ev = fn(*args)
        log.extend(ev)

    do(building.build, S, st, R, "Macedonians", "fortification", "Thessalia")
    do(battles.land_attack, S, st, R, "Macedonians", "Macedonia", "Illyria")
    do(finish_actions, S, st, R, "Macedonians")
    do(building.build, S, st, R, "Carthaginians", "fleet", "Sicilia", "Mare Tyrrhenum")
    do(diplomacy.impose_peace, S, st, R, lt, "Carthaginians", "Romans")
    do(finish_actions, S, st, R, "Carthaginians")
    do(building.build, S, st, R, "Ptolemaics", "suburbs", "Aegyptus")
    do(building.build, S, st, R, "Ptolemaics", "fleet", "Cyprus")
    do(diplomacy.distribute_grain, S, st, R, "Ptolemaics")
    do(finish_actions, S, st, R, "Ptolemaics")
    with pytest.raises(InputError, match="under attack"):
        building.build(S, st, R, "Gauls", "fortification", "Narbonensis")
    do(battles.land_attack, S, st, R, "Gauls", "Gallia Cisalpina", "Etruria")
    do(building.build, S, st, R, "Gauls", "fortification", "Celtica")
    do(finish_actions, S, st, R, "Gauls")
    with pytest.raises(InputError, match="peace treaty"):
        battles.land_attack(S, st, R, "Romans", "Bruttium", "Sicilia")
    do(diplomacy.ally_with_invaders, S, st, R, lt, "Romans", "Phrygia")
    do(building.build, S, st, R, "Romans", "suburbs", "Latium")
    do(finish_actions, S, st, R, "Romans")
    do(battles.land_attack, S, st, R, "Seleucids", "Phoenicia", "Judaea")
    do(finish_actions, S, st, R, "Seleucids")
    assert st.phase == "battles"
    results = {"Narbonensis": "attacker", "Illyria": "attacker", "Etruria": "defender", "Phrygia": "attacker",
               "Judaea": "attacker"}
    st, verdict, ev = end_turn(S, st, R, lt, results)
    log += ev
    return st, verdict, log, lt


def test_a_turn_with_all_six_nations():
    st, verdict, log, lt = play_turn()
    assert st.control["Illyria"] == "Macedonians"
    assert st.control["Narbonensis"] is None                     # taken by the Massaliote invaders
    assert st.control["Etruria"] == "Romans"
    assert st.control["Phrygia"] == "Romans"                     # won with the Attalid allies
    assert st.control["Judaea"] == "Seleucids"                   # through the Phoenicia-Judaea passage
    assert st.works_of("Thessalia").fortifications == 1 and st.works_of("Aegyptus").suburbs == 1
    assert st.nations["Ptolemaics"].stability == 7               # 5 +1 (leadership) +2 (grain), at most 7
    assert sorted((f.owner, f.sea) for f in st.fleets) == [("Carthaginians", "Mare Tyrrhenum"), ("Ptolemaics", "Mare Syriacum")]
    assert verdict.winner is None and st.phase == "done"
    assert [s.nation for s in verdict.standings][:2] == ["Macedonians", "Romans"]
    kinds = {e.kind for e in log}
    assert {"order_of_play", "random_event", "invasion", "actions", "build_ordered", "built", "attack", "peace",
            "alliance", "battle", "conquest", "verdict"} <= kinds
    # the next turn begins from here, with seeded numbers
    st2, ev = begin_turn(S, st, R, lt)
    assert st2.turn == 2 and st2.phase == "actions" and len(st2.order) == 6


def test_turns_are_deterministic():
    a = play_turn(seed=5)[2]
    b = play_turn(seed=5)[2]
    assert [to_json(dict(e.data)) for e in a] == [to_json(dict(e.data)) for e in b]
    # seeded draws (nothing entered) replay the same as well
    def seeded(seed):
        lt = lot(seed)
        st, ev = begin_turn(S, new_game(S, R), R, lt)
        return [to_json(dict(e.data)) for e in ev], [d for d in lt.log]
    assert seeded(3) == seeded(3)
    assert seeded(3)[0] != seeded(4)[0]


# --- after the audit: pirates, landings, naval bases, artworks, orphaned invaders ---------------
#
# The seed, "Naval Technology": "+25 in naval battles fought during the turn"; "Pirates": "1
# player's fleet will be attacked by pirates who will remain in that sea quadrant and attack every
# other fleet once per turn"; "Amphibious Attack": "If there is an enemy fleet in that sea quadrant
# a naval battle will take place"; "Naval Battle": "an enemy fleet ... that hasn't still be attacked
# by a preceding player"; "Actions": "Every building and military action must take place in a
# determined province".

#: Event numbers (the wheels' second) that touch no fleet: Good Harvest, Administrative Reforms...
QUIET = {"BA": [90, 80, 1, 2, 3], "CA": [89, 79, 4, 5, 6], "FI": [88, 78, 7, 8, 9], "GE": [87, 77, 10, 11, 12],
         "NA": [85, 76, 16, 17, 18]}


def _begin(fleets, romans_event, entered=None, rules=R):
    st = replace(new_game(S, rules), fleets=fleets, next_fleet=max(f.id for f in fleets) + 1)
    wheels = {1: {**QUIET, "MI": [86, romans_event, 13, 14, 15]}}
    return begin_turn(S, st, rules, lottery.lottery_for(rules, 7, wheels=wheels, entered=entered))


def test_naval_technology_counts_against_pirates_raiding_at_the_start_of_the_turn():
    raid = "naval/1/Mare Tyrrhenum/pirates 2 raid 1/"
    fleets = (Fleet(1, "Romans", "Mare Tyrrhenum"), Fleet(2, PIRATES, "Mare Tyrrhenum"))
    # Romans 30 + 25 (Naval Technology, number 57) = 55 against the pirates' 60: a draw, the fleet
    # stays (without the +25 it would lose by 30 and sink)
    st, ev = _begin(fleets, 57, {raid + "Romans": 30, raid + "Pirates": 60})
    (battle,) = [e for e in ev if e.kind == "naval_battle"]
    assert (battle.data["a_score"], battle.data["b_score"], battle.data["winner"]) == (60, 55, None)
    assert [f.id for f in st.fleets] == [1, 2]
    # the raid follows the events
    kinds = [e.kind for e in ev]
    assert kinds.index("naval_battle") > max(i for i, k in enumerate(kinds) if k == "random_event")
    # 30 v 50 is a draw too (55 v 50), and any other event leaves the plain numbers: 30 v 60 sinks it
    st, ev = _begin(fleets, 57, {raid + "Romans": 30, raid + "Pirates": 50})
    assert [e.data["winner"] for e in ev if e.kind == "naval_battle"] == [None]
    st, ev = _begin(fleets, 80, {raid + "Romans": 30, raid + "Pirates": 60})
    assert [e.data["winner"] for e in ev if e.kind == "naval_battle"] == [PIRATES] and [f.id for f in st.fleets] == [2]


def test_pirates_appearing_this_turn_fight_once_and_raid_the_others_from_the_next_turn():
    fleets = (Fleet(1, "Romans", "Mare Tyrrhenum"), Fleet(2, "Carthaginians", "Mare Tyrrhenum"))
    first = "naval/1/Mare Tyrrhenum/pirates 3/"
    drawn = {first + "Pirates": 40, first + "Romans": 40}            # the Pirates event (43): a draw
    st, ev = _begin(fleets, 43, drawn)
    battles_ = [e.data["why"] for e in ev if e.kind == "naval_battle"]
    assert battles_ == ["pirates 3"]                                   # no raid on fleet 1 again, none on 2 yet
    assert [(f.id, f.owner) for f in st.fleets] == [(1, "Romans"), (2, "Carthaginians"), (3, PIRATES)]
    # option pirates_raid_others "same_turn": they also raid the Carthaginian fleet now, not the Roman again
    same = rules_with({"options": {"pirates_raid_others": "same_turn"}})
    st, ev = _begin(fleets, 43, drawn, rules=same)
    assert [e.data["why"] for e in ev if e.kind == "naval_battle"] == ["pirates 3", "pirates 3 raid 2"]


def test_a_landing_marks_the_fleets_it_fought_as_attacked():
    fleets = (Fleet(1, "Carthaginians", "Mare Tyrrhenum"), Fleet(2, "Romans", "Mare Tyrrhenum"),
              Fleet(3, "Macedonians", "Mare Tyrrhenum"))
    st = acting(order=("Carthaginians", "Macedonians") + tuple(n for n in ORDER if n not in ("Carthaginians", "Macedonians")),
                fleets=fleets, next_fleet=4)
    key = "naval/1/Mare Tyrrhenum/landing Campania/"
    st, ev = battles.amphibious_attack(S, st, R, lot(entered={key + "Carthaginians": 40, key + "Romans": 30}),
                                       "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Campania")
    assert ev[-1].kind == "landing_aborted" and st.fleets_attacked == {2}
    st, _ = finish_actions(S, st, R, "Carthaginians")
    with pytest.raises(InputError, match="already attacked"):     # "hasn't still be attacked by a preceding player"
        battles.attack_fleets(S, st, R, lot(), "Macedonians", "Mare Tyrrhenum", "Romans")


def _ionium(extra=(), **changes):
    fleets = (Fleet(1, "Carthaginians", "Mare Ionium"), Fleet(2, PIRATES, "Mare Ionium")) + tuple(extra)
    return acting(order=("Carthaginians",) + tuple(n for n in ORDER if n != "Carthaginians"), fleets=fleets,
                  next_fleet=10, **changes)


def test_pirates_in_the_quadrant_fight_a_landing_on_an_independent_province():
    key = "naval/1/Mare Ionium/landing Epirus against Pirates/"
    # drawn (83 v 63): the pirates still hold the sea, the landing is aborted
    st, ev = battles.amphibious_attack(S, _ionium(), R, lot(entered={key + "Carthaginians": 83, key + "Pirates": 63}),
                                       "Carthaginians", "Sicilia", "Mare Ionium", "Epirus")
    assert [e.kind for e in ev] == ["naval_battle", "landing_aborted"] and st.attacks == ()
    # the pirates sunk (90 v 20): the landing goes on
    st, ev = battles.amphibious_attack(S, _ionium(), R, lot(entered={key + "Carthaginians": 90, key + "Pirates": 20}),
                                       "Carthaginians", "Sicilia", "Mare Ionium", "Epirus")
    assert [e.kind for e in ev] == ["naval_battle", "attack"] and st.attacks[0].target == "Epirus"
    # option landing_opposed_by "defender": only the holder's fleets fight (here none)
    only = rules_with({"options": {"landing_opposed_by": "defender"}})
    st, ev = battles.amphibious_attack(S, _ionium(), only, lot(), "Carthaginians", "Sicilia", "Mare Ionium", "Epirus")
    assert [e.kind for e in ev] == ["attack"]


def test_any_enemy_option_lets_a_third_nations_fleet_oppose_a_landing():
    third = (Fleet(3, "Ptolemaics", "Mare Ionium"),)
    base = {"naval/1/Mare Ionium/landing Epirus against Pirates/Carthaginians": 90,
            "naval/1/Mare Ionium/landing Epirus against Pirates/Pirates": 20}
    st, ev = battles.amphibious_attack(S, _ionium(third), R, lot(entered=base), "Carthaginians", "Sicilia",
                                       "Mare Ionium", "Epirus")
    assert [e.kind for e in ev] == ["naval_battle", "attack"]      # default: the Ptolemaic fleet looks on
    anyone = rules_with({"options": {"landing_opposed_by": "any_enemy"}})
    key = "naval/1/Mare Ionium/landing Epirus against Ptolemaics/"
    st, ev = battles.amphibious_attack(S, _ionium(third), anyone, lot(entered={**base, key + "Carthaginians": 50,
                                                                              key + "Ptolemaics": 50}),
                                       "Carthaginians", "Sicilia", "Mare Ionium", "Epirus")
    assert [e.data.get("b") for e in ev if e.kind == "naval_battle"] == [PIRATES, "Ptolemaics"]
    assert ev[-1].kind == "landing_aborted" and st.fleets_attacked == {2, 3}
    # a nation that imposed peace on the attacker this turn stays out of it
    st, ev = battles.amphibious_attack(S, _ionium(third, peace=frozenset({("Ptolemaics", "Carthaginians")})), anyone,
                                       lot(entered=base), "Carthaginians", "Sicilia", "Mare Ionium", "Epirus")
    assert ev[-1].kind == "attack"


def test_a_landing_needs_a_fleet_only_where_an_enemy_fleet_holds_the_sea():
    no_fleets = acting(order=("Carthaginians",) + tuple(n for n in ORDER if n != "Carthaginians"))
    # default (amphibious_needs_fleet false): no enemy fleet, no naval battle, the landing goes on
    st, ev = battles.amphibious_attack(S, no_fleets, R, lot(), "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Campania")
    assert [e.kind for e in ev] == ["attack"] and st.attacks[0].kind == "amphibious"
    # an enemy fleet there and none to fight it with: refused, no action spent
    held = replace(no_fleets, fleets=(Fleet(2, "Romans", "Mare Tyrrhenum"),), next_fleet=3)
    with pytest.raises(InputError, match="Romans' fleet holds Mare Tyrrhenum"):
        battles.amphibious_attack(S, held, R, lot(), "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Campania")
    # option amphibious_needs_fleet true: a fleet of its own is needed even on an empty sea
    needs = rules_with({"options": {"amphibious_needs_fleet": True}})
    with pytest.raises(InputError, match="has no fleet in Mare Tyrrhenum"):
        battles.amphibious_attack(S, no_fleets, needs, lot(), "Carthaginians", "Sicilia", "Mare Tyrrhenum", "Campania")


def test_a_naval_attack_needs_a_province_facing_the_quadrant_not_under_attack():
    order = ("Gauls", "Romans") + tuple(n for n in ORDER if n not in ("Gauls", "Romans"))
    numbers = {"naval/1/Mare Gallicum/attack/Gauls": 50, "naval/1/Mare Gallicum/attack/Romans": 50}
    st = acting(order=order, fleets=(Fleet(1, "Gauls", "Mare Gallicum"), Fleet(2, "Romans", "Mare Gallicum"),
                                     Fleet(3, "Gauls", "Mare Tyrrhenum"), Fleet(4, "Romans", "Mare Tyrrhenum")),
                next_fleet=5)
    bases = battles.naval_bases(S, st, "Gauls", "Mare Gallicum")
    assert bases and all("Mare Gallicum" in S.provinces[p].seas for p in bases)
    ok, _ = battles.attack_fleets(S, st, R, lot(entered=numbers), "Gauls", "Mare Gallicum", "Romans")
    assert ok.nations["Gauls"].used == 1
    # every such province assailed by another this turn: no base to act from
    assailed = replace(st, attacks=tuple(Attack(i + 1, "land", "Romans", p, "Gauls", base="Etruria")
                                         for i, p in enumerate(bases)))
    with pytest.raises(InputError, match="holds no province facing Mare Gallicum"):
        battles.attack_fleets(S, assailed, R, lot(), "Gauls", "Mare Gallicum", "Romans")
    # no Gallic province faces Mare Tyrrhenum: a fleet left there cannot attack ...
    with pytest.raises(InputError, match="holds no province facing Mare Tyrrhenum"):
        battles.attack_fleets(S, st, R, lot(), "Gauls", "Mare Tyrrhenum", "Romans")
    # ... unless option naval_needs_base is false
    free = rules_with({"options": {"naval_needs_base": False}})
    battles.attack_fleets(S, st, free, lot(), "Gauls", "Mare Tyrrhenum", "Romans")


def test_defensive_artworks_until_the_battles_or_in_the_own_turn():
    st = acting(order=("Romans", "Carthaginians") + tuple(n for n in ORDER if n not in ("Romans", "Carthaginians")))
    st, _ = _event("defensive_artworks", st, "Carthaginians")
    # default "battles": in another nation's turn, or once the battles are due
    assert building.place_artworks(S, st, R, "Carthaginians", "Sicilia")[0].nations["Carthaginians"].artworks == "Sicilia"
    assert building.place_artworks(S, replace(st, phase="battles", current=6), R, "Carthaginians", "Sicilia")[0]
    own = rules_with({"options": {"artworks_until": "own_turn"}})
    with pytest.raises(InputError, match="own turn"):
        building.place_artworks(S, st, own, "Carthaginians", "Sicilia")
    with pytest.raises(InputError, match="own turn"):
        building.place_artworks(S, replace(st, phase="battles", current=6), own, "Carthaginians", "Sicilia")
    st, _ = finish_actions(S, st, own, "Romans")
    assert building.place_artworks(S, st, own, "Carthaginians", "Sicilia")[0].nations["Carthaginians"].artworks == "Sicilia"


def test_the_artworks_step_is_refused_outside_the_own_turn_under_own_turn():
    from types import SimpleNamespace

    from bellica.engine.core.machine import StepRefused
    from bellica.engine.mare_nostrum.ruleset import MARE_NOSTRUM
    from bellica.engine.mare_nostrum.status import require as _require

    class Snap:
        tables = {"mn_nations_state": {}, "mn_results": {}, "mn_attacks": {}, "mn_game": {}}

        def __init__(self, phase, stage):
            self.values = {"round": 1, "phase": phase, "stage": stage, "winner": None}

        def campaign(self, key):
            return self.values[key]

    own = SimpleNamespace(ruleset=MARE_NOSTRUM, rules=rules_with({"options": {"artworks_until": "own_turn"}}))
    anytime = SimpleNamespace(ruleset=MARE_NOSTRUM, rules=R)
    for c in (own, anytime):
        _require(c, Snap("actions", "Romans"), "artworks", "Romans")
    _require(anytime, Snap("actions", "Romans"), "artworks", "Carthaginians")
    _require(anytime, Snap("battles", ""), "artworks")
    with pytest.raises(StepRefused, match="turn to act"):
        _require(own, Snap("actions", "Romans"), "artworks", "Carthaginians")
    with pytest.raises(StepRefused, match="battles phase"):
        _require(own, Snap("battles", ""), "artworks")


def test_invaders_of_a_nation_whose_manager_left_are_played_by_the_umpire():
    st = acting()
    st, _ = _event("invasion", st, "Romans", (1, 37, 46))             # Apulia's Samnites, played by the Gauls
    assert battles.battle_terms(S, st, R, st.attacks[0])["attacker_played_by"] == "Gauls"
    gone = st.with_nation("Gauls", out="collapse", out_turn=1)
    assert battles.battle_terms(S, gone, R, gone.attacks[0])["attacker_played_by"] == battles.UMPIRE == "umpire"
    st2, ev = _event("invasion", acting().with_nation("Gauls", out="collapse", out_turn=1), "Romans", (1, 37, 46))
    assert "played by umpire" in ev[-1].text


def test_rules_that_rename_the_pirates_play_a_raid_under_the_new_name():
    # a scenario's [rules] (or a variant file) renames the event: its fleets, battles and lottery
    # labels carry the new name, and the shipped name means nothing any more
    assert PIRATES == "Pirates"
    corsairs = rules_with({"events": {"pirates": {"title": "Cilician Corsairs"}}})
    assert pirates_name(corsairs) == "Cilician Corsairs" and corsairs.event_by_key("pirates").low == R.event_by_key("pirates").low
    fleets = (Fleet(1, "Romans", "Mare Tyrrhenum"), Fleet(2, "Carthaginians", "Mare Tyrrhenum"))
    first = "naval/1/Mare Tyrrhenum/pirates 3/"
    st, ev = _begin(fleets, 43, {first + "Cilician Corsairs": 40, first + "Romans": 40}, rules=corsairs)
    assert [(f.id, f.owner) for f in st.fleets] == [(1, "Romans"), (2, "Carthaginians"), (3, "Cilician Corsairs")]
    assert [e.data["a"] for e in ev if e.kind == "naval_battle"] == ["Cilician Corsairs"]
    # the next turn they raid both fleets; 80 against 10 and 20: both sink
    st = replace(st, turn=2)
    raid = "naval/2/Mare Tyrrhenum/pirates 3 raid "
    numbers = {raid + "1/Cilician Corsairs": 80, raid + "1/Romans": 10,
               raid + "2/Cilician Corsairs": 80, raid + "2/Carthaginians": 20}
    st2, ev = events.pirate_raids(S, st, corsairs, lot(entered=numbers))
    assert sorted((e.data["why"], e.data["winner"]) for e in ev if e.kind == "naval_battle") == [
        ("pirates 3 raid 1", "Cilician Corsairs"), ("pirates 3 raid 2", "Cilician Corsairs")]
    assert [(f.id, f.owner) for f in st2.fleets] == [(3, "Cilician Corsairs")]
    # under the shipped rules that fleet is some stranger's, not the pirates': it raids nobody
    assert events.pirate_raids(S, st, R, lot(entered=numbers))[1] == []
    # and a landing meets them as pirates (option landing_opposed_by "defender_and_pirates")
    landing = rules_with({"events": {"pirates": {"title": "Cilician Corsairs"}},
                          "options": {"landing_opposed_by": "defender_and_pirates"}})
    ionium = replace(st, fleets=(Fleet(3, "Cilician Corsairs", "Mare Ionium"),))
    assert [o for o, _f in battles.landing_opponents(S, ionium, landing, "Carthaginians", "Mare Ionium", "Epirus")] == [
        "Cilician Corsairs"]
