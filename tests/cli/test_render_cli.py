"""`bellica render map`: writes the page and prints its path; bad input is one line and exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bellica.cli import cli, main
from tests.web_maps.synthetic import make_campaign_db, make_map_db
from bellica.web_maps.assets import remote_urls

BELLICA = Path(sys.executable).parent / "bellica"


def test_render_map_writes_html_and_prints_its_path(tmp_path):
    db = tmp_path / "latium.duckdb"
    make_map_db(db, k=2)
    out = tmp_path / "out" / "latium.html"
    result = CliRunner().invoke(cli, ["render", "map", str(db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(out)
    page = out.read_text(encoding="utf-8")
    assert remote_urls(page) == [] and "861e8" in page


def test_render_map_requires_out(tmp_path):
    result = CliRunner().invoke(cli, ["render", "map", str(tmp_path / "x.duckdb")])
    assert result.exit_code == 2 and "--out" in result.output


def test_missing_database_is_one_line_error_through_main(tmp_path, capsys):
    missing = tmp_path / "nowhere.duckdb"
    with pytest.raises(SystemExit) as info:
        main(["render", "map", str(missing), "--out", str(tmp_path / "m.html")])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: map database") and str(missing) in err and err.count("\n") == 1
    assert not missing.exists() and not (tmp_path / "m.html").exists()


def test_command_line_reports_a_map_that_is_not_a_database(tmp_path):
    bogus = tmp_path / "notes.duckdb"
    bogus.write_text("just text")
    # The installed `bellica` script (bellica.launch:main) runs bellica.cli:main, as `python -m bellica.cli` does.
    command = [str(BELLICA)] if BELLICA.exists() else [sys.executable, "-m", "bellica.cli"]
    proc = subprocess.run([*command, "render", "map", str(bogus), "--out", str(tmp_path / "m.html")],
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[2])
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: ") and "not a readable DuckDB database" in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""


def test_render_map_faction_view_of_a_campaign(tmp_path):
    db = tmp_path / "latium.duckdb"
    make_campaign_db(db)
    out = tmp_path / "etrusci.html"
    result = CliRunner().invoke(cli, ["render", "map", str(db), "--out", str(out), "--faction", "Etrusci"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "view of Etrusci" in page and "2468 FP" in page and "1357 FP" not in page


def test_unknown_faction_is_one_line_through_main(tmp_path, capsys):
    db = tmp_path / "latium.duckdb"
    make_campaign_db(db)
    with pytest.raises(SystemExit) as info:
        main(["render", "map", str(db), "--out", str(tmp_path / "m.html"), "--faction", "Samnites"])
    assert info.value.code == 2  # a faction the campaign does not have: a usage error, as for every command
    err = capsys.readouterr().err
    assert err.endswith("Error: Invalid value for --faction: 'Samnites' is not a faction of this campaign: "
                        "use one of Carthago, Etrusci, Roma\n")


# --- issue 8: a map argument that is not a DuckDB file, an impossible --out --------------


@pytest.mark.parametrize("content", ["text", "empty", "truncated"])
def test_render_map_of_a_file_that_is_not_duckdb(tmp_path, capsys, content):
    bad = tmp_path / "t.duckdb"
    if content == "truncated":
        make_map_db(tmp_path / "real.duckdb", k=2)
        bad.write_bytes((tmp_path / "real.duckdb").read_bytes()[:20000])
    else:
        bad.write_text("hi\n" if content == "text" else "")
    with pytest.raises(SystemExit) as info:
        main(["render", "map", str(bad), "--out", str(tmp_path / "m.html")])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "t.duckdb" in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "m.html").exists()


def test_render_map_to_an_out_under_a_file(tmp_path, capsys):
    db = tmp_path / "latium.duckdb"
    make_map_db(db, k=2)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(SystemExit) as info:
        main(["render", "map", str(db), "--out", str(tmp_path / "afile" / "m.html")])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --out") and "cannot create its folder" in err and err.count("\n") == 1


def test_render_map_replaces_a_page_only_with_force_and_never_a_database(tmp_path, capsys):
    db = tmp_path / "latium.duckdb"
    make_map_db(db, k=1)
    out = tmp_path / "latium.html"
    out.write_text("the player's own notes")
    with pytest.raises(SystemExit) as exc:
        main(["render", "map", str(db), "--out", str(out)])
    assert exc.value.code == 1
    assert capsys.readouterr().err.strip() == f"error: {out} exists: pass --force to replace it, or choose another --out"
    assert out.read_text() == "the player's own notes"
    main(["render", "map", str(db), "--out", str(out), "--force"])
    assert "861e8" in out.read_text(encoding="utf-8")
    campaign = tmp_path / "c.duckdb"
    make_campaign_db(campaign)
    with pytest.raises(SystemExit) as exc:
        main(["render", "map", str(db), "--out", str(campaign), "--force"])
    assert exc.value.code == 1 and "never replaces a campaign" in capsys.readouterr().err
