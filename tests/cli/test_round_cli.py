"""`bellica round ...`, `bellica sql`, `bellica log` end to end on a small synthetic campaign file."""

from __future__ import annotations

import pytest

from bellica.cli import main
from tests.engine.test_rounds import STRUCTURES, WATER
from tests.engine.test_state import make_campaign
from tests.engine.boards import sketch


def bellica(capsys, *args) -> tuple[int, str, str]:
    """Run the CLI in-process the way the `bellica` script does: (exit code, stdout, stderr)."""
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def _write_campaign(structures):
    def build(path):
        m = sketch(radius=4, structures=structures, water=WATER)
        con, m = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")), m=m)
        con.close()
    return build


@pytest.fixture
def campaign(tmp_path, built_once):
    """A campaign file: synthetic map + scenario + placements, not yet started."""
    return built_once("vv-round-campaign", _write_campaign(STRUCTURES), tmp_path / "c.duckdb")


def test_start_and_status(campaign, capsys):
    code, out, err = bellica(capsys, "round", "start", campaign, "--seed", "5")
    assert code == 0, err
    assert "campaign started, round 1, phase orders, 3 armies, seed 5" in out
    code, out, _ = bellica(capsys, "round", "status", campaign)
    assert code == 0
    assert out.splitlines()[0] == "round 1, phase orders (initiative)"
    assert "next: give initiative uses" in out
    code, _, err = bellica(capsys, "round", "start", campaign)  # a step out of order: exit 3
    assert code == 3 and err.strip().startswith(f"error: {campaign} has already started")


def test_commands_on_a_campaign_not_started(campaign, capsys):
    code, _, err = bellica(capsys, "round", "status", campaign)  # a step out of order: exit 3
    assert code == 3
    assert err.strip() == f"error: {campaign} has not been started yet: run `bellica round start {campaign}` first"
    code, _, err = bellica(capsys, "round", "status", campaign.parent / "nope.duckdb")
    assert code == 1 and "no such campaign file: make one with `bellica campaign new" in err  # every group's words


def test_sql_prints_a_table_and_is_read_only(campaign, capsys):
    bellica(capsys, "round", "start", campaign)
    code, out, err = bellica(capsys, "sql", campaign, "SELECT id, faction, strength FROM armies ORDER BY id")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["id", "faction", "strength"]
    assert lines[2].split() == ["1", "carthago", "1600"]
    assert lines[-1] == "(3 rows)"
    code, _, err = bellica(capsys, "sql", campaign, "UPDATE armies SET strength = 1")
    assert code == 1
    assert "read-only" in err and len(err.strip().splitlines()) == 1
    code, out, _ = bellica(capsys, "sql", campaign, "SELECT count(*) AS n FROM armies WHERE strength = 1600")
    assert out.splitlines()[2].strip() == "3"


def test_sql_from_a_file_and_csv(campaign, tmp_path, capsys):
    bellica(capsys, "round", "start", campaign)
    q = tmp_path / "q.sql"
    q.write_text("SELECT structure, controller FROM control\nWHERE structure IN ('Roma', 'Capua')\nORDER BY structure;\n")
    code, out, err = bellica(capsys, "sql", campaign, "--file", q, "--csv")
    assert code == 0, err
    assert out.splitlines() == ["structure,controller", "Capua,carthago", "Roma,roma"]
    code, _, err = bellica(capsys, "sql", campaign, "SELEC nonsense")
    assert code == 1 and err.startswith("error: QUERY failed: Parser Error")
    code, _, err = bellica(capsys, "sql", campaign)
    assert code == 2 and "give either a QUERY argument or --file" in err


def test_log_in_words_and_sealed_for_other_factions(campaign, capsys):
    bellica(capsys, "round", "start", campaign)
    code, out, err = bellica(capsys, "round", "initiative", campaign, "--faction", "roma", "9=Mare Tyrrhenum")
    assert code == 0, err
    code, out, _ = bellica(capsys, "log", campaign)
    assert "army 9 (roma) placed at Roma with 1600 FP" in out
    assert "initiative received for army 9" in out
    # Carthago may not read Roma's initiative before publication; Roma may.
    # (The sea zones' names are public: every faction starts with a naval superiority in each.)
    def orders_lines(out):
        return [line for line in out.splitlines() if '"put_orders"' in line]

    code, out, _ = bellica(capsys, "log", campaign, "--faction", "carthago", "--json")
    assert not any("Mare Tyrrhenum" in line for line in orders_lines(out))
    assert "initiative received for army 9 from roma, sealed until publication" in out
    code, out, _ = bellica(capsys, "log", campaign, "--faction", "roma", "--json")
    assert any("Mare Tyrrhenum" in line for line in orders_lines(out))
    code, _, err = bellica(capsys, "log", campaign, "--faction", "gallia")
    assert code == 2 and "not a faction of this campaign" in err


@pytest.fixture
def field_campaign(tmp_path, built_once):
    """Roma and Capua four farmland hexes apart (tests/engine/test_rounds.py FIELD), not started."""
    from tests.engine.test_rounds import FIELD

    return built_once("vv-field-campaign", _write_campaign(FIELD), tmp_path / "field.duckdb")


def test_a_round_through_the_cli(field_campaign, tmp_path, capsys):
    c = field_campaign
    assert bellica(capsys, "round", "start", c)[0] == 0
    code, out, err = bellica(capsys, "round", "initiative", c, "--faction", "roma", "9=strength")
    assert code == 0, err
    code, out, err = bellica(capsys, "round", "move", c)
    assert code == 3 and "initiative uses are not published yet; run `bellica round publish`" in err  # a rules refusal
    code, out, err = bellica(capsys, "round", "publish", c)
    assert code == 0 and "naval superiority in Mare Tyrrhenum: carthago 2, roma 2, syracusae 2" in out
    roma = tmp_path / "roma.toml"
    roma.write_text('faction = "roma"\nround = 1\n\n[armies.9]\nmoves = "3 3"\n\n[armies.10]\nmoves = ""\n')
    code, out, err = bellica(capsys, "round", "orders", c, "--file", roma)
    assert code == 0, err
    assert out.strip() == "orders stored (sealed) for armies 9, 10"
    code, out, err = bellica(capsys, "round", "move", c)
    assert code == 3
    assert err.strip() == "error: cannot run movement: orders phase incomplete, missing orders from carthago army 1"
    code, out, _ = bellica(capsys, "round", "show", c, "--faction", "carthago")
    assert "army   9 (roma): initiative strength" in out and "3 3" not in out
    code, out, err = bellica(capsys, "round", "orders", c, "--faction", "carthago", "--army", "1", "--moves", "9 9")
    assert code == 0, err
    code, out, err = bellica(capsys, "round", "move", c)
    assert code == 0, err
    assert "lost the hex" in out and "engagement 1: Open Battle" in out
    code, out, _ = bellica(capsys, "round", "battles", c)
    assert out.splitlines()[0] == "battle 1" and "awaiting" in out
    code, _, err = bellica(capsys, "round", "result", c, "1", "--winner", "9", "--casualties", "9=25")
    assert code == 1 and "give a result for exactly those armies" in err
    code, out, err = bellica(capsys, "round", "result", c, "1", "--winner", "9", "--casualties", "9=25", "--casualties", "1=48")
    assert code == 0, err
    assert "army 9 (roma) wins engagement 1, 25% casualties" in out
    code, out, _ = bellica(capsys, "round", "status", c)
    assert "engagement 1 (battle 1): army 1 v army 9: result recorded" in out
    code, out, _ = bellica(capsys, "log", c, "--round", "1", "--changes")
    assert "lost the hex" not in out  # explanations are left out with --changes
    assert "army 9 (roma) moves from Roma to" in out
    code, out, err = bellica(capsys, "round", "administer", c, "--advance", "9=x")
    assert code == 1 and "advance: 'x' (army 9) is neither a clock position" in err
    code, out, err = bellica(capsys, "round", "administer", c)
    assert code == 0, err
    assert "army 1 (carthago) lost its battle and is removed from the map" in out
    code, out, err = bellica(capsys, "round", "victory", c)
    assert code == 0, err
    assert "roma +4 VP: engagement 1 fought (+1) and won (+3)" in out
    assert "round 1 ends: carthago -2 VP, roma 4 VP, syracusae 0 VP; no faction has won" in out
    code, out, _ = bellica(capsys, "round", "status", c)
    assert out.splitlines()[0] == "round 2, phase orders (initiative)"
    code, out, err = bellica(capsys, "round", "verify", c, "--readjudicate")
    assert code == 0 and "replay to the stored state exactly" in out
    assert "recorded steps re-adjudicated from the scenario give the same" in out
    code, out, _ = bellica(capsys, "sql", c, "SELECT faction, vp FROM victory_points ORDER BY faction")
    assert [l.split() for l in out.splitlines()[2:5]] == [["carthago", "-2"], ["roma", "4"], ["syracusae", "0"]]


def test_a_faction_retreats_only_its_own_armies(field_campaign, capsys):
    """round retreat --faction F takes F's armies only (the declared step, signed); without it, the
    umpire's spelling, any army."""
    c = field_campaign
    for args in (("start",), ("publish",), ("orders", "--faction", "roma", "9=3 3", "10="),
                 ("orders", "--faction", "carthago", "1=9 9"), ("move",)):
        assert bellica(capsys, "round", args[0], c, *args[1:])[0] == 0
    code, out, err = bellica(capsys, "round", "retreat", c, "1", "--faction", "roma")
    assert code == 1 and err.strip() == "error: army 1 is not one you command: you may retreat only your own armies"
    code, out, _ = bellica(capsys, "round", "battles", c)
    assert "awaiting" in out  # nothing retreated
    code, out, err = bellica(capsys, "round", "retreat", c, "1", "--faction", "carthago")
    assert code == 0 and "army 1 (carthago) retreats rather than fight army 9" in out, err


def test_bad_orders_file_is_one_clear_error_and_writes_nothing(field_campaign, tmp_path, capsys):
    c = field_campaign
    bellica(capsys, "round", "start", c)
    bellica(capsys, "round", "publish", c)
    bad = tmp_path / "bad.toml"
    bad.write_text('faction = "roma"\n[armies.9]\nmoves = "3 x 3"\n')
    code, out, err = bellica(capsys, "round", "orders", c, "--file", bad)
    assert code == 1
    assert "army 9, move 2: 'x' at column 3" in err
    code, out, _ = bellica(capsys, "round", "status", c)
    assert "orders missing from carthago army 1; roma armies 9, 10" in out


def test_moves_sealed_in_the_log_until_movement(field_campaign, capsys):
    c = field_campaign
    bellica(capsys, "round", "start", c)
    bellica(capsys, "round", "initiative", c, "--faction", "roma", "9=Mare Tyrrhenum")
    bellica(capsys, "round", "publish", c)
    bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3 3 5", "10=")
    code, out, _ = bellica(capsys, "log", c, "--faction", "carthago", "--json")
    assert '"3 3 5"' not in out  # roma's moves stay sealed ...
    assert "influence in Mare Tyrrhenum" in out  # ... its published initiative does not
    code, out, _ = bellica(capsys, "log", c, "--faction", "roma", "--json")
    assert '"3 3 5"' in out
    bellica(capsys, "round", "orders", c, "--faction", "carthago", "1=")
    bellica(capsys, "round", "move", c)
    code, out, _ = bellica(capsys, "log", c, "--faction", "carthago", "--json")
    assert '"3 3 5"' in out  # the orders phase is over: everything is public


def test_umpire_views_exist_once_the_campaign_has_started(campaign, capsys):
    # Regression: the ZoC views were defined but never installed in a campaign file.
    bellica(capsys, "round", "start", campaign)
    code, out, err = bellica(capsys, "sql", campaign, "SELECT source_kind, count(*) AS n FROM zoc GROUP BY 1 ORDER BY 1")
    assert code == 0, err
    assert {line.split()[0] for line in out.splitlines()[2:-1]} >= {"army", "structure"}
    for view in ("army_zoc", "structure_zoc", "logistics_lines", "supplied_structures", "army_logistics_distance"):
        code, _, err = bellica(capsys, "sql", campaign, f"SELECT count(*) FROM {view}")
        assert code == 0, f"{view}: {err}"


def test_a_faction_typed_in_another_case_is_the_campaigns_faction(campaign, capsys):
    """One resolver for every faction a user types: "ROMA" is roma, in the orders, the view and the log;
    an unknown name is a bad option value naming the campaign's factions."""
    bellica(capsys, "round", "start", campaign)
    code, out, err = bellica(capsys, "round", "initiative", campaign, "--faction", "ROMA", "9=Mare Tyrrhenum")
    assert code == 0, err
    code, out, _ = bellica(capsys, "log", campaign, "--faction", "Roma", "--json")
    assert code == 0 and "Mare Tyrrhenum" in out  # Roma reads its own initiative
    code, _, err = bellica(capsys, "round", "show", campaign, "--faction", "Gallia")
    assert code == 2 and "not a faction of this campaign: use one of" in err and "roma" in err


# --- issue 8: every input checked before a step runs; user files read safely --------------------


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


def _to_battles(c, capsys):
    """Round 1 of field_campaign played up to its one engagement (army 1 v army 9)."""
    for args in (("start",), ("publish",), ("orders", "--faction", "roma", "9=3 3", "10="),
                 ("orders", "--faction", "carthago", "1=9 9"), ("move",)):
        code, _, err = bellica(capsys, "round", args[0], c, *args[1:])
        assert code == 0, err


def test_administer_take_over_typo_is_refused_and_the_step_kept(field_campaign, capsys):
    # Bug: `--take-over Atlantis` ran the whole administration and moved on to the victory phase.
    c = field_campaign
    _to_battles(c, capsys)
    bellica(capsys, "round", "result", c, "1", "--winner", "9", "--casualties", "9=25", "--casualties", "1=48")
    before = c.read_bytes()
    code, _, err = bellica(capsys, "round", "administer", c, "--take-over", "Atlantis", "--siege", "9=Atlantys")
    assert code == 1
    line = _one_error_line(err)
    assert "take-over: there is no structure 'Atlantis'" in line and "siege by army 9: there is no structure 'Atlantys'" in line
    code, out, _ = bellica(capsys, "round", "status", c)
    assert out.splitlines()[0].startswith("round 1, phase battles")
    assert c.read_bytes() == before
    code, _, err = bellica(capsys, "round", "administer", c)
    assert code == 0, err


def test_non_ascii_digits_are_refused_everywhere_a_number_is_typed(field_campaign, capsys):
    # Bug: "٩=3" was taken as army 9 and "２０" as 20.
    c = field_campaign
    bellica(capsys, "round", "start", c)
    for args in (("initiative", "٩=strength"), ("orders", "--army", "٩", "--moves", ""), ("orders", "٩=3"),
                 ("orders", "--army", "9", "--moves", "", "--transfer", "１０:60"), ("retreat", "٩")):
        code, _, err = bellica(capsys, "round", args[0], c, *args[1:])
        assert code in (1, 2), (args, err)
        assert "digits 0-9" in err and "Traceback" not in err, (args, err)
    code, _, err = bellica(capsys, "round", "start", c.parent / "x.duckdb", "--seed", "２０")
    assert code == 2 and "'２０' is not a whole number: write digits 0-9" in err
    bellica(capsys, "round", "publish", c)
    bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3 3", "10=")
    bellica(capsys, "round", "orders", c, "--faction", "carthago", "1=9 9")
    bellica(capsys, "round", "move", c)
    for args in (("２",), ("1", "--winner", "٩"), ("1", "--casualties", "9=２５"), ("1", "--casualties", "٩=25")):
        casualties = () if "--casualties" in args else ("--casualties", "9=25", "--casualties", "1=48")
        winner = () if "--winner" in args else ("--winner", "9")
        code, _, err = bellica(capsys, "round", "result", c, *args, *winner, *casualties)
        # an option's whole value is click's usage error (2); a number inside ARMY=PCT is bad input (1)
        assert code == (1 if "--casualties" in args else 2) and "digits 0-9" in err, (args, err)
    code, _, err = bellica(capsys, "round", "result", c, "1", "--winner", "9", "--casualties", "9=125", "--casualties", "1=48")
    assert code == 1 and "'125' is not a whole percentage 0-100" in err


def test_a_result_recorded_twice_needs_replace(field_campaign, capsys):
    # Bug: a second `round result` with the winner flipped silently replaced the first.
    c = field_campaign
    _to_battles(c, capsys)
    code, _, err = bellica(capsys, "round", "result", c, "1", "--winner", "9", "--casualties", "9=25", "--casualties", "1=48")
    assert code == 0, err
    code, _, err = bellica(capsys, "round", "result", c, "1", "--winner", "1", "--casualties", "9=25", "--casualties", "1=48")
    assert code == 1
    assert _one_error_line(err) == (
        "error: engagement 1 already has a result (army 1 loss, 48% casualties; army 9 win, 25% casualties): "
        "to correct it, give the whole result again with --replace (the log keeps both)"
    )
    code, out, err = bellica(capsys, "round", "result", c, "1", "--winner", "1", "--casualties", "9=25",
                            "--casualties", "1=48", "--replace")
    assert code == 0, err
    assert "the umpire corrects the result of engagement 1 (was: army 1 loss, 48% casualties; army 9 win, 25% casualties)" in out
    code, out, _ = bellica(capsys, "log", c, "--round", "1")
    assert "the umpire corrects the result of engagement 1" in out  # the correction stays in the log
    assert bellica(capsys, "round", "administer", c)[0] == 0
    assert bellica(capsys, "round", "victory", c)[0] == 0
    code, out, err = bellica(capsys, "round", "verify", c, "--readjudicate")
    assert code == 0, err


def test_a_60000_token_move_string_is_not_stored(field_campaign, capsys):
    # Bug: a 60,000-token move string was accepted and stored in the log.
    c = field_campaign
    bellica(capsys, "round", "start", c)
    bellica(capsys, "round", "publish", c)
    before = c.read_bytes()
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=" + " ".join(["0"] * 60_000))
    assert code == 1 and "the move string is 119999 characters long, over the 1000" in _one_error_line(err)
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=" + " ".join(["0"] * 13))
    assert code == 3 and "so at most 12 moves can be used" in _one_error_line(err)  # well-formed, refused by the rules
    assert c.read_bytes() == before


def test_bad_user_files_are_one_error_line(field_campaign, tmp_path, capsys):
    # Bug: UnicodeDecodeError / RecursionError tracebacks for orders and choices files.
    c = field_campaign
    bellica(capsys, "round", "start", c)
    bellica(capsys, "round", "publish", c)
    latin1 = tmp_path / "roma.toml"
    latin1.write_bytes(b'faction = "roma"\n# caf\xe9\n[armies.9]\nmoves = "3"\n')
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 100_000 + "\n")
    for f, says in ((latin1, "is not UTF-8 text: byte 22 (0xe9)"), (deep, "is nested too deeply to be read"),
                    (tmp_path / "nope.toml", "does not exist: check the path")):
        code, _, err = bellica(capsys, "round", "orders", c, "--file", f)
        assert code == 1 and says in _one_error_line(err), err
    for args in (("orders", "--faction", "roma", "9=3 3", "10="), ("orders", "--faction", "carthago", "1=9 9"), ("move",)):
        code, _, err = bellica(capsys, "round", args[0], c, *args[1:])
        assert code == 0, err
    bellica(capsys, "round", "result", c, "1", "--winner", "9", "--casualties", "9=25", "--casualties", "1=48")
    for f, says in ((latin1, "is not UTF-8 text: byte 22 (0xe9)"), (deep, "is nested too deeply to be read")):
        code, _, err = bellica(capsys, "round", "administer", c, "--choices", f)
        assert code == 1 and f"choices file {f} {says}" in _one_error_line(err), err
