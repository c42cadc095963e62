"""`bellica trossian ...` end to end: a phase played from the command line, its refusals (exit 3)
and bad input (exit 1, one line), the sealed log and status, verify --readjudicate."""

from __future__ import annotations

import json

import pytest

import bellica.cli as cli
from tests.engine.trossian.campaign_file import fresh_campaign


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("trossian-cli-base")


@pytest.fixture
def bellica(monkeypatch, capsys):
    """Run `bellica ARGS...` in this process: (exit status, stdout, stderr)."""

    def run(*args):
        code = 0
        try:
            cli.main([str(a) for a in args])
        except SystemExit as e:
            code = e.code or 0
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


@pytest.fixture
def campaign(base_dir, tmp_path):
    return fresh_campaign(base_dir, tmp_path / "c.duckdb")


def test_a_phase_from_the_command_line(bellica, campaign):
    code, out, _ = bellica("trossian", "start", campaign, "--seed", 148)
    assert code == 0 and "campaign started" in out and "next: begin Early Spring 1806" in out
    code, out, _ = bellica("trossian", "next", campaign)
    assert code == 0 and "Early Spring 1806 begins" in out
    assert bellica("trossian", "march", campaign, "--nation", "russia", "--army", 1, "--to", "Bessarabia",
                  "--to", "Moldavia")[0] == 0
    code, out, _ = bellica("trossian", "courier", campaign, "send", "--nation", "Russia", "--courier", 74,
                          "--message", "Hold the Don", "--to", "Kuban Corps")
    assert code == 0
    assert bellica("trossian", "courier", campaign, "move", "--nation", "Russia", "--courier", 74,
                  "--via", "Bessarabia", "--via", "Budjak")[0] == 0
    assert bellica("trossian", "sail", campaign, "--nation", "Ottoman", "--navy", 70, "--do", "put_out",
                  "--do", "sail:Western Black Sea")[0] == 0
    code, _, err = bellica("trossian", "army", campaign, "detach", "--nation", "Russia", "--army", 13, "--unit", 17,
                          "--unit", 18, "--name", "Cossacks")
    assert code == 3 and err.count("\n") == 1 and "a detachment needs an HQ" in err   # issue 22: one HQ
    # Another nation's status shows nothing of Russia's orders or couriers.
    code, out, _ = bellica("trossian", "status", campaign, "--nation", "Ottoman Porte", "--json")
    view = json.loads(out)
    assert code == 0 and "Hold the Don" not in out and view["orders"][0]["kind"] == "sail"
    code, out, _ = bellica("trossian", "status", campaign, "--nation", "Russia")
    assert "order 2: courier" in out and "Hold the Don" in out and "order 4: army" not in out
    code, out, _ = bellica("log", campaign, "--faction", "Ottoman Porte")
    assert code == 0 and "Hold the Don" not in out and "Russia: a march order (sealed)" in out
    for n in ("Russia", "Ottoman Porte", "Danubian", "Crimean"):
        assert bellica("trossian", "done", campaign, "--nation", n)[0] == 0
    code, out, _ = bellica("trossian", "next", campaign)
    assert code == 0 and "marched Yedisan -> Bessarabia -> Moldavia" in out and "Hold the Don" not in out
    battle = json.loads(bellica("trossian", "status", campaign, "--json")[1])["battles"][0]["battle"]
    # A die entered under a label the step never rolls was dropped and drawn from the seed: now refused.
    code, _, err = bellica("trossian", "result", campaign, battle, "--winner", "Russia", "--die", "attrition/1806/0/x/2=6")
    assert code == 1 and err.count("\n") == 1 and "entered die attrition/1806/0/x/2: this step rolls no die" in err
    code, out, _ = bellica("trossian", "result", campaign, battle, "--winner", "Russia", "--fate", "3=destroyed",
                          "--fate", "49=routed", "--die", f"attrition/1806/0/{battle}/2=6")
    assert code == 0 and "d6" in out and "retreats" in out
    assert f"attrition/1806/0/{battle}/2 d6 6 (entered)" in out
    code, out, _ = bellica("trossian", "next", campaign)
    assert code == 0 and "next: begin Mid Spring 1806" in out
    code, out, err = bellica("round", "verify", campaign, "--readjudicate")
    assert code == 0, err
    assert "re-adjudicated" in out


def test_refusals_exit_3_and_bad_input_exit_1(bellica, campaign):
    bellica("trossian", "start", campaign, "--seed", 148)

    def one_line(code, out, err, want):
        assert code == want, (out, err)
        assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")

    one_line(*bellica("trossian", "march", campaign, "--nation", "Russia", "--army", 1, "--to", "Bessarabia"), 3)
    bellica("trossian", "next", campaign)
    one_line(*bellica("trossian", "march", campaign, "--nation", "Russia", "--army", 1, "--to", "Bessarabia",
                     "--to", "Moldavia", "--to", "Wallachia"), 3)           # too far
    one_line(*bellica("trossian", "sail", campaign, "--nation", "Russia", "--navy", 68, "--do", "put_out"), 3)  # ice
    one_line(*bellica("trossian", "next", campaign), 3)                        # orders still due
    one_line(*bellica("trossian", "recruit", campaign, "--nation", "Russia", "--at", "Yedisan",
                     "--unit", "line_infantry"), 3)                           # not winter
    code, _, err = bellica("trossian", "march", campaign, "--nation", "Prussia", "--army", 1, "--to", "Bessarabia")
    assert code == 2 and "Error: Invalid value for --nation: 'Prussia' is not a nation of this campaign" in err  # usage
    one_line(*bellica("trossian", "march", campaign, "--nation", "Russia", "--army", 999, "--to", "Bessarabia"), 1)
    one_line(*bellica("trossian", "march", campaign, "--nation", "Russia", "--army", 1, "--to", "Atlantis"), 1)
    one_line(*bellica("trossian", "sail", campaign, "--nation", "Ottoman", "--navy", 70, "--do", "fly:away"), 1)
    one_line(*bellica("trossian", "courier", campaign, "send", "--nation", "Russia", "--courier", 74), 1)
    # Silent accepts before (issue 23): an addressee nobody is, an argument put_out ignored.
    for nobody in ("Atlantis", "army 999", "army -1"):
        one_line(*bellica("trossian", "courier", campaign, "send", "--nation", "Russia", "--courier", 74,
                          "--message", "Hold", "--to", nobody), 1)
    one_line(*bellica("trossian", "sail", campaign, "--nation", "Ottoman", "--navy", 70, "--do", "put_out:x"), 1)
    one_line(*bellica("trossian", "army", campaign, "hold", "--nation", "Russia", "--army", 1), 3)  # it has an HQ
    one_line(*bellica("trossian", "result", campaign, 1, "--winner", "a", "--fate", "3=vanished"), 1)
    one_line(*bellica("trossian", "status", campaign.with_name("missing.duckdb")), 1)
    bellica("trossian", "done", campaign, "--nation", "Russia")
    one_line(*bellica("trossian", "done", campaign, "--nation", "Russia"), 3)  # already done


def test_ally_offer_accept_and_break(bellica, campaign):
    bellica("trossian", "start", campaign, "--seed", 148)

    def one_line(code, out, err, want):
        assert code == want, (out, err)
        assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")

    one_line(*bellica("trossian", "ally", campaign, "--nation", "Russia", "--with", "Danubian"), 3)  # begin phase
    bellica("trossian", "next", campaign)
    code, out, _ = bellica("trossian", "ally", campaign, "--nation", "Russia", "--with", "Danubian")
    assert code == 0 and "Russia offers Danubian Principalities an alliance" in out
    code, out, _ = bellica("trossian", "status", campaign, "--json")
    assert json.loads(out)["offers"] == [{"nation": "Russia", "to": "Danubian Principalities"}]
    one_line(*bellica("trossian", "ally", campaign, "--nation", "Russia", "--with", "Danubian"), 3)  # offered already
    code, out, _ = bellica("trossian", "ally", campaign, "--nation", "danub", "--with", "russia")
    assert code == 0 and "Russia and Danubian Principalities are allies" in out
    code, out, _ = bellica("trossian", "status", campaign, "--nation", "Crimean")
    assert "alliance: Danubian Principalities & Russia" in out
    code, out, _ = bellica("log", campaign, "--faction", "Ottoman Porte")
    assert "are allies" in out  # diplomacy is public
    code, out, _ = bellica("trossian", "ally", campaign, "--nation", "Russia", "--with", "Danubian", "--break")
    assert code == 0 and "Russia breaks its alliance with Danubian Principalities" in out
    one_line(*bellica("trossian", "ally", campaign, "--nation", "Russia", "--with", "Danubian", "--break"), 3)
    code, _, err = bellica("trossian", "ally", campaign, "--nation", "Russia", "--with", "Prussia")
    assert code == 2 and "Error: Invalid value for --with: 'Prussia' is not a nation of this campaign" in err  # usage
    one_line(*bellica("trossian", "ally", campaign, "--nation", "Russia", "--with", "Russia"), 3)
    code, out, err = bellica("round", "verify", campaign, "--readjudicate")
    assert code == 0, err
