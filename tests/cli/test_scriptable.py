"""Issue 10, item 6: the CLI as scripts use it.

``--json`` on the commands that print state, ``--version``, consistent ``--force`` and
``-q/--quiet``, click's shell completion, and exit codes that tell a rules refusal (3) and a
damaged campaign (4) from bad input (1) and a usage error (2).  Each exit code is taken from a
real command; README.md, "Scripting the CLI", documents what is checked here.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys

import click
import pytest

from bellica.cli import EXIT_DAMAGED, EXIT_INPUT, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, cli, exit_code, main
from bellica.geo.spatialdb import connect
from tests.cli.test_round_cli import campaign  # noqa: F401 - the fixture: a synthetic campaign, not started
from tests.cli.test_round_cli import bellica


def one_json(out: str):
    """stdout of a --json command: exactly one JSON document on one line."""
    lines = out.splitlines()
    assert len(lines) == 1, out
    return json.loads(lines[0])


@pytest.fixture
def started(campaign, capsys):  # noqa: F811 - the imported fixture
    assert bellica(capsys, "round", "start", campaign, "--seed", "5")[0] == 0
    return campaign


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """(map, campaign) built from tests/etl's synthetic map and scenario."""
    from tests.etl.test_campaign import build_synthetic_map, write_synthetic_scenario

    root = tmp_path_factory.mktemp("scriptable")
    m = build_synthetic_map(root / "map.duckdb")
    scen = write_synthetic_scenario(root / "scen")
    out = root / "c.duckdb"
    try:
        main(["campaign", "new", "--scenario", str(scen), "--out", str(out), "--map", str(m), "-q"])
    except SystemExit as e:
        assert e.code in (0, None)
    return m, out


# --- --version and shell completion -------------------------------------------------------------

def test_version_is_the_installed_distributions(capsys):
    code, out, err = bellica(capsys, "--version")
    assert code == EXIT_OK, err
    assert out.strip() == f"bellica {importlib.metadata.version('bellica')}"


def test_bash_completion_script_is_produced_and_completes(monkeypatch, capsys):
    monkeypatch.setenv("_BELLICA_COMPLETE", "bash_source")
    code, out, err = bellica(capsys)
    assert code == 0, err
    assert "_bellica_completion()" in out and "complete -o nosort -F _bellica_completion bellica" in out
    # What the script asks `bellica` for at each TAB: the words that complete the one typed.
    monkeypatch.setenv("_BELLICA_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "bellica ro")
    monkeypatch.setenv("COMP_CWORD", "1")
    code, out, _ = bellica(capsys)
    assert code == 0 and "plain,round" in out.splitlines()
    monkeypatch.setenv("COMP_WORDS", "bellica sql c.duckdb --j")
    monkeypatch.setenv("COMP_CWORD", "3")
    code, out, _ = bellica(capsys)
    assert "plain,--json" in out.splitlines()


@pytest.mark.parametrize("shell, marker", [("zsh_source", "#compdef bellica"), ("fish_source", "complete --no-files --command bellica")])
def test_zsh_and_fish_completion_scripts_are_produced(monkeypatch, capsys, shell, marker):
    monkeypatch.setenv("_BELLICA_COMPLETE", shell)
    code, out, _ = bellica(capsys)
    assert code == 0 and marker in out


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
def test_bash_accepts_the_completion_script():
    # The documented line, run by bash itself through the installed entry point's module.
    env = {**os.environ, "_BELLICA_COMPLETE": "bash_source"}
    script = subprocess.run([sys.executable, "-m", "bellica.cli"], env=env, capture_output=True, text=True, timeout=120)
    assert script.returncode == 0, script.stderr
    r = subprocess.run(["bash", "-c", 'eval "$SCRIPT" && complete -p bellica'], env={**os.environ, "SCRIPT": script.stdout},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "_bellica_completion" in r.stdout, r.stderr


# --- exit codes ----------------------------------------------------------------------------------

def test_exit_codes_tell_refusal_damage_input_and_usage_apart(started, capsys):
    c = started
    code, out, err = bellica(capsys, "round", "status", c)
    assert code == EXIT_OK == 0, err
    # 1: bad input (a query DuckDB cannot parse; a file that does not exist)
    code, _, err = bellica(capsys, "sql", c, "SELEC nonsense")
    assert code == EXIT_INPUT == 1 and err.startswith("error: ")
    code, _, err = bellica(capsys, "round", "status", c.parent / "nope.duckdb")
    assert code == EXIT_INPUT and "no such campaign file" in err
    # 2: usage (click's own: a missing argument, an unknown option, options that exclude each other)
    assert bellica(capsys, "sql", c)[0] == EXIT_USAGE == 2
    assert bellica(capsys, "round", "status", c, "--no-such-option")[0] == EXIT_USAGE
    code, _, err = bellica(capsys, "sql", c, "SELECT 1", "--csv", "--json")
    assert code == EXIT_USAGE and "give --csv or --json, not both" in err
    # 3: refused by the rules (a step out of order: movement before initiative is published)
    code, _, err = bellica(capsys, "round", "move", c)
    assert code == EXIT_REFUSED == 3
    assert err.strip() == "error: cannot run movement: round 1's initiative uses are not published yet; run `bellica round publish`"
    # 4: the campaign's log was edited outside bellica: verify names it, and every step refuses
    con = connect(c)
    try:
        con.execute("UPDATE events SET text = 'edited' WHERE seq = 2")
    finally:
        con.close()
    code, _, err = bellica(capsys, "round", "verify", c)
    assert code == EXIT_DAMAGED == 4 and "event 2 (set_campaign) does not match its hash" in err
    code, _, err = bellica(capsys, "round", "publish", c)
    assert code == EXIT_DAMAGED and "refused, nothing written" in err
    # A read-only look still shows it (with a warning): not an error.
    code, out, err = bellica(capsys, "round", "status", c)
    assert code == EXIT_OK and out and err.startswith("warning: ")


def test_an_illegal_order_is_refused_by_the_rules_and_a_malformed_one_is_bad_input(started, capsys):
    c = started
    assert bellica(capsys, "round", "publish", c)[0] == 0
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=" + " ".join(["0"] * 13))
    assert code == EXIT_REFUSED and "so at most 12 moves can be used" in err
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3 x 3")
    assert code == EXIT_INPUT and "'x' at column 3" in err


def test_exit_code_of_each_error_class():
    from bellica.engine.vae_victis.order_errors import IllegalOrderError, OrderProblem, OrderSyntaxError
    from bellica.engine.core.machine import StepRefused
    from bellica.engine.core.state import LogTampered, LogUnreadable, ReplayMismatch
    from bellica.geo.errors import InputError, MissingInputError

    problem = OrderProblem(9, "moves", "too far")
    assert exit_code(IllegalOrderError([problem])) == EXIT_REFUSED
    assert exit_code(OrderSyntaxError([problem])) == EXIT_INPUT
    assert exit_code(StepRefused("x")) == EXIT_REFUSED
    assert {exit_code(e("x")) for e in (ReplayMismatch, LogTampered, LogUnreadable)} == {EXIT_DAMAGED}
    assert {exit_code(e("x")) for e in (InputError, MissingInputError)} == {EXIT_INPUT}


# --- --json ---------------------------------------------------------------------------------------

def test_sql_json_is_one_array_of_objects_in_column_order(started, capsys):
    c = started
    code, out, err = bellica(capsys, "sql", c, "SELECT id, faction, strength FROM armies ORDER BY id", "--json")
    assert code == 0, err
    rows = one_json(out)
    assert rows == [{"id": 1, "faction": "carthago", "strength": rows[0]["strength"]},
                    {"id": 9, "faction": "roma", "strength": rows[1]["strength"]},
                    {"id": 10, "faction": "roma", "strength": rows[2]["strength"]}]
    assert list(rows[0]) == ["id", "faction", "strength"] and all(isinstance(r["strength"], int) for r in rows)
    # The same values as the CSV the command already prints.
    code, csv_out, _ = bellica(capsys, "sql", c, "SELECT id, faction, strength FROM armies ORDER BY id", "--csv")
    assert [line.split(",") for line in csv_out.splitlines()[1:]] == [[str(r["id"]), r["faction"], str(r["strength"])] for r in rows]
    # Types JSON lacks, repeated column names, NULL, an empty result.
    query = ("SELECT 1 AS a, 2 AS a, 1.50::DECIMAL(5,2) AS d, DATE '2024-03-01' AS day, 'nan'::DOUBLE AS f, "
             "[1, 2] AS l, {'x': 'é'} AS s, '\\xAA'::BLOB AS b, NULL AS n")
    code, out, err = bellica(capsys, "sql", c, query, "--json")
    assert code == 0, err
    assert one_json(out) == [{"a": 1, "a_1": 2, "d": 1.5, "day": "2024-03-01", "f": None, "l": [1, 2], "s": {"x": "é"},
                              "b": "aa", "n": None}]
    assert "é" in out  # UTF-8 kept, not \\u escapes
    code, out, _ = bellica(capsys, "sql", c, "SELECT * FROM armies WHERE false", "--json")
    assert one_json(out) == []


def test_sql_json_of_several_statements_is_one_array_per_line(started, tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_text("SELECT 1 AS one;\nCREATE TEMP TABLE t AS SELECT 2 AS two;\nSELECT two FROM t;\n")
    code, out, err = bellica(capsys, "sql", started, "--file", q, "--json")
    assert code == 0, err
    # CREATE ... AS reports its row count as a result, as in the table output.
    assert [json.loads(line) for line in out.splitlines()] == [[{"one": 1}], [{"Count": 1}], [{"two": 2}]]


def test_sql_json_refusal_leaves_stdout_empty(started, capsys):
    code, out, err = bellica(capsys, "sql", started, "COPY armies TO 'x.csv'", "--json")
    assert code == EXIT_INPUT and out == "" and err.startswith("error: ")


def test_map_info_json_holds_what_the_text_shows(synthetic, capsys):
    m, _ = synthetic
    code, text, err = bellica(capsys, "map", "info", m)
    assert code == 0, err
    code, out, err = bellica(capsys, "map", "info", m, "--json")
    assert code == 0, err
    info = one_json(out)
    assert set(info) == {"path", "meta", "kind", "terrain"} and info["path"] == str(m)
    assert sum(info["kind"].values()) > 0
    lines = dict(line.split(": ", 1) for line in text.splitlines())
    assert lines["kind"] == ", ".join(f"{k} {n}" for k, n in info["kind"].items())
    assert lines["terrain"] == ", ".join(f"{k} {n}" for k, n in info["terrain"].items())
    for key, value in info["meta"].items():
        assert lines[key] == (value if isinstance(value, str) else json.dumps(value)), key


def test_map_info_json_of_a_missing_map_is_one_error_line(tmp_path, capsys):
    code, out, err = bellica(capsys, "map", "info", tmp_path / "nope.duckdb", "--json")
    assert code == EXIT_INPUT and out == "" and len(err.strip().splitlines()) == 1 and err.startswith("error: ")


def test_campaign_structures_json_matches_the_table(synthetic, capsys):
    _, c = synthetic
    code, text, err = bellica(capsys, "campaign", "structures", c)
    assert code == 0, err
    code, out, err = bellica(capsys, "campaign", "structures", c, "--json")
    assert code == 0, err
    rows = one_json(out)
    assert rows and len(rows) == len(text.splitlines())
    assert all(list(r) == ["structure", "kind", "controller", "terrain", "coast", "resilience"] for r in rows)
    for r, line in zip(rows, text.splitlines()):
        words = line.split()
        assert words[0] == r["structure"] and words[1] == r["kind"]
        assert words[2] == (r["controller"] or "-")
        assert int(words[-1]) == r["resilience"] and ("coast" in words) == r["coast"]


def test_campaign_scenarios_json(capsys):
    code, text, err = bellica(capsys, "campaign", "scenarios")
    assert code == 0, err
    code, out, _ = bellica(capsys, "campaign", "scenarios", "--json")
    assert [f"{s['name']}: {s['title']}" for s in one_json(out)] == text.splitlines()


def test_round_status_json_says_who_submitted_never_what(started, capsys):
    from bellica.engine.vae_victis.steps import status_data as status_json
    from bellica.services.jsonout import dumps
    from bellica.commands.campaigns import open_campaign
    from bellica.engine.vae_victis import rounds

    c = started
    code, _, err = bellica(capsys, "round", "initiative", c, "--faction", "roma", "9=Mare Tyrrhenum")
    assert code == 0, err
    with open_campaign(c, read_only=True) as camp:
        s = rounds.round_status(camp)
        data = json.loads(dumps(status_json(s, campaign=camp)))
        bare = status_json(s)
    assert data == {
        "round": 1, "phase": "orders", "stage": "initiative", "winner": None, "next": s.next_step,
        "initiative": {"submitted": {"carthago": [], "roma": [9]}, "missing": {"carthago": [1], "roma": [10]}},
        "orders": {"submitted": {"carthago": [], "roma": []}, "missing": {"carthago": [1], "roma": [9, 10]},
                   "mode": "sealed", "revealed": False, "committed": []},
        "engagements": [], "deadline": None, "deadline_passed": False,
    }
    assert "Tyrrhenum" not in json.dumps(data)  # who, not what
    assert bare["initiative"] == {"submitted": None, "missing": {"carthago": [1], "roma": [10]}}
    # Orders in: who submitted is named, the moves are not.
    assert bellica(capsys, "round", "publish", c)[0] == 0
    code, _, err = bellica(capsys, "round", "orders", c, "--faction", "roma", "9=3 3", "10=")
    assert code == 0, err
    with open_campaign(c, read_only=True) as camp:
        data = json.loads(dumps(status_json(rounds.round_status(camp), campaign=camp)))
    assert data["initiative"] is None and data["stage"] != "initiative"
    assert data["orders"]["submitted"] == {"carthago": [], "roma": [9, 10]}
    assert data["orders"]["missing"] == {"carthago": [1], "roma": []}
    assert '3 3' not in json.dumps(data)


# --- --force and -q/--quiet across commands ---------------------------------------------------------

def _commands(group: click.Group, prefix=()):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # not group.commands: the top level loads its commands lazily
        cmd = group.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), cmd


def _options(cmd: click.Command) -> dict[str, click.Option]:
    return {p.name: p for p in cmd.params if isinstance(p, click.Option)}




def test_every_command_writing_a_file_takes_force_and_every_quiet_is_q():
    for name, cmd in _commands(cli):
        opts = _options(cmd)
        writes = any(o in opts for o in ("out", "out_dir"))
        if writes:
            assert "force" in opts and opts["force"].is_flag, f"`bellica {name}` writes a file but has no --force"
        if "quiet" in opts:
            assert sorted(opts["quiet"].opts) == ["--quiet", "-q"], f"`bellica {name}`: --quiet without -q"
        if "force" in opts:
            assert opts["force"].opts == ["--force"], name
        if "as_json" in opts:
            assert opts["as_json"].opts == ["--json"], name


def test_map_sources_refuses_to_replace_datasets_without_force(tmp_path, capsys):
    from bellica.etl.sources import DEM_NAME

    (tmp_path / DEM_NAME).write_bytes(b"old")
    code, out, err = bellica(capsys, "map", "sources", "--out-dir", tmp_path)
    assert code == EXIT_INPUT and out == ""
    assert err.strip() == f"error: {tmp_path / DEM_NAME} exists: pass --force to replace it, or choose another --out-dir"
    assert (tmp_path / DEM_NAME).read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_quiet_keeps_the_summary_and_drops_the_notes(tmp_path, capsys):
    from tests.etl.test_campaign import build_synthetic_map, write_synthetic_scenario

    m = build_synthetic_map(tmp_path / "map.duckdb")
    scen = write_synthetic_scenario(tmp_path / "scen")
    out = tmp_path / "c.duckdb"
    code, loud, err = bellica(capsys, "campaign", "new", "--scenario", scen, "--out", out, "--map", m)
    assert code == 0, err
    assert "  note: " in loud
    code, quiet, err = bellica(capsys, "campaign", "new", "--scenario", scen, "--out", out, "--map", m, "--force", "-q")
    assert code == 0, err
    summary = [line for line in loud.splitlines() if not line.startswith("  note: ")]
    assert len(summary) == 1 and len(quiet.splitlines()) == 1
    assert quiet.split(" in ")[0] == summary[0].split(" in ")[0]  # the same line but for the seconds taken
    code, out_check, _ = bellica(capsys, "campaign", "check", "--scenario", "first-punic-war")
    code_q, out_q, _ = bellica(capsys, "campaign", "check", "--scenario", "first-punic-war", "-q")
    assert code == code_q == 0 and out_q.splitlines() == out_check.splitlines()[:1] and out_q.endswith(": OK\n")


def test_ctrl_c_during_a_query_is_one_line_not_a_traceback(started, capsys, monkeypatch):
    # DuckDB catches SIGINT itself and raises RuntimeError("Query interrupted") from the running query.
    import bellica.engine.core.console as console

    def interrupted(*_args, **_kwargs):
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(console, "run_checked", interrupted)
    code, out, err = bellica(capsys, "sql", started, "SELECT count(*) FROM armies")
    assert code == 1 and err == "aborted\n" and out == ""
