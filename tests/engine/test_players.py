"""Engine players (engine/core/players.py, engine/vae_victis/bots.py): a bot sees only its seat,
answers through the declared steps a person takes, is validated, sealed and logged like a person,
draws from the campaign's seeded source, and replays under re-adjudication."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bellica.engine.core import players
from bellica.engine.core.players import Answer, play_bots, play_seat, seat_for, set_seats
from bellica.engine.core.readjudicate import readjudicate
from bellica.engine.core.sealed import log_view
from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.model import ArmyOrders
from bellica.engine.vae_victis.orders import IllegalOrderError
from tests.bounds import examples
from tests.engine.test_rounds import FIELD, started

#: FIELD with a second Carthaginian town (one army per faction per starting point) and a town of nobody.
TOWNS = [*FIELD, ("Cales", "town", "3 3 3 5", "carthago"), ("Cumae", "town", "1 1", None)]
PLACED = ((1, "carthago", "Capua"), (2, "carthago", "Cales"), (9, "roma", "Roma"), (10, "roma", "Ostia"))


def field(path=None, seed=None):
    c, m = started(placements=PLACED, structures=TOWNS, path=path)
    if seed is not None:  # started() starts with seed 11: start again with this one
        from bellica.engine.core import state as st

        st.drop_state_tables(c.con, c.ruleset.schema)
        c.start(seed=seed)
    return c, m


def play_round(c, *, results=True):
    """Bots give initiative and orders, then movement, each engagement a draw, administration, victory."""
    play_bots(c)
    rounds.publish_initiative(c)
    play_bots(c)
    rounds.run_movement(c)
    for number, _b, a, b, _assault, _done in rounds.round_status(c).engagements:
        rounds.record_result(c, number, {x: ("draw", 10) for x in (a, b) if x is not None})
    rounds.run_administration(c)
    rounds.run_victory(c)


def test_the_seat_holds_the_view_the_open_steps_and_a_labelled_source():
    c, _ = field()
    seat = seat_for(c, "carthago", "heuristic")
    assert seat.view.viewer == "carthago" and seat.faction == "carthago"
    assert {a.name for a in seat.actions} >= {"initiative", "orders"}
    at = c.con.execute("SELECT max(seq) FROM events").fetchone()[0]
    assert seat.label == ("bot", "heuristic", "carthago", 1, "orders", "initiative", at)
    again = seat_for(c, "carthago", "heuristic")
    assert seat.rng.random() == again.rng.random()  # the same label, the same draws
    # Nothing in the seat can open the campaign file: no connection, no Campaign.
    names = {type(getattr(seat, f.name)).__name__ for f in dataclasses.fields(seat)}
    assert not names & {"Campaign", "DuckDBPyConnection"}
    assert {f.name for f in dataclasses.fields(seat.aid)} == {"board", "superiority", "navy_rest"}


def test_a_bot_cannot_read_the_other_sides_sealed_orders():
    c, _ = field()
    rounds.publish_initiative(c)
    rounds.submit_orders(c, {9: ArmyOrders(9, moves=(1, 1, 3, 5)), 10: ArmyOrders(10, moves=(9,))}, faction="roma")
    seat = seat_for(c, "carthago", "heuristic")
    text = json.dumps([seat.view.status, [[dict(f.properties) for f in layer.features] for layer in seat.view.layers]],
                      default=str)
    assert "1 1 3 5" not in text, text[max(0, text.find("1 1 3 5") - 200):text.find("1 1 3 5") + 20]
    assert seat.view.status["submitted"] == {"roma": (9, 10)}  # who has submitted, never what


class Fixed:
    """A bot answering what it is given (to show the steps refuse a bot as they refuse a person)."""

    def __init__(self, *answers):
        self.answers = answers

    def decide(self, seat):
        return list(self.answers)


def test_a_bots_orders_take_the_persons_path(monkeypatch):
    c, _ = field()
    rounds.publish_initiative(c)
    kinds = {"fixed": lambda: Fixed(Answer("orders", {"moves": ["1=9 9", "2="]}, ("to the west",)))}
    monkeypatch.setattr(type(c.ruleset), "bots", lambda self: kinds)
    before = len(c.events())
    played = play_seat(c, "carthago", "fixed")
    stored = [e for e in c.events()[before:]]
    assert [e.kind for e in stored] == ["put_orders", "put_orders", "bot_note"]
    assert stored[0].data["moves"] == "9 9" and stored[0].data["submitted_by"] == "carthago"  # as `--faction carthago`
    assert played.told == ("orders stored (sealed) for armies 1, 2",)
    # Illegal orders are refused with the person's error, and nothing of them is stored.
    kinds["fixed"] = lambda: Fixed(Answer("orders", {"moves": ["1=9 9", "9=1"]}))
    n = len(c.events())
    with pytest.raises(IllegalOrderError, match="army 9 is not in carthago"):
        play_seat(c, "carthago", "fixed")
    assert len(c.events()) == n
    kinds["fixed"] = lambda: Fixed(Answer("publish", {}))
    with pytest.raises(Exception, match="not open to it now"):
        play_seat(c, "carthago", "fixed")


def test_a_bot_seat_needs_a_known_kind():
    c, _ = field()
    with pytest.raises(Exception, match="played by a person"):
        play_seat(c, "carthago")
    with pytest.raises(Exception, match="no bot 'clever'"):
        play_seat(c, "carthago", "clever")
    with pytest.raises(Exception, match="no bot 'clever'"):
        players.parse_seats(["carthago=clever"], ["carthago", "roma"], ["random", "heuristic"])
    assert players.parse_seats(["Carth=Heuristic", "roma=person"], ["carthago", "roma"], ["heuristic"]) == {
        "carthago": "heuristic", "roma": None}
    assert set_seats(c, {"carthago": "random"}) == ["carthago: played by the random bot"]
    assert set_seats(c, {"carthago": "random"}) == []  # no change, no row
    set_seats(c, {"carthago": None, "roma": "heuristic"})
    assert players.seats(c.con) == {"roma": "heuristic"}


def test_random_bots_give_legal_orders_over_many_seeds():
    for seed in range(examples(12)):
        c, _ = field(seed=seed)
        set_seats(c, {"carthago": "random", "roma": "random"})
        play_round(c)  # any illegal order would be refused: the round would stop with the error
        orders = c.con.execute("SELECT count(*) FROM orders WHERE round = 1 AND moves IS NOT NULL").fetchone()[0]
        assert orders == 4 and c.snapshot().campaign("round") == "2"


def test_the_heuristic_says_why_in_the_log_sealed_like_its_orders():
    c, m = field()
    set_seats(c, {"carthago": "heuristic"})
    play_bots(c)
    rounds.publish_initiative(c)
    [played] = play_bots(c)
    reasons = played.answers[0].reasons
    assert len(reasons) == 2 and all(r.startswith(("army 1 ", "army 2 ")) for r in reasons)
    assert any("marches on" in r and "weakest structure in reach" in r for r in reasons), reasons
    note = [e for e in c.events() if e.kind == "bot_note"][-1]
    assert note.text.startswith("carthago, played by the heuristic bot: army 1 ")
    assert note.data["label"][:6] == ["bot", "heuristic", "carthago", 1, "orders", "moves"]
    # Sealed from Roma and the umpire until the reveal; Carthago reads its own.
    for viewer, sealed in (("roma", True), (None, True), ("carthago", False)):
        line = [x for x in log_view(c, viewer=viewer) if x.event.kind == "bot_note"][-1]
        assert line.sealed is sealed and ("marches on" in line.text) is not sealed
    rounds.submit_orders(c, {9: ArmyOrders(9), 10: ArmyOrders(10)}, faction="roma")  # the reveal
    assert not [x for x in log_view(c, viewer="roma") if x.event.kind == "bot_note"][-1].sealed


def test_the_heuristic_secures_a_threatened_structure():
    from bellica.engine.vae_victis.bots_board import Aid, public_state
    from bellica.engine.vae_victis.bots_plans import plan_armies

    c, m = field()
    rounds.publish_initiative(c)
    view = c.ruleset.player_view(c, "roma")
    pos = public_state(view, Aid(c.board))
    calm = plan_armies(c.board, pos)
    assert "marches on" in calm[10].reason  # nobody near Ostia: its army marches
    # A Carthaginian army two hexes from Ostia: army 10 holds it rather than march away.
    near = dataclasses.replace(pos.state, armies=tuple(
        dataclasses.replace(a, cell=m.cell("9 9 1 1")) if a.id == 2 else a for a in pos.state.armies))
    plans = plan_armies(c.board, dataclasses.replace(pos, state=near))
    assert plans[10].reason.startswith("army 10 holds Ostia") and "enemy army 2 near it" in plans[10].reason
    assert plans[10].moves == ()


def test_bots_replay_under_readjudication_and_repeat(tmp_path):
    logs = []
    for i in range(2):
        path = tmp_path / f"c{i}.duckdb"
        c, _ = field(path=path)
        set_seats(c, {"carthago": "heuristic", "roma": "random"})
        play_round(c)
        logs.append([(e.kind, e.data, e.text) for e in c.events()])
        c.close()
    assert logs[0] == logs[1]  # same seed, same seats: the same log
    assert sum(1 for kind, _d, _t in logs[0] if kind == "bot_note") == 4
    assert readjudicate(tmp_path / "c0.duckdb") > 10


def test_the_umpire_page_marks_bot_seats():
    c, _ = field()
    set_seats(c, {"carthago": "heuristic"})
    (submitted,) = [s for s in c.ruleset.page_sections(c, None) if s.id == "submitted"]  # the umpire's page's table
    factions = [row[0] for row in submitted.rows]
    assert "carthago (bot: heuristic)" in factions and not any(f.startswith("roma (bot") for f in factions)


def test_a_navy_sails_or_waits_and_may_debark_never_marches():
    from bellica.engine.vae_victis.bots import debark_wishes
    from bellica.engine.vae_victis.bots_board import Aid, public_state
    from bellica.engine.vae_victis.bots_plans import plan_armies

    c, m = field()
    view = c.ruleset.player_view(c, "roma")
    pos = public_state(view, Aid(c.board))
    at_sea = dataclasses.replace(pos.state, armies=tuple(
        dataclasses.replace(a, cell=m.cell("9 9 9")) if a.id == 10 else a for a in pos.state.armies))
    plan = plan_armies(c.board, dataclasses.replace(pos, state=at_sea))[10]
    here = m.cell("9 9 9")
    for clock in plan.moves:  # every move of a navy's plan stays on Coast or Sea hexes
        here = c.board.sides[here][clock]
        assert c.board.hexes[here].kind in ("coast", "sea"), plan
    assert plan.reason.startswith(("army 10 sails on", "navy 10 waits", "army 10 stands")), plan
    view_at_sea = dataclasses.replace(view, layers=tuple(
        dataclasses.replace(layer, features=tuple(
            dataclasses.replace(f, properties={**f.properties, "cell": m.cell("9 9 9")}) if f.properties.get("id") == 10
            else f for f in layer.features)) if layer.name == "armies" else layer for layer in view.layers))
    wishes = debark_wishes(c.board, view_at_sea, Aid(c.board))
    assert list(wishes) == [10] and c.board.hexes[c.board.sides[m.cell("9 9 9")][wishes[10]]].kind == "land"


def test_a_random_player_of_declared_steps_plays_a_stepped_ruleset(tmp_path, monkeypatch):
    """RandomSteps on the Trossian campaign: each step drawn among the offered values, what a step
    refuses drawn again, only accepted steps in the log, and the log re-adjudicates."""
    from bellica.cli import main
    from bellica.engine.core.campaign import Campaign
    from tests.engine.trossian.campaign_file import fresh_campaign

    path = fresh_campaign(tmp_path / "base", tmp_path / "t.duckdb")
    for step in ("start", "next"):
        try:
            main(["trossian", step, str(path)])
        except SystemExit as done:
            assert done.code in (0, None)
    with Campaign.open(path) as c:
        monkeypatch.setattr(type(c.ruleset), "bots", lambda self: {"random": players.RandomSteps})
        nation = c.ruleset.factions(c)[-1]
        set_seats(c, {nation: "random"})
        taken = [play_seat(c, nation) for _ in range(3)]
        assert len({p.label for p in taken}) == 3  # each step draws afresh (the log grew)
        assert any(p.answers for p in taken)
        for p in taken:
            for a in p.answers:
                assert a.action in {x.name for x in c.ruleset.actions()} and a.reasons[0].startswith("drew ")
    assert readjudicate(path) > 2


def test_the_demos_solo_round_wants_the_demos_round_2(tmp_path):
    from bellica.demo import SOLO_BOT, run_solo_round
    from bellica.geo.errors import InputError

    assert SOLO_BOT == {"Carthago": "heuristic"}
    path = tmp_path / "c.duckdb"
    c, _ = field(path=path)
    c.close()
    with pytest.raises(InputError, match="not at the start of round 2"):
        run_solo_round(path)
