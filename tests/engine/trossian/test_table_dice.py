"""Dice rolled at the table (issue 22): the umpire's ``roll`` step enters any die of the rules under
its label (a card schedule's, a courier's, a battle's attrition, a sea fight's), every later roll
of that label is the entered face ("(entered)" in the dice event), a nation's secret die stays
sealed from the others, and the campaign re-adjudicates from its scenario."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.sealed import log_view
from bellica.engine.trossian.ruleset import act, engine_step, enter_roll
from bellica.demo_trossian import DEMO_SEED, ORDERS
from bellica.geo.errors import InputError
from tests.engine.trossian.campaign_file import fresh_campaign

NATIONS = ("Russia", "Ottoman Porte", "Danubian Principalities", "Crimean Khanate")


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("trossian-table-dice")


def _rolls(c) -> dict[str, tuple[int, bool]]:
    return {r["label"]: (r["value"], r["entered"]) for e in c.events() if e.kind == "dice" for r in e.data["rolls"]}


def _orders(c):
    for nation in NATIONS:
        for step, arg in ORDERS.get(nation, ()):
            act(c, step, nation, **arg)
        act(c, "done", nation)


def test_a_card_die_and_a_courier_die_entered_at_the_table(base_dir, tmp_path):
    seen = fresh_campaign(base_dir, tmp_path / "seen.duckdb")
    with Campaign.open(seen) as c:  # the seed's dice, to know the labels the phase rolls
        c.start(seed=DEMO_SEED)
        engine_step(c, "begin")
        _orders(c)
        engine_step(c, "resolve")
        drawn = _rolls(c)
    card = "cards/1806/Russia/0"
    couriers = [k for k in drawn if k.startswith("courier/") and k.endswith("/pass")]
    assert card in drawn and couriers, sorted(drawn)
    other = lambda k, sides: drawn[k][0] % sides + 1  # noqa: E731  a face the seed did not give

    path = fresh_campaign(base_dir, tmp_path / "c.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=DEMO_SEED)
        rules = c.rules
        enter_roll(c, "CARDS/1806/russ/0", other(card, rules.cards.die))  # any case, a unique beginning
        engine_step(c, "begin")
        courier = couriers[0]
        enter_roll(c, courier, other(courier, rules.couriers.die))
        enter_roll(c, courier, other(courier, rules.couriers.die))  # entered again: replaced, not refused
        _orders(c)
        engine_step(c, "resolve")
        rolls = _rolls(c)
        assert rolls[card] == (other(card, rules.cards.die), True)
        assert rolls[courier] == (other(courier, rules.couriers.die), True)
        # Russia's card schedule is Russia's secret: the die entered for it is sealed from the Porte.
        porte = json.dumps([ln.data for ln in log_view(c, viewer="Ottoman Porte")])
        assert "cards/1806/Russia/0" not in porte
        russia = json.dumps([ln.data for ln in log_view(c, viewer="Russia")])
        assert "cards/1806/Russia/0" in russia
        with pytest.raises(InputError, match="give one the rules roll"):
            enter_roll(c, "dogs/1806/1", 3)
        with pytest.raises(InputError, match="is not this year"):
            enter_roll(c, "attrition/1805/1/2/3", 3)
        with pytest.raises(InputError, match="from 1 to 6"):
            enter_roll(c, "attrition/1806/1/2/3", 7)
        with pytest.raises(InputError, match="did you mean"):
            enter_roll(c, "cards/1807/Rusia/0", 3)
        c.verify()
    assert readjudicate(path)


def test_the_umpire_applies_a_card_he_rules(base_dir, tmp_path):
    # issue 22: a card "the umpire rules on" could not be applied; `ruling` applies it as one of
    # the engine's effects, its random pick a card-effect die entered at the table.
    from bellica.engine.trossian.ruleset import apply_ruling, state_of

    path = fresh_campaign(base_dir, tmp_path / "c.duckdb")
    with Campaign.open(path) as c:
        c.start(seed=DEMO_SEED)
        before = sum(state_of(c.snapshot()).nations["Russia"].bank.values())
        events = apply_ruling(c, "russ", "spy", "windf", ap=5, words="the merchant sells the secret")
        assert sum(state_of(c.snapshot()).nations["Russia"].bank.values()) == before + 5
        assert any("the umpire rules on 'A Merchant Who Talks' for Russia: windfall (the merchant sells the secret)"
                   in e.text for e in events)
        armies = [a.id for a in state_of(c.snapshot()).armies if a.nation == "Ottoman Porte" and not a.aboard]
        enter_roll(c, f"card-effect/1806/0/porte/spy/army", len(armies))  # the last of its armies ashore
        apply_ruling(c, "Ottoman Porte", "spy", "mud")
        stuck = [a for a in state_of(c.snapshot()).armies if a.nation == "Ottoman Porte" and a.rest]
        assert [a.id for a in stuck] == [armies[-1]]
        with pytest.raises(InputError, match="give the units raised"):
            apply_ruling(c, "Russia", "spy", "levy")
        with pytest.raises(InputError, match="not a card of this campaign"):
            apply_ruling(c, "Russia", "atlantis", "mud")
        c.verify()
    assert readjudicate(path)
