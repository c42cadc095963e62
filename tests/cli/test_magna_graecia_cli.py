"""Magna Graecia from the command line: `bellica campaign new --scenario magna-graecia/dionysian`,
`bellica magna-graecia ...` steps, refusals (out of turn: exit 3; bad input: one line, exit 1), the
second day's orders sealed until both sides have written theirs, `bellica round verify --readjudicate`."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_rise_of_rome_cli import bellica


@pytest.fixture(scope="module")
def made(tmp_path_factory, scenario_map):
    """The scenario's map (built once a run: tests/conftest.py scenario_map)."""
    return scenario_map("magna-graecia/dionysian", tmp_path_factory.mktemp("mgcli") / "sicily6.duckdb")


def _cli(*args) -> str:
    """``bellica ARGS`` in-process, outside a test (no capsys): what it printed; it must succeed."""
    import contextlib
    import io

    from bellica.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            assert not e.code, (args, e.code, err.getvalue())
    return out.getvalue()


@pytest.fixture
def campaign(made, tmp_path, built_once):
    """`campaign new` on the map and `magna-graecia start --seed 397`, run once a run (their words
    checked then) and copied per test."""
    def build(out):
        text = _cli("campaign", "new", "--scenario", "magna-graecia/dionysian", "--map", made, "--out", out, "-q")
        assert "scenario magna-graecia/dionysian (ruleset magna-graecia)" in text and "places" in text
        text = _cli("magna-graecia", "start", out, "--seed", "397")
        assert "turn 1" in text and "next: Syracuse moves" in text
    return built_once("mg-cli-dionysian-started-397", build, tmp_path / "d.duckdb")


def test_scenarios_are_listed_and_checked(capsys):
    code, out, err = bellica(capsys, "campaign", "scenarios")
    assert code == 0, err
    for name in ("dionysian", "pyrrhic", "first-punic", "second-punic"):
        assert any(line.startswith(f"magna-graecia/{name}: ") for line in out.splitlines())
    code, out, err = bellica(capsys, "campaign", "check", "--scenario", "magna-graecia/first-punic")
    assert code == 0 and "3 sides (Rome, Carthage, Syracuse)" in out and out.strip().endswith(": OK")


def test_moves_refusals_and_status(campaign, capsys):
    code, out, err = bellica(capsys, "magna-graecia", "move", campaign, "--side", "Carthage", "40", "Solus")
    assert code == 3 and err.count("\n") == 1 and "it is Syracuse's turn, not Carthage's" in err
    code, out, err = bellica(capsys, "magna-graecia", "move", campaign, "--side", "Syracuse", "38", "Atlantis")
    assert code == 1 and err.count("\n") == 1 and "'Atlantis' is not a place" in err
    code, out, err = bellica(capsys, "magna-graecia", "result", campaign, "Gela", "--winner", "Syracuse",
                            "--loss", "oops")
    assert code == 1 and err.count("\n") == 1 and "COMMAND:ELEMENT=N" in err
    code, out, err = bellica(capsys, "magna-graecia", "move", campaign, "--side", "syr", "38", "Leontini", "Catana")
    assert code == 0, err
    assert "Syracuse command 38 moves Leontini -> Catana" in out
    code, out, err = bellica(capsys, "magna-graecia", "status", campaign, "--side", "Carthage", "--json")
    assert code == 0, err
    v = json.loads(out)
    assert v["viewer"] == "Carthage" and v["phasing"] == "Syracuse"
    theirs = [x for x in v["counters"] if x["owner"] == "Syracuse" and x["city"] == ""]
    assert theirs and all("elements" not in x for x in theirs)
    assert all("np" not in f for f in v["fleets"] if f["side"] == "Syracuse")
    assert any("elements" in x for x in v["counters"] if x["owner"] == "Carthage")
    code, out, err = bellica(capsys, "magna-graecia", "next", campaign, "--side", "Syracuse")
    assert code == 0 and "Syracuse ends its movement" in out
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 0, err


def test_second_day_sealed_until_both_sides_chose(campaign, capsys):
    from bellica.demo_magna_graecia import march, resolve_battles
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.magna_graecia.battles import camps
    from bellica.engine.magna_graecia.ruleset import play, state_of

    def two_sided(c):
        s = state_of(c.snapshot())
        for b in s.battles:
            att, dfn = camps(s, b)
            if b.kind == "land" and any(x.side for x in att) and any(x.side for x in dfn):
                return b.node, sorted({s.owner(x) for x in att + dfn if x.side})
        return None

    found = None
    with Campaign.open(campaign) as c:
        for _ in range(60):
            s = state_of(c.snapshot())
            if s.phase == "over":
                break
            side = march(c, {"Syracuse": "Motya", "Carthage": "Syracuse"})
            play(c, "end_movement", {"side": side})
            found = two_sided(c)
            if found:
                break
            resolve_battles(c)
            play(c, "end_turn", {"side": side})
    assert found and len(found[1]) == 2, "the scripted policy met no battle of two sides"
    node = found[0]
    code, out, err = bellica(capsys, "magna-graecia", "defence", campaign, node, "central")
    assert code == 0, err
    code, out, err = bellica(capsys, "magna-graecia", "result", campaign, node, "--winner", "none")
    assert code == 0, err
    assert "undecided" in out and "each side writes stay or retire" in out
    node, (a, b) = found
    code, out, err = bellica(capsys, "magna-graecia", "second-day", campaign, node, "stay", "--side", a)
    assert code == 0, err
    assert f"waiting for {b}" in out
    code, out, err = bellica(capsys, "magna-graecia", "second-day", campaign, node, "stay", "--side", a)
    assert code == 3 and "has written one already" in err
    for viewer in (b, None):
        args = ["log", campaign, "--json"] + (["--faction", viewer] if viewer else [])
        code, out, err = bellica(capsys, *args)
        assert code == 0, err
        assert '"choice"' not in out and f"{a} writes its sealed second-day order" in out
    code, out, err = bellica(capsys, "log", campaign, "--json", "--faction", a)
    assert '"choice": "stay"' in out
    code, out, err = bellica(capsys, "magna-graecia", "status", campaign, "--side", b)
    assert f"second day at {node}: written by {a}, waiting for {b}" in out
    code, out, err = bellica(capsys, "magna-graecia", "second-day", campaign, node, "retire", "--side", b)
    assert code == 0, err
    assert f"{a} stays" in out and f"{b} retires" in out
    code, out, err = bellica(capsys, "log", campaign, "--json", "--faction", b)
    assert '"choice": "stay"' in out  # opened
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 0, err


def test_a_naval_sally_reaches_the_engine_as_such(campaign, monkeypatch, capsys):
    # A besieged harbour's fleet putting out (the seed's "land or naval battle"): the flag is the step's input.
    import bellica.engine.magna_graecia.ruleset as mg_ruleset

    given = []
    monkeypatch.setattr(mg_ruleset, "play", lambda c, step, arg: given.append((step, arg)) or [])
    assert bellica(capsys, "magna-graecia", "sally", campaign, "Gela", "--naval", "--side", "Syracuse")[0] == 0
    assert bellica(capsys, "magna-graecia", "sally", campaign, "Gela", "--side", "syr")[0] == 0
    assert given == [("sally", {"side": "Syracuse", "node": "Gela", "naval": True}),
                     ("sally", {"side": "Syracuse", "node": "Gela"})]


@pytest.mark.parametrize("args, where", [
    (["move", "--side", "Syracuse", "x", "Catana"], "COMMAND"),  # a word for a number
    (["roll", "alliance/1/Morgantina/Syracuse", "six"], "VALUE"),
    (["embark", "--side", "Syracuse", "36", "thirty-seven"], "COMMANDS"),
    (["defence", "Gela", "sideways"], "forward|central|rear"),  # not one of the choices
    (["fleet-battle", "Motya", "--retreat", "Atlantis"], "--retreat"),  # no side of the campaign
    (["move", "38", "Catana"], "--side"),  # the phasing side's step names its side
])
def test_a_bad_parameter_is_a_usage_error_of_one_line(campaign, capsys, args, where):
    import re

    from tests.cli.test_fuzz import the_error_line

    before = campaign.read_bytes()
    code, out, err = bellica(capsys, "magna-graecia", args[0], campaign, *args[1:])
    assert code == 2 and "Traceback" not in err, err
    line = the_error_line(code, re.sub(r"\n {2,}(?=\S)", " ", err))  # click wraps a long usage line
    assert line.startswith("Error: ") and where in line, line
    assert campaign.read_bytes() == before


def test_the_umpire_may_take_a_defence_or_a_retreat_for_a_side(capsys):
    # --side is optional on the steps the umpire may take for a side, required on the others.
    for step, required in (("defence", False), ("retreat", False), ("retreat-fleet", False), ("move", True),
                           ("second-day", True), ("end-turn", True)):
        code, text, err = bellica(capsys, "magna-graecia", step, "--help")
        assert code == 0 and "--side" in text and ("default: the umpire" in text) is not required, (step, text)


def test_a_page_offers_a_side_only_the_steps_it_may_take_now(campaign):
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(campaign, read_only=True) as c:
        phasing = {a.name for a in c.ruleset.open_actions(c, "Syracuse")}
        other = {a.name for a in c.ruleset.open_actions(c, "Carthage")}
        umpire = {a.name for a in c.ruleset.open_actions(c, None)}
    assert {"move", "sail", "embark", "end-movement", "next"} <= phasing
    assert not phasing & {"defence", "result", "end-turn", "second-day", "retreat"}
    assert other == set()  # not Carthage's turn, and no battle to defend
    assert umpire == {"roll", "agree-end"}


def test_a_sides_log_names_no_other_sides_forces(campaign, capsys):
    # The map shows another side's counters as counters; its log must not give away what the map hides.
    assert bellica(capsys, "magna-graecia", "move", campaign, "--side", "Syracuse", "38", "Leontini", "Catana")[0] == 0
    code, umpire, err = bellica(capsys, "log", campaign, "--json")
    assert code == 0, err
    assert "Syracuse's fleet at Syracuse, 20 NP" in umpire and "Sp(O)" in umpire  # the umpire reads everything
    code, carthage, err = bellica(capsys, "log", campaign, "--faction", "Carthage", "--json")
    assert code == 0, err
    assert "20 NP" not in carthage and "Sp(O)" not in carthage and "Sp(I)" not in carthage
    assert "Syracuse moves command 38" in carthage  # the steps taken are open: counters move on the table's map
    code, syracuse, err = bellica(capsys, "log", campaign, "--faction", "Syracuse")
    assert code == 0, err
    assert "Syracuse moves command 38" in syracuse


def test_a_die_entered_under_a_label_no_roll_has_is_refused(campaign, capsys):
    """Silent accepts before (issue 23): `roll ../../etc 6` was stored, and so was a die for a past
    turn, an unknown place or a kind of die the rules never roll; now each is one line, nothing stored."""
    from tests.cli.test_fuzz import sha

    before = sha(campaign)
    for label, why in (("../../etc", "give one the rules roll: alliance/TURN/NODE/SIDE"),
                       ("alliance/0/Gela/Syracuse", "turn '0' is not this turn (1) or a later one"),
                       ("siege/1/Atlantis/Carthage", "'Atlantis' is not a place of this campaign's map"),
                       ("fleet/1/Gela/Rome/1", "'Rome' is no side of this campaign"),
                       ("bogus/1/Gela", "give one the rules roll")):
        code, _, err = bellica(capsys, "magna-graecia", "roll", campaign, label, "4")
        assert code == 1 and err.count("\n") == 1 and why in err, (label, err)
    assert sha(campaign) == before
    code, out, err = bellica(capsys, "magna-graecia", "roll", campaign, "alliance/1/gela/syracuse", "4")
    assert code == 0 and "the umpire enters the die alliance/1/Gela/Syracuse: 4" in out, err
