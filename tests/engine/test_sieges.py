"""Sieges with the seed's numbers: Ravenna (Resilience 4) and Hipponium (-1)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bellica.engine.vae_victis.battles import Engagement, EngagementResult
from bellica.engine.vae_victis.logistics import logistics_for
from bellica.engine.vae_victis.model import Siege
from bellica.engine.vae_victis.sieges import SiegeInputs, resolve_sieges, siege_refusal, start_resilience
from bellica.geo.errors import InputError
from tests.engine.boards import sketch

RING = ["1", "3", "5", "7"]  # land hexes around Ravenna for up to four besiegers


@pytest.fixture(scope="module")
def ravenna():
    return sketch(
        radius=4,
        terrain={"": "marshes", "3 3 3": "farmlands"},
        water={"9": "coast", "9 9": "sea", "9 11": "sea", "9 7": "sea"},
        structures=[
            ("Ravenna", "city", "", "carthago"),
            ("Hipponium", "town", "11", "carthago"),
            ("Roma", "city", "3 3 3", "roma", True),
        ],
    )


def test_start_resilience_seed_examples(ravenna):
    value, parts = start_resilience(ravenna.board, "Ravenna")
    assert value == 4 and dict(parts) == {"city": 2, "marshes": 1, "adjacent to coast": 1}
    value, parts = start_resilience(ravenna.board, "Hipponium")  # town, farmlands, next to the coast hex "9"
    assert value == -1


def rounds_to_fall(m, n: int) -> int:
    ids = list(range(9, 9 + n))
    state = m.state([(i, "roma", RING[k]) for k, i in enumerate(ids)])
    state, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state, start_requests={i: "Ravenna" for i in ids}))
    assert state.siege_of("Ravenna").resilience == 4
    for rnd in range(1, 10):
        start = replace(state, round=rnd)
        state, events = resolve_sieges(m.board, start, SiegeInputs(start_state=start))
        if state.control["Ravenna"] == "roma":
            assert state.siege_of("Ravenna") is None
            assert any(e.kind == "control_changed" and e.data["how"] == "siege" for e in events)
            return rnd
    raise AssertionError("never fell")


@pytest.mark.parametrize("armies, rounds", [(1, 4), (2, 2), (3, 2), (4, 1)])
def test_ravenna_falls_after_4_2_2_1_rounds(ravenna, armies, rounds):
    assert rounds_to_fall(ravenna, armies) == rounds


def test_resilience_at_or_below_zero_still_needs_a_full_round(ravenna):
    m = ravenna
    state = m.state([(9, "roma", "11 11")])
    state, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state, start_requests={9: "Hipponium"}))
    assert state.control["Hipponium"] == "carthago" and state.siege_of("Hipponium").resilience == -1
    state, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state))
    assert state.control["Hipponium"] == "roma"


def test_start_refusals(ravenna):
    m = ravenna
    state = m.state([(9, "roma", "1"), (1, "carthago", "5"), (10, "roma", "3 3 3")])
    assert "also in the ZoC of army 1" in siege_refusal(m.board, state, 9, "Ravenna")
    assert "own faction" in siege_refusal(m.board, state, 10, "Roma")
    with pytest.raises(InputError):
        resolve_sieges(m.board, state, SiegeInputs(start_state=state, start_requests={9: "Ravenna"}))
    other = m.state([(9, "roma", "1")], sieges=[Siege("Ravenna", "syracusae", (5,), 3, 4, 1)])
    assert "one faction at a time" in siege_refusal(m.board, other, 9, "Ravenna")


def test_attrition_beyond_12_mp_and_blockade(ravenna):
    m = ravenna
    # Roma's lines are Roma itself, a few hexes of farmlands from army 9: within 12 MP, no attrition.
    state = m.state([(9, "roma", "1")], sieges=[Siege("Ravenna", "roma", (9,), 4, 4, 1)])
    lg = logistics_for(m.board, state)
    new, events = resolve_sieges(m.board, state, SiegeInputs(start_state=state, logistics=lg, blockaded=frozenset({"Ravenna"})))
    # blockaded: 4 - 1 = 3 before the reduction
    progress = next(e for e in events if e.kind == "siege_progress")
    assert progress.data["resilience_before"] == 3 and progress.data["resilience_after"] == 2
    assert lg.army_distance[9] <= 12 and new.army(9).strength == 1600
    far = resolve_sieges(m.board, state, SiegeInputs(start_state=state, logistics=None))[0]
    assert far.army(9).strength == 1600 - 40  # no lines at all: 10 x Resilience 4


def test_lift_take_over_and_surrender(ravenna):
    m = ravenna
    besieged = [Siege("Ravenna", "syracusae", (5,), 3, 4, 1)]
    # The Syracusan besieger is gone (removed after a lost battle); a Roman army has Ravenna in its ZoC.
    state = m.state([(9, "roma", "1")], sieges=besieged)
    lifted, ev = resolve_sieges(m.board, state, SiegeInputs(start_state=state))
    assert lifted.siege_of("Ravenna") is None and ev[0].kind == "siege_lifted"
    taken, ev = resolve_sieges(m.board, state, SiegeInputs(start_state=state, take_overs=frozenset({"Ravenna"})))
    assert taken.siege_of("Ravenna").faction == "roma" and taken.siege_of("Ravenna").resilience == 3
    surrendered, ev = resolve_sieges(m.board, taken, SiegeInputs(start_state=taken, surrenders=frozenset({"Ravenna"})))
    change = [e for e in ev if e.kind == "control_changed"][-1]
    assert surrendered.control["Ravenna"] == "roma" and change.data["surrendered"] is True


def test_assaults(ravenna):
    m = ravenna
    state = m.state([(9, "roma", "1"), (10, "roma", "3")], sieges=[Siege("Ravenna", "roma", (9, 10), 4, 4, 1)])
    es = (Engagement(1, 1, 9, None, "Ravenna"),)
    won, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state, engagements=es,
                                                        results=(EngagementResult(1, 9, "win", 20),)))
    assert won.control["Ravenna"] == "roma"
    drawn, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state, engagements=es,
                                                          results=(EngagementResult(1, 9, "draw", 20),)))
    assert drawn.control["Ravenna"] == "carthago" and drawn.siege_of("Ravenna").resilience == 2
    lost, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state, engagements=es,
                                                         results=(EngagementResult(1, 9, "loss", 20),)))
    assert lost.siege_of("Ravenna").armies == (10,) and lost.siege_of("Ravenna").resilience == 3


def test_besieging_faction_continues_siege_at_current_resilience(ravenna):
    # Seed: a siege is lifted only once no army but the controller's has the structure in its
    # ZoC.  Roman army 9, Ravenna's besieger (Resilience down to 3 of 4), was removed after a lost
    # battle; Roman army 10 stands 1 hex from Ravenna.  Roma may go on at Resilience 3 (it used
    # to be lifted, so a new siege would start again at 4).
    m = ravenna
    state = m.state([(10, "roma", "3")], sieges=[Siege("Ravenna", "roma", (9,), 3, 4, 1)])
    lifted, ev = resolve_sieges(m.board, state, SiegeInputs(start_state=state))
    assert lifted.siege_of("Ravenna") is None and ev[0].kind == "siege_lifted"
    kept, ev = resolve_sieges(m.board, state, SiegeInputs(start_state=state, take_overs=frozenset({"Ravenna"})))
    siege = kept.siege_of("Ravenna")
    assert (siege.faction, siege.armies, siege.resilience, siege.start_resilience) == ("roma", (10,), 3, 4)
    assert ev[0].kind == "siege_taken_over" and "continues the siege of Ravenna" in ev[0].text
    # the next round army 10 has besieged the full round: 3 -> 2
    nxt = replace(kept, round=kept.round + 1)
    after, _ = resolve_sieges(m.board, nxt, SiegeInputs(start_state=nxt))
    assert after.siege_of("Ravenna").resilience == 2


def test_former_besieger_that_left_the_zoc_does_not_keep_the_siege(ravenna):
    # Army 9 walked out of Ravenna's ZoC and back: it lifted its siege by moving away, so the
    # siege is lifted even when Roma asks to continue it; a new one would start at 4 again.
    m = ravenna
    state = m.state([(9, "roma", "1")], sieges=[Siege("Ravenna", "roma", (9,), 3, 4, 1)])
    away = (m.cell("1"), m.cell("1 1"), m.cell("1"))
    out, ev = resolve_sieges(m.board, state, SiegeInputs(start_state=state, paths={9: away},
                                                         take_overs=frozenset({"Ravenna"})))
    assert out.siege_of("Ravenna") is None and ev[0].kind == "siege_lifted"
    again, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state, paths={9: away},
                                                          start_requests={9: "Ravenna"}))
    assert again.siege_of("Ravenna").resilience == 4


def test_attrition_is_10_x_resilience_before_reduction_only_from_1(ravenna):
    m = ravenna
    # beyond 12 MP of the lines (no lines at all): Resilience 2 costs 20 FP, then drops to 1
    state = m.state([(9, "roma", "1")], sieges=[Siege("Ravenna", "roma", (9,), 2, 4, 1)])
    out, events = resolve_sieges(m.board, state, SiegeInputs(start_state=state))
    assert out.army(9).strength == 1600 - 20 and out.siege_of("Ravenna").resilience == 1
    assert next(e for e in events if e.kind == "siege_attrition").data["fp"] == 20
    # blockaded, Ravenna's 2 counts as 1: 10 FP, and the siege succeeds (1 - 1 = 0 < 1)
    out, _ = resolve_sieges(m.board, state, SiegeInputs(start_state=state, blockaded=frozenset({"Ravenna"})))
    assert out.army(9).strength == 1600 - 10 and out.control["Ravenna"] == "roma"
    # Hipponium at -1: no attrition at all (only from Resilience 1 up)
    state = m.state([(9, "roma", "11 11")], sieges=[Siege("Hipponium", "roma", (9,), -1, -1, 1)])
    out, events = resolve_sieges(m.board, state, SiegeInputs(start_state=state))
    assert out.army(9).strength == 1600 and not any(e.kind == "siege_attrition" for e in events)
    assert out.control["Hipponium"] == "roma"


def test_a_blockade_lowers_ravennas_resilience_from_4_to_3(ravenna):
    # Seed, "Start of a siege": "If Ravenna already at the start of the siege is blockaded, its Resilience
    # level is reduced by -1, from 4 to 3"; once the blockade ceases the -1 no longer applies.
    from bellica.engine.vae_victis.sieges import effective_resilience

    rules = ravenna.board.rules.sieges
    siege = Siege("Ravenna", "roma", (9,), 4, 4, 1)
    assert effective_resilience(siege, True, rules) == 3
    assert effective_resilience(siege, False, rules) == 4
