"""The core's part of the stepped rulesets' bots (engine/core/players.py): the seal of the reasons
(a faction's own at once, everyone's once the round is over), a ranked player taking its next
choice when a step refuses one, and the umpire's ``bots`` step refusing a campaign without bots in
one line naming the fix."""

from __future__ import annotations

from bellica.engine.core.players import NOTE_KIND, Answer, NoteSeal, RandomSteps, Ranked, Seat, reads_offers


class _Snap:
    def __init__(self, **position):
        self.position = {k: str(v) for k, v in position.items()}

    def campaign(self, key, default=None):
        return self.position.get(key, default)


NOTE = {"faction": "Syracuse", "bot": "heuristic", "round": 2, "label": [], "steps": ["move"],
        "reasons": ["command 36 marches on Acrae"]}


def test_a_note_is_its_faction_s_at_once_and_everyone_s_after_its_round():
    seal = NoteSeal(None)
    now = _Snap(round=2, phase="movement")
    assert not seal.hides("Syracuse", NOTE_KIND, NOTE, now)
    assert seal.hides("Carthage", NOTE_KIND, NOTE, now) and seal.hides(None, NOTE_KIND, NOTE, now)
    assert not seal.hides("Carthage", NOTE_KIND, NOTE, _Snap(round=3, phase="movement"))
    assert not seal.hides(None, NOTE_KIND, NOTE, _Snap(round=2, phase="over"))
    assert seal.public(NOTE) == {"faction": "Syracuse", "bot": "heuristic", "round": 2}
    assert "Acrae" not in seal.text(NOTE) and "Syracuse" in seal.text(NOTE)
    assert not seal.hides("Carthage", "put_row", {"table": "x"}, now)  # a ruleset without a seal of its own


def test_a_note_seal_keeps_the_ruleset_s_own_seal():
    class Inner:
        def hides(self, viewer, kind, data, snap):
            return kind == "step" and viewer != data.get("side")

        def public(self, data):
            return {"sealed": True}

        def text(self, data):
            return "a sealed order"

        opened = "the inner seal's"

    seal = NoteSeal(Inner())
    now = _Snap(round=1)
    assert seal.hides("Carthage", "step", {"side": "Syracuse"}, now)
    assert not seal.hides("Syracuse", "step", {"side": "Syracuse"}, now)
    assert seal.public({"side": "Syracuse"}) == {"sealed": True} and seal.text({}) == "a sealed order"
    assert seal.opened == "the inner seal's"


def test_a_ranked_player_takes_its_next_choice_when_one_is_refused():
    first, second = Answer("move", {"command": "36"}, ("first",)), Answer("end-movement", {}, ("second",))

    class Two(Ranked):
        def candidates(self, seat):
            return [[first], [], [second]]  # an empty choice is no choice

    seat = _seat(actions=("move", "end-movement"))
    player = Two()
    assert player.decide(seat) == [first]
    assert player.decide(seat) == [second]
    assert player.decide(seat) == []


def test_a_ranked_player_ranks_nothing_without_a_step_open_or_an_aid():
    asked = []

    class Eager(Ranked):
        def candidates(self, seat):
            asked.append(seat.faction)
            return [[Answer("end-movement", {}, ("ends",))]]

    assert Eager().decide(_seat(actions=())) == []  # not its turn: nothing to rank
    assert Eager().decide(_seat(actions=("end-movement",), aid=None)) == []  # a campaign not started
    assert asked == []
    assert Eager().decide(_seat(actions=("end-movement",))) == [Answer("end-movement", {}, ("ends",))]
    assert asked == ["Syracuse"]
    # A ranking never reads the values offered, so its seat is built without asking for them; a random player reads them.
    assert not reads_offers(Eager()) and reads_offers(RandomSteps())


def _seat(actions, aid="board"):
    """A seat with the declared steps named ``actions`` open (only their names are read here)."""
    import random
    from types import SimpleNamespace

    return Seat("Syracuse", "heuristic", None, tuple(SimpleNamespace(name=a) for a in actions), {}, ("bot",),
                random.Random(1), aid)


def test_the_bots_step_without_bots_says_how_to_seat_one(tmp_path, capsys):
    from tests.cli.test_rise_of_rome_cli import bellica
    from tests.conftest import scenario_campaign_file

    path = scenario_campaign_file("magna-graecia/dionysian", tmp_path / "mg.duckdb")
    assert bellica(capsys, "magna-graecia", "start", path, "--seed", 1)[0] == 0
    code, out, err = bellica(capsys, "magna-graecia", "bots", path)
    assert code == 1 and "no seat of this campaign is played by a bot" in err
    assert "`bellica campaign bot CAMPAIGN FACTION=KIND` (kinds: heuristic, random)" in err
    assert len(err.strip().splitlines()) == 1
    assert bellica(capsys, "campaign", "bot", path, "Carthage=heuristic")[0] == 0
    code, out, err = bellica(capsys, "magna-graecia", "bots", path)
    assert code == 0 and "no bot has a step to give now" in out  # Syracuse, a person, moves first
