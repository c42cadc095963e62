"""Bot seats through the command line: `campaign new --bot`, `campaign bot`, `round bots`, and
`round verify --readjudicate` replaying a round the bots played (docs/bots.md)."""

from __future__ import annotations

from tests.cli.test_campaign_cli import run
from tests.etl.test_campaign import build_synthetic_map, write_synthetic_scenario


def test_new_with_bots_then_a_round_the_bots_play_replays(tmp_path, capsys):
    m = build_synthetic_map(tmp_path / "map.duckdb")
    scen = write_synthetic_scenario(tmp_path / "scen")
    out = tmp_path / "c.duckdb"
    code, stdout, err = run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m), "-q",
                             "--bot", "alpha=heuristic", "--bot", "Beta=random"], capsys)
    assert code == 0, err
    assert "seat Alpha: played by the heuristic bot" in stdout and "seat Beta: played by the random bot" in stdout
    code, stdout, err = run(["campaign", "bot", str(out)], capsys)
    assert code == 0 and "Alpha: heuristic bot" in stdout and "Beta: random bot" in stdout
    assert run(["round", "start", str(out), "--seed", "7"], capsys)[0] == 0
    code, stdout, err = run(["round", "bots", str(out)], capsys)
    assert code == 0, err
    assert "Alpha, played by the heuristic bot:" in stdout and "initiative stored (sealed)" in stdout
    assert "marches on" not in stdout  # the umpire reads no reason before the reveal
    assert run(["round", "publish", str(out)], capsys)[0] == 0
    code, stdout, err = run(["round", "bots", str(out)], capsys)
    assert code == 0 and "orders stored (sealed)" in stdout and "revealed" in stdout, err
    code, stdout, _ = run(["round", "bots", str(out)], capsys)
    assert code == 0 and "no bot has anything to give now" in stdout
    code, log, _ = run(["log", str(out), "--faction", "Beta"], capsys)
    assert "Alpha, played by the heuristic bot: army" in log  # revealed: Beta reads Alpha's reasons now
    code, stdout, err = run(["round", "verify", str(out), "--readjudicate"], capsys)
    assert code == 0 and "re-adjudicated from the scenario give the same" in stdout, err


def test_bad_seats_are_refused_in_one_line(tmp_path, capsys):
    m = build_synthetic_map(tmp_path / "map.duckdb")
    scen = write_synthetic_scenario(tmp_path / "scen")
    out = tmp_path / "c.duckdb"
    code, _, err = run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m), "-q",
                        "--bot", "Alpha"], capsys)
    assert code == 2 and "is not FACTION=KIND" in err and not out.exists()
    code, _, err = run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m), "-q",
                        "--bot", "Zeta=random"], capsys)
    assert code == 1 and "'Zeta' is not a faction of this campaign" in err and not out.exists()
    assert run(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m), "-q"], capsys)[0] == 0
    code, _, err = run(["campaign", "bot", str(out), "Alpha=clever"], capsys)
    assert code == 1 and "no bot 'clever'" in err and "heuristic, random" in err
    code, stdout, _ = run(["campaign", "bot", str(out), "Alpha=random", "Beta=person"], capsys)
    assert code == 0 and "Alpha: random bot" in stdout and "Beta: person" in stdout
    assert run(["round", "start", str(out)], capsys)[0] == 0
    run(["campaign", "bot", str(out), "Alpha=person"], capsys)
    code, _, err = run(["round", "bots", str(out)], capsys)
    assert code == 1 and "no seat of this campaign is played by a bot" in err
