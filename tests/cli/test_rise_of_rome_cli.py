"""Rise of Rome played from the command line: `bellica campaign new --scenario rise-of-rome`,
`bellica turn ...` to the verdict, and `bellica round verify --readjudicate` reproducing it.

The map is the real one (the scenario's bbox at res 5, built once for the module: about a
second); the nineteen provinces are built from the scenario's capitals on it.
"""

from __future__ import annotations

import json
import shutil

import pytest

from bellica.cli import main


def bellica(capsys, *args) -> tuple[int, str, str]:
    """Run the CLI in-process the way the `bellica` script does: (exit code, stdout, stderr)."""
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def italy(tmp_path_factory, scenario_map):
    """The scenario's map (bbox of provinces.toml, res 5; built once a run: tests/conftest.py
    scenario_map) and a fresh campaign made on it."""
    folder = tmp_path_factory.mktemp("ror")
    return folder, scenario_map("rise-of-rome", folder / "italy5.duckdb")


@pytest.fixture
def campaign(italy, tmp_path, capsys):
    folder, map_path = italy
    out = tmp_path / "rome.duckdb"
    code, text, err = bellica(capsys, "campaign", "new", "--scenario", "rise-of-rome", "--map", map_path, "--out", out, "-q")
    assert code == 0, err
    assert "scenario rise-of-rome (ruleset rise-of-rome)" in text and "19 provinces" in text and "built from the capitals" in text
    return out


def _status(capsys, path) -> dict:
    code, out, err = bellica(capsys, "turn", "status", path, "--json")
    assert code == 0, err
    return json.loads(out)


class Player:
    """A scripted Rome: attacks its poorest neighbour every other turn, puts half its free
    revenue into Attack when attacking (else a fifth into Defense) and the rest into Civic
    Improvement; wins its defences with a Minor Victory and its own attacks alternately."""

    def __init__(self):
        self.results = 0
        self.decisions = []

    def decide(self, capsys, path, view) -> list:
        step = view["next_step"]
        if step == "attack":
            targets = view["targets"]
            if view["turn"] % 2 and targets:
                revenue = {p["power"]: p["revenue"] or 0 for p in view["powers"]}
                return ["turn", "attack", path, "--target", min(targets, key=lambda t: (revenue[t], t)).lower()]
            return ["turn", "attack", path, "--none"]
        if step == "spend":
            free = view["rome_free"]
            attacking = any(a["player"] for a in view["plan"])
            if attacking:
                return ["turn", "spend", path, "--attack", free // 2]
            return ["turn", "spend", path, "--defence", free // 5, "--civic", free - free // 5]
        if step == "result":
            b = view["pending_battle"]
            self.results += 1
            rome_attacks = b["attacker"] == "Romans"
            winner = "Romans" if (not rome_attacks or self.results % 2) else "defender"
            return ["turn", "result", path, b["index"], "--winner", winner, "--margin", "major" if self.results % 3 == 0 else "minor"]
        if step == "province":
            return ["turn", "province", path, "--by-rule"]
        raise AssertionError(f"unexpected step {step}")


def play(capsys, path, player: Player, *, limit: int = 400) -> dict:
    for _ in range(limit):
        code, out, err = bellica(capsys, "turn", "next", path)
        assert code == 0, err
        view = _status(capsys, path)
        if view["next_step"] is None:
            return view
        args = player.decide(capsys, path, view)
        player.decisions.append(args[1])
        code, out, err = bellica(capsys, *args)
        assert code == 0, (args, err)
    raise AssertionError("the campaign did not end")


def test_a_scripted_rome_plays_a_whole_campaign_to_its_verdict_and_it_readjudicates(campaign, capsys):
    code, out, err = bellica(capsys, "turn", "start", campaign, "--seed", "348")
    assert code == 0, err
    assert "campaign started, turn 1, seed 348" in out and "first ruler" in out
    assert out.strip().endswith(f"next: run the turn with `bellica turn next {campaign}`")
    player = Player()
    view = play(capsys, campaign, player)
    assert view["phase"] == "over" and view["verdict"] in ("assured", "italy", "provincial", "disappear", "disgrace")
    assert view["turn"] == 12 or view["verdict"] == "disgrace"
    assert {"attack", "spend"} <= set(player.decisions) and player.results > 0  # battles were played on the table
    code, out, _ = bellica(capsys, "turn", "status", campaign)
    assert code == 0 and f"verdict: {view['verdict']}" in out and "next: the campaign is over" in out
    # The SQL sees the state: Rome's treasury turn by turn, control by province.
    code, out, err = bellica(capsys, "sql", campaign, "SELECT count(*) AS turns, max(civic_total) AS best FROM ror_treasury")
    assert code == 0, err
    assert int(out.splitlines()[2].split()[0]) == view["turn"]
    code, out, err = bellica(capsys, "sql", campaign, "SELECT count(*) FROM ror_control c JOIN provinces p ON p.name = c.province")
    assert code == 0 and out.splitlines()[2].split()[0] == "19", err
    # Every step after the end is refused (exit 3), naming the verdict.
    code, _, err = bellica(capsys, "turn", "attack", campaign, "--none")
    assert code == 3 and err.startswith("error: cannot give Rome's attack: round") and "campaign is over" in err
    # The log replays to the tables, and re-running every recorded step from the scenario gives the same log.
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 0, err
    assert "replay to the stored state exactly" in out and "re-adjudicated from the scenario give the same" in out
    # The same seed and the same decisions give the same campaign; the log is the truth.
    copy = campaign.with_name("again.duckdb")
    shutil.copy(campaign, copy)
    import duckdb

    con = duckdb.connect(str(copy))
    con.execute("UPDATE ror_control SET power = 'Samnites' WHERE province = 'Latium'")
    con.close()
    code, _, err = bellica(capsys, "round", "verify", copy)
    assert code == 4 and "ror_control" in err


def test_rome_spreads_its_defence_and_chooses_the_provinces_it_takes(campaign, capsys):
    """Seed 17, turn 1: the Etruscans and the Campanians attack Rome, Rome attacks the Samnites.  Rome
    names its Defense for each attack; its Major Victory lets it choose its second province."""
    assert bellica(capsys, "turn", "start", campaign, "--seed", "17")[0] == 0
    assert bellica(capsys, "turn", "next", campaign)[0] == 0
    view = _status(capsys, campaign)
    assert sorted(a["attacker"] for a in view["plan"] if a["target"] == "Romans") == ["Campanians", "Etruscans"]
    assert bellica(capsys, "turn", "attack", campaign, "--target", "samnites")[0] == 0
    free = _status(capsys, campaign)["rome_free"]
    assert free == 20
    # Bad splits are one line (nothing written).
    for split, words in (("Samnites=5", "error: --defence-split Samnites: Samnites do not attack Romans this turn: "
                                        "name one of Etruscans, Campanians"),
                         ("Etruscans=11", "error: --defence-split names 11 points but Romans' Defense is 10"),
                         ("Etruscans=7,Campanians=2", "error: --defence-split names every attack on Romans but only 9 of its 10"),
                         ("Atlantis=3", "error: --defence-split 'Atlantis' is no power of this campaign")):
        code, _, err = bellica(capsys, "turn", "spend", campaign, "--attack", 10, "--defence", 10, "--defence-split", split)
        assert code == 1 and err.startswith(words) and len(err.strip().splitlines()) == 1, (split, err)
    code, _, err = bellica(capsys, "turn", "spend", campaign, "--attack", 10, "--defence", 10, "--defence-split", "Etruscans")
    assert code == 1 and "give POWER=N" in err  # inside the value: bad input, as a bad order
    code, out, err = bellica(capsys, "turn", "spend", campaign, "--attack", 10, "--defence", 10,
                            "--defence-split", "etruscans=10")
    assert code == 0, err
    assert "Defense 10 against Etruscans" in out
    # Battle 1: the Etruscans meet all 10 points; 80 + 10 - 10 (attacked twice; Rome attacks, so no +10).
    assert bellica(capsys, "turn", "next", campaign)[0] == 0
    view = _status(capsys, campaign)
    b = view["pending_battle"]
    assert (b["attacker"], b["defence_points"]) == ("Etruscans", 80)
    assert bellica(capsys, "turn", "result", campaign, b["index"], "--winner", "defender", "--margin", "minor")[0] == 0
    assert bellica(capsys, "turn", "next", campaign)[0] == 0
    b = _status(capsys, campaign)["pending_battle"]
    assert (b["attacker"], b["defence_points"]) == ("Campanians", 70)  # nothing left of the Defense for them
    assert bellica(capsys, "turn", "result", campaign, b["index"], "--winner", "defender", "--margin", "minor")[0] == 0
    assert bellica(capsys, "turn", "next", campaign)[0] == 0
    b = _status(capsys, campaign)["pending_battle"]
    assert (b["attacker"], b["province"]) == ("Romans", "Samnium Pentrum")
    code, _, err = bellica(capsys, "turn", "province", campaign, "--choose", "Frentani")
    assert code == 3 and "no province awaits Rome's choice" in err
    assert bellica(capsys, "turn", "result", campaign, b["index"], "--winner", "Romans", "--margin", "major")[0] == 0
    # The Major Victory's second province: Hirpini or Frentani, Rome's choice.
    code, out, err = bellica(capsys, "turn", "next", campaign)
    assert code == 0, err
    assert "Rome takes a province of Samnites" in out and "turn province" in out
    view = _status(capsys, campaign)
    assert view["next_step"] == "province"
    q = view["pending_province"]
    assert (q["kind"], sorted(q["options"])) == ("extra", ["Frentani", "Hirpini"])
    code, out, _ = bellica(capsys, "turn", "status", campaign)
    assert "choose one of Hirpini, Frentani" in out or "choose one of Frentani, Hirpini" in out
    code, _, err = bellica(capsys, "turn", "province", campaign, "--choose", "Campania")
    assert code == 1 and err.startswith("error: --choose 'Campania': Rome may take one of ")
    code, _, err = bellica(capsys, "turn", "province", campaign)
    assert code == 2 and "give --choose PROVINCE or --by-rule" in err
    assert bellica(capsys, "turn", "province", campaign, "--choose", "frentani")[0] == 0
    assert bellica(capsys, "turn", "next", campaign)[0] == 0
    code, out, err = bellica(capsys, "sql", campaign, "SELECT power FROM ror_control WHERE province IN "
                            "('Samnium Pentrum', 'Frentani', 'Hirpini') ORDER BY province")
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()[2:5]] == ["Romans", "Samnites", "Romans"]
    code, out, _ = bellica(capsys, "sql", campaign, "SELECT battle, kind, province FROM ror_province_choices")
    assert "extra" in out and "Frentani" in out
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 0, err


def test_bad_inputs_are_one_line(campaign, capsys):
    code, _, err = bellica(capsys, "turn", "status", campaign)  # a step out of order: exit 3
    assert code == 3 and err.strip() == f"error: {campaign} has not been started yet: run `bellica turn start {campaign}` first"
    assert bellica(capsys, "turn", "start", campaign, "--seed", "5")[0] == 0
    # Out of order: Rome's attack before the powers have rolled theirs (exit 3, naming what comes next).
    code, _, err = bellica(capsys, "turn", "attack", campaign, "--none")
    assert code == 3 and err.strip() == ("error: cannot give Rome's attack: round 1 is in the revenue phase; "
                                         "run the turn with `bellica turn next CAMPAIGN`")
    assert bellica(capsys, "turn", "next", campaign)[0] == 0
    view = _status(capsys, campaign)
    assert view["next_step"] == "attack" and view["rome_revenue"] >= view["rome_free"] > 0
    code, _, err = bellica(capsys, "turn", "attack", campaign, "--target", "Atlantis")  # a power it does not have: usage
    assert code == 2 and "Error: Invalid value for --target: 'Atlantis' is not a power of this campaign: use one of " in err
    code, _, err = bellica(capsys, "turn", "attack", campaign, "--target", "Syracusan Greeks")
    assert code == 1 and err.startswith("error: Romans cannot attack 'Syracusan Greeks' this turn: choose one of ")
    code, _, err = bellica(capsys, "turn", "attack", campaign, "--target", "Samnites", "--none")
    assert code == 2 and "give --target POWER or --none" in err
    assert bellica(capsys, "turn", "attack", campaign, "--none")[0] == 0
    free = view["rome_free"]
    code, _, err = bellica(capsys, "turn", "spend", campaign, "--attack", free + 1)
    assert code == 1 and err.strip() == f"error: --attack {free + 1} + --defence 0 is more than the {free} Rome may spend: give smaller amounts"
    code, _, err = bellica(capsys, "turn", "spend", campaign, "--attack", 1, "--civic", 0)
    assert code == 1 and "it must use exactly the" in err and len(err.strip().splitlines()) == 1
    code, _, err = bellica(capsys, "turn", "spend", campaign, "--attack", "-3")
    assert code == 2
    code, _, err = bellica(capsys, "turn", "result", campaign, 1, "--winner", "attacker", "--margin", "minor")
    assert code == 3 and err.startswith("error: cannot enter a battle's result: round 1 is in the spending phase")
    # Nothing refused was written: the log still verifies.
    code, out, err = bellica(capsys, "round", "verify", campaign)
    assert code == 0, err


def test_a_vae_victis_campaign_is_not_played_with_turn(tmp_path, capsys):
    from tests.engine.test_state import make_campaign

    path = tmp_path / "vv.duckdb"
    con, _m = make_campaign(path)
    con.close()
    code, _, err = bellica(capsys, "turn", "status", path)
    assert code == 1 and err.strip() == f"error: {path} is a vae-victis-ii campaign, not a province one: play it with `bellica round`"


@pytest.mark.parametrize("command", [("round", "status"), ("round", "move"), ("round", "victory")])
def test_a_province_campaign_is_not_played_with_round(campaign, capsys, command):
    code, out, err = bellica(capsys, *command, campaign)
    assert code == 1 and out == ""
    assert err.strip() == (f"error: {campaign} is a rise-of-rome campaign, not a Vae Victis II one: "
                           "play it with `bellica turn`")  # every declared group's words


def test_scenarios_list_and_check_the_province_scenario(capsys):
    code, out, err = bellica(capsys, "campaign", "scenarios")
    assert code == 0, err
    assert "rise-of-rome: The Rise of Rome: Italy, 348-264 BC (solo)" in out.splitlines()
    assert "first-punic-war: Vae Victis II: the First Punic War, 264 BC" in out.splitlines()
    code, out, err = bellica(capsys, "campaign", "check", "--scenario", "rise-of-rome")
    assert code == 0, err
    assert "ruleset rise-of-rome, 19 provinces, 9 powers, 2 external powers" in out and out.strip().endswith(": OK")


def test_the_map_provinces_are_copied_when_they_are_the_scenario(italy, tmp_path, capsys):
    """A map whose provinces were built (`bellica map provinces`) for the scenario's provinces gives them to the campaign."""
    from bellica.etl.scenario import load_province_scenario

    _folder, map_path = italy
    own = tmp_path / "map.duckdb"
    shutil.copy(map_path, own)
    spec = tmp_path / "provinces.toml"
    spec.write_text("".join(f'[[province]]\nname = "{n}"\ncapital = [{lon}, {lat}]\n\n'
                            for n, lon, lat in load_province_scenario("rise-of-rome").capitals), encoding="utf-8")
    code, _, err = bellica(capsys, "map", "provinces", own, spec)
    assert code == 0, err
    out = tmp_path / "rome.duckdb"
    code, text, err = bellica(capsys, "campaign", "new", "--scenario", "rise-of-rome", "--map", own, "--out", out, "-q")
    assert code == 0, err
    assert "19 provinces" in text and "copied from the map" in text
