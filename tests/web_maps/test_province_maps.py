"""Province campaigns on the map: `bellica render map` of a Rise of Rome or Mare Nostrum campaign
draws the ruleset's player view (engine/<ruleset>/player_view.py, drawn by
web_maps/feature_layers.py): its provinces coloured by owner over the terrain, capitals,
resources, forces, the attack options outlined, a panel; a faction's view.

The campaign is real: the scenario's bbox at res 5 (built once for the module, about a second),
the nineteen provinces built from the capitals, two turns played by a scripted Rome.
"""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from bellica.cli import main
from bellica.engine.core.view import PALETTE
from bellica.etl.situation import UnknownFactionError
from bellica.services.maps import render_map
from bellica.web_maps.assets import remote_urls
from tests.web_maps.synthetic import layer_payloads


def render_terrain_map(path, out, faction=None):
    """The page `bellica render map` writes (the campaign's player view over its terrain)."""
    return render_map(path, out, faction=faction)


def bellica(*args) -> None:
    try:
        main([str(a) for a in args])
    except SystemExit as e:
        assert not e.code, args


@pytest.fixture(scope="module")
def campaign(tmp_path_factory, scenario_map):
    """A Rise of Rome campaign two turns in (Rome attacks its poorest neighbour in turn 1)."""
    folder = tmp_path_factory.mktemp("ror-map")
    map_path, path = scenario_map("rise-of-rome", folder / "italy5.duckdb"), folder / "rome.duckdb"
    bellica("campaign", "new", "--scenario", "rise-of-rome", "--map", map_path, "--out", path, "-q")
    shutil.copy(path, folder / "new.duckdb")
    bellica("turn", "start", path, "--seed", "348")
    return path


@pytest.fixture(scope="module")
def played(campaign, tmp_path_factory):
    import io
    from contextlib import redirect_stdout

    path = tmp_path_factory.mktemp("played") / "rome.duckdb"
    shutil.copy(campaign, path)
    for _ in range(60):
        with redirect_stdout(io.StringIO()):
            bellica("turn", "next", path)
        with redirect_stdout(buf := io.StringIO()):
            bellica("turn", "status", path, "--json")
        view = json.loads(buf.getvalue())
        if view["turn"] > 2 or view["next_step"] is None:
            break
        with redirect_stdout(io.StringIO()):
            if view["next_step"] == "attack":
                rev = {p["power"]: p["revenue"] or 0 for p in view["powers"]}
                if view["turn"] == 1 and view["targets"]:
                    bellica("turn", "attack", path, "--target", min(view["targets"], key=lambda t: (rev[t], t)))
                else:
                    bellica("turn", "attack", path, "--none")
            elif view["next_step"] == "spend":
                free = view["rome_free"]
                bellica("turn", "spend", path, "--attack", free // 2, "--civic", free - free // 2)
            elif view["next_step"] == "result":
                bellica("turn", "result", path, view["pending_battle"]["index"], "--winner", "Romans", "--margin", "minor")
    return path


def _state(path):
    con = duckdb.connect(str(path), read_only=True)
    try:
        control = dict(con.execute("SELECT province, power FROM ror_control").fetchall())
        occupied = {r[0] for r in con.execute("SELECT province FROM ror_externals WHERE province IS NOT NULL").fetchall()}
        powers = [r[0] for r in con.execute("SELECT name FROM ror_powers ORDER BY ord").fetchall()]
        provinces = {r[0]: r[1:] for r in con.execute("SELECT name, revenue, resource FROM ror_provinces").fetchall()}
        attackable = {r[0] for r in con.execute("SELECT province FROM ror_attackable WHERE attacker = 'Romans'").fetchall()}
    finally:
        con.close()
    return control, occupied, powers, provinces, attackable


def test_the_umpire_page_draws_the_provinces_coloured_by_owner(played, tmp_path):
    page = render_terrain_map(played, tmp_path / "rome.html").read_text(encoding="utf-8")
    assert remote_urls(page) == []
    for layer in ("Terrain", "Provinces", "Provinces: names", "Romans may attack", "Capitals, resources, forces"):
        assert f'"{layer}" :' in page, layer
    control, occupied, powers, provinces, attackable = _state(played)
    layers = layer_payloads(page, "province_layer")
    drawn = next(d for d in layers if d["tips"] and d["tips"][0][0][0] == "province")
    assert len(drawn["p"]) == 19
    for colour, tip in zip(drawn["c"], drawn["tips"]):
        rows = dict(map(tuple, tip))
        name = rows["province"]
        owner = None if name in occupied else control[name]
        assert rows["owner"] == (owner or "nobody")
        assert colour == (PALETTE[powers.index(owner)] if owner else "#bdbdbd"), name
        assert rows["revenue"] == provinces[name][0] and rows.get("resource") == provinces[name][1]
    assert all(len(ring) >= 6 for poly in drawn["p"] for part in poly for ring in part)  # polygons, lon/lat pairs
    # Rome's attack options: the dashed outline holds exactly ror_attackable's provinces.
    outline = next(d for d in layers if d["style"].get("fillOpacity") == 0.0)
    assert len(outline["p"]) == len(attackable) > 0
    points = [p for layer in layer_payloads(page, "point_layer") for p in layer]
    seats = {p["label"] for p in points if p["shape"] == "star"}
    assert {"Roma", "Capua", "Syracusae", "Taras"} <= seats and len(seats) == 9
    # The nine resources are symbols (a glyph per kind, one colour per kind), not words cut to three letters.
    resources = [p for p in points if p["shape"] == "symbol"]
    assert len(resources) == 9 and {p["text"] for p in resources} == {"\u2766", "\u2693", "\u2692"}
    assert len({p["colour"] for p in resources}) == 3 and all(len(p["text"]) == 1 for p in resources)
    assert drawn["owned"] is True  # owners hatched and banded over the terrain, not blended into it
    assert {"Latium", "Campania", "Syracusae"} <= {p["label"] for p in points if p.get("lc", "").startswith("bellica-label")}
    for words in ("Romans", "Civic Development", "Verdict bands", "umpire's view", "a power's seat", "Turn"):
        assert words in page, words


def test_a_faction_view_hides_nothing_but_says_so(played, tmp_path):
    page = render_terrain_map(played, tmp_path / "romans.html", faction="romans").read_text(encoding="utf-8")
    assert "view of Romans" in page and "Romans (you)" in page
    assert "nothing (only the powers' future dice, not yet rolled)" in page
    umpire = render_terrain_map(played, tmp_path / "u.html").read_text(encoding="utf-8")
    provinces = lambda p: next(d for d in layer_payloads(p, "province_layer") if d["tips"])  # noqa: E731
    assert provinces(page) == provinces(umpire)  # the same board
    with pytest.raises(UnknownFactionError, match=r"^--faction 'Atlantis' is not a faction of this campaign: use one of "):
        render_terrain_map(played, tmp_path / "x.html", faction="Atlantis")


def test_an_unknown_faction_is_a_usage_error(played, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["render", "map", str(played), "--out", str(tmp_path / "x.html"), "--faction", "Atlantis"])
    assert e.value.code == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("Error:")]
    assert len(err) == 1 and "'Atlantis' is not a faction of this campaign: use one of " in err[0] and "Romans" in err[0]
    assert not (tmp_path / "x.html").exists()


def test_a_campaign_started_or_not_renders(campaign, tmp_path):
    page = render_terrain_map(campaign, tmp_path / "started.html").read_text(encoding="utf-8")
    drawn = next(d for d in layer_payloads(page, "province_layer") if d["tips"])
    assert len(drawn["p"]) == 19 and "Civic Development" in page
    # Not yet started: drawn as it will start, every province its home power's, nothing else on the board.
    page = render_terrain_map(campaign.parent / "new.duckdb", tmp_path / "new.html").read_text(encoding="utf-8")
    drawn = next(d for d in layer_payloads(page, "province_layer") if d["tips"])
    assert len(drawn["p"]) == 19 and '["Turn","not started"]' in page
    assert all(dict(map(tuple, t))["owner"] != "nobody" for t in drawn["tips"] if dict(map(tuple, t)).get("home of"))


@pytest.mark.browser
def test_the_province_page_in_chromium(played, tmp_path):
    from tests.web_maps.browser import offline_page

    html = render_terrain_map(played, tmp_path / "rome.html", faction="Romans")
    with offline_page(html) as run:
        page = run.page
        page.wait_for_selector(".bellica-panel", timeout=15000)
        labels = set(page.locator(".bellica-label").all_text_contents())
        assert {"Latium", "Campania", "Roma"} <= labels
        panel = page.locator(".bellica-panel").inner_text()
        assert "view of Romans" in panel and "Civic Development" in panel and "Hidden" in panel
        legend = page.locator(".bellica-legend").inner_text()
        assert "Provinces" in legend and "Romans (you)" in legend
        assert run.errors == [] and run.blocked == []


# --- Mare Nostrum --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nostrum_fresh(tmp_path_factory, scenario_map):
    """A new Mare Nostrum campaign (the scenario's bbox at res 4, the 38 provinces from their capitals)."""
    from bellica.demo_mare_nostrum import build_demo_campaign

    folder = tmp_path_factory.mktemp("mn")
    return build_demo_campaign(folder / "mn.duckdb", map_path=scenario_map("mare-nostrum", folder / "mn4.duckdb", res=4))


@pytest.fixture(scope="module")
def nostrum(nostrum_fresh, tmp_path_factory):
    """The demo's turn 1 played by all six nations (works built, a fleet at sea, battles fought)."""
    from bellica.demo_mare_nostrum import run_demo_turn

    path = tmp_path_factory.mktemp("mn-played") / "mn.duckdb"
    shutil.copy(nostrum_fresh, path)
    run_demo_turn(path)
    return path


@pytest.fixture(scope="module")
def nostrum_midturn(nostrum_fresh, tmp_path_factory):
    """Turn 1 in its actions phase: the Romans have attacked Sicilia and it is still their turn."""
    from bellica.demo_mare_nostrum import WHEELS
    from bellica.engine.core.campaign import Campaign
    from bellica.engine.mare_nostrum.ruleset import act, enter_wheel, run_engine_step

    path = tmp_path_factory.mktemp("mn-mid") / "mn.duckdb"
    shutil.copy(nostrum_fresh, path)
    with Campaign.open(path) as c:
        c.start(seed=290)
        for wheel, numbers in WHEELS.items():
            enter_wheel(c, wheel, numbers)
        run_engine_step(c, "begin")
        act(c, "attack", "Romans", base="Bruttium", target="Sicilia")
    return path


def _mn(path, sql):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_mare_nostrum_page_colours_provinces_by_nation(nostrum, tmp_path):
    page = render_terrain_map(nostrum, tmp_path / "mn.html").read_text(encoding="utf-8")
    assert remote_urls(page) == []
    for layer in ("Terrain", "Sea quadrants", "Sea quadrants: names", "Provinces", "Provinces: names",
                  "battles of turn 1", "Capitals, resources, forces"):
        assert f'"{layer}" :' in page, layer
    colours = dict(_mn(nostrum, "SELECT name, colour FROM mn_nations"))
    control = dict(_mn(nostrum, "SELECT province, nation FROM mn_control"))
    layers = layer_payloads(page, "province_layer")
    drawn = next(d for d in layers if d["tips"] and d["tips"][0][0][0] == "province")
    assert len(drawn["p"]) == 38
    for colour, tip in zip(drawn["c"], drawn["tips"]):
        rows = dict(map(tuple, tip))
        owner = control[rows["province"]]
        assert rows["owner"] == (owner or "nobody")
        assert colour == (colours[owner] if owner else "#bdbdbd"), rows["province"]
    assert dict(map(tuple, next(t for t in drawn["tips"] if t[0][1] == "Africa")))["works"] == "1 fortification"
    # the scenario's eleven sea quadrants, each with its note, coasts and fleets
    seas = next(d for d in layers if d["tips"] and d["tips"][0][0][0] == "sea")
    assert len(seas["p"]) == 11
    syriacum = dict(map(tuple, next(t for t in seas["tips"] if t[0][1] == "Mare Syriacum")))
    assert syriacum["fleets"] == "1 (Ptolemaics)" and "Cyprus" in syriacum["coasts"]
    points = [p for layer in layer_payloads(page, "point_layer") for p in layer]
    seats = {p["label"] for p in points if p["shape"] == "star"}
    assert len(seats) == 6 and {"Roma", "Carthago", "Alexandria"} <= seats
    works = sorted(p["text"] for p in points if p["shape"] == "army" and p["text"] in "FSTA")
    assert works == ["A", "F", "F", "S", "S"]  # Africa and Syria fortified, Pella and Celtica suburbs, Alexandria's artworks
    fleet = next(p for p in points if p["shape"] == "navy")
    assert fleet["colour"] == colours["Ptolemaics"] and fleet["text"] == "1"
    assert {p["text"] for p in points if p["shape"] == "army" and p["text"] in ("Inv", "All")} == {"Inv", "All"}
    for words in ("umpire's view", "Order of play", "Romans, Carthaginians, Macedonians", "turn 2 to begin",
                  "fortification (F)", "suburb (S)", "fleet, in its sea quadrant", "sea quadrant"):
        assert words in page, words


def test_a_mare_nostrum_faction_view_hides_nothing_and_outlines_its_attacks(nostrum_midturn, tmp_path):
    page = render_terrain_map(nostrum_midturn, tmp_path / "rom.html", faction="romans").read_text(encoding="utf-8")
    assert "view of Romans" in page and "Romans (you)" in page
    assert "nothing: the campaign is played in the open" in page
    assert '"Romans may attack by land" :' in page and "Acting" in page and "1 of 15 (290 BC to 280 BC)" in page
    assert "Siege Train" in page  # this turn's events, as the status says them
    targets = {r[0] for r in _mn(nostrum_midturn, "SELECT province FROM mn_attackable WHERE attacker = 'Romans'")}
    layers = layer_payloads(page, "province_layer")
    outline = next(d for d in layers if d["style"].get("fillOpacity") == 0.0 and d["style"]["color"] == "#b71c1c")
    assert len(outline["p"]) == len(targets) > 0 and "Sicilia" not in targets  # attacked already this turn
    umpire = render_terrain_map(nostrum_midturn, tmp_path / "u.html").read_text(encoding="utf-8")
    assert '"Romans may attack by land" :' in umpire  # the acting nation's options, in the umpire's view too
    provinces = lambda p: next(d for d in layer_payloads(p, "province_layer") if d["tips"] and d["tips"][0][0][0] == "province")  # noqa: E731
    assert provinces(page) == provinces(umpire)  # the same board
    with pytest.raises(UnknownFactionError, match=r"^--faction 'Atlantis' is not a faction of this campaign: use one of "):
        render_terrain_map(nostrum_midturn, tmp_path / "x.html", faction="Atlantis")


def test_a_new_mare_nostrum_campaign_renders(nostrum_fresh, tmp_path):
    out = tmp_path / "new.html"
    bellica("render", "map", nostrum_fresh, "--out", out, "--force")
    page = out.read_text(encoding="utf-8")
    drawn = next(d for d in layer_payloads(page, "province_layer") if d["tips"] and d["tips"][0][0][0] == "province")
    assert len(drawn["p"]) == 38 and "turn 1 to begin" in page


@pytest.mark.browser
def test_the_mare_nostrum_page_in_chromium(nostrum, tmp_path):
    from tests.web_maps.browser import offline_page

    html = render_terrain_map(nostrum, tmp_path / "mn.html", faction="Ptolemaics")
    with offline_page(html) as run:
        page = run.page
        page.wait_for_selector(".bellica-panel", timeout=15000)
        labels = set(page.locator(".bellica-label").all_text_contents())
        assert {"Aegyptus", "Latium", "Alexandria"} <= labels
        assert "Mare Syriacum" in set(page.locator(".bellica-zone-label").all_text_contents())
        panel = page.locator(".bellica-panel").inner_text()
        assert "view of Ptolemaics" in panel and "Order of play" in panel and "Hidden" in panel
        legend = page.locator(".bellica-legend").inner_text()
        assert "Provinces" in legend and "Ptolemaics" in legend and "fortification (F)" in legend
        assert run.errors == [] and run.blocked == []
