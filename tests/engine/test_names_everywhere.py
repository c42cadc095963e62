"""One name matcher for everything a user types, in every game (issue 22, item 5): a name is
taken as spelled, in any case, or by a unique beginning (of the name or of a later word of it:
"Porte" for "Ottoman Porte"); a beginning that fits several is refused naming them with a "did
you mean"; a misspelling is refused with the nearest ones.  One test per ruleset, each kind of
name it takes from a user."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bellica.engine.core.names import matches, named, one_named
from bellica.engine.core.steps import Param, ParamError
from bellica.geo.errors import InputError


def _refused(fn, *args, **kw) -> str:
    with pytest.raises((InputError, ParamError)) as e:
        fn(*args, **kw)
    return str(e.value)


def test_the_core_matcher_rules():
    nations = ["Russia", "Ottoman Porte", "Danubian Principalities", "Crimean Khanate", "Boian Celts", "Senon Celts"]
    assert matches("russia", nations) == ["Russia"]
    assert matches("OTTO", nations) == ["Ottoman Porte"]
    assert matches("Porte", nations) == ["Ottoman Porte"]  # the README's own example
    assert matches("senon", nations) == ["Senon Celts"]
    assert named("khanate", nations, "--with", "no nation of this campaign") == "Crimean Khanate"
    why = _refused(named, "celts", nations, "--nation", "no nation of this campaign")
    assert "begins several (Boian Celts, Senon Celts)" in why and "did you mean Boian Celts or Senon Celts?" in why
    why = _refused(named, "Russai", nations, "--nation", "no nation of this campaign")
    assert "did you mean Russia?" in why and "use one of Russia, Ottoman Porte" in why
    why = _refused(one_named, "celts", nations, what="power")
    assert "begins several powers" in why and "did you mean" in why


def test_a_declared_choice_and_faction_take_a_unique_beginning_in_any_case():
    margin = Param("margin", "A Major or a Minor Victory.", "choice", "--margin", choices=("major", "minor"))
    assert margin.parse("MAJ") == "major" and margin.parse("Minor") == "minor"
    why = _refused(margin.parse, "m")
    assert "begins several of major, minor" in why and "did you mean major or minor?" in why
    assert "is not one of major, minor" in _refused(margin.parse, "draw")
    side = Param("side", "A faction.", "faction", "--with")
    assert side.parse("porte", ["Russia", "Ottoman Porte"], "nation") == "Ottoman Porte"
    assert "did you mean" in _refused(side.parse, "celts", ["Boian Celts", "Senon Celts"], "power")


def test_mare_nostrum_nations_provinces_seas_wheels():
    from bellica.engine.mare_nostrum.names import nation_named, province_named, sea_named, wheel_named

    nations = {"Romans": "RM", "Carthaginians": "CA", "Macedonians": "MI", "Ptolemaics": "NA", "Seleucids": "BA",
               "Gauls": "GE"}
    scenario = SimpleNamespace(nations={n: SimpleNamespace(wheel=w) for n, w in nations.items()},
                               provinces={"Sicilia": 1, "Sardinia": 1, "Africa": 1, "Achaea": 1},
                               seas={"Ionian Sea": 1, "Tyrrhenian Sea": 1, "Aegean Sea": 1})
    c = SimpleNamespace(board=scenario)
    assert nation_named(c, "carth") == "Carthaginians" and nation_named(c, "PTOL") == "Ptolemaics"
    assert province_named(scenario, "sic") == "Sicilia"
    assert sea_named(scenario, "ionian") == "Ionian Sea"
    assert wheel_named(scenario, "ba") == "BA" and wheel_named(scenario, "bari") == "BA"
    assert wheel_named(scenario, "seleu") == "BA"
    why = _refused(province_named, scenario, "a")
    assert "begins several (Africa, Achaea)" in why and "did you mean" in why
    assert "did you mean Sicilia?" in _refused(province_named, scenario, "Sicilai")
    why = _refused(sea_named, scenario, "sea")  # a later word of every quadrant
    assert "begins several" in why and "did you mean" in why


def test_magna_graecia_sides_and_nodes():
    from bellica.engine.magna_graecia.inputs import node_named, side_named

    board = SimpleNamespace(scenario=SimpleNamespace(order=["Carthaginians", "Syracusans"]),
                            nmap=SimpleNamespace(places={"Motya": 1, "Messana": 1, "Syracuse": 1, "Leontini": 1}))
    assert side_named(board, "SYRA") == "Syracusans" and side_named(board, "carth") == "Carthaginians"
    assert node_named(board, "mot") == "Motya" and node_named(board, "leontini") == "Leontini"
    why = _refused(node_named, board, "m")
    assert "begins several (Messana, Motya)" in why and "did you mean Messana or Motya?" in why
    assert "did you mean Syracusans?" in _refused(side_named, board, "Syracusnas")


def test_vae_victis_order_names_and_administration_choices():
    from bellica.engine.vae_victis.model import ArmyOrders
    from bellica.engine.vae_victis.order_names import spelled_orders
    from bellica.engine.vae_victis.rounds.administration_step import spelled_choices
    from bellica.engine.vae_victis.rounds.choices import AdminChoices

    board = SimpleNamespace(sea_zones={"h1": ("Mare Sardoum", "Mare Tyrrhenum"), "h2": ("Mare Siculum",)},
                            structures={"Caralis": 1, "Capua": 1, "Antium": 1, "Syracusae": 1})
    orders = {9: ArmyOrders(9, initiative="tyrrh", assault="ANTIUM", sea_links=(("sardoum", "caral"),)),
              10: ArmyOrders(10, initiative="Strength")}
    spelled, problems = spelled_orders(board, orders)
    assert not problems
    assert spelled[9] == ArmyOrders(9, initiative="Mare Tyrrhenum", assault="Antium",
                                    sea_links=(("Mare Sardoum", "Caralis"),))
    assert spelled[10].initiative == "strength"
    _, problems = spelled_orders(board, {9: ArmyOrders(9, assault="ca", initiative="mare s")})
    text = "; ".join(p.message if hasattr(p, "message") else str(p) for p in problems)
    assert "begins several structures of this campaign (Capua, Caralis)" in text and "did you mean" in text
    assert "(Mare Sardoum, Mare Siculum)" in text
    choices = spelled_choices(board, AdminChoices(siege_starts={9: "syra"}, take_overs=frozenset({"capu"})))
    assert choices.siege_starts == {9: "Syracusae"} and choices.take_overs == frozenset({"Capua"})
    why = _refused(spelled_choices, board, AdminChoices(surrenders=frozenset({"ca"})))
    assert "surrender: 'ca' begins several structures" in why and "did you mean Capua or Caralis?" in why


# --- the two rulesets the issue saw refuse a beginning: played from the command line ---------------


def _cli(capsys, *args) -> tuple[int, str, str]:
    from bellica.cli import main

    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def trossian_base(tmp_path_factory):
    return tmp_path_factory.mktemp("names-trossian")


def test_trossian_nations_provinces_and_orders(trossian_base, tmp_path, capsys):
    from tests.engine.trossian.campaign_file import fresh_campaign

    c = fresh_campaign(trossian_base, tmp_path / "c.duckdb")
    assert _cli(capsys, "trossian", "start", c, "--seed", 1806)[0] == 0
    assert _cli(capsys, "trossian", "next", c)[0] == 0
    code, out, err = _cli(capsys, "trossian", "march", c, "--nation", "RUSS", "--army", 1, "--to", "bessar",
                          "--to", "MOLDAVIA")
    assert code == 0, err
    code, out, err = _cli(capsys, "trossian", "ally", c, "--nation", "Porte", "--with", "crim")
    assert code == 0, err
    assert "Ottoman Porte" in out and "Crimean Khanate" in out
    code, out, err = _cli(capsys, "trossian", "march", c, "--nation", "Russia", "--army", 1, "--to", "b")
    assert code == 1 and "begins several" in err and "did you mean" in err
    code, out, err = _cli(capsys, "trossian", "done", c, "--nation", "Russai")
    assert code != 0 and "did you mean Russia?" in err


@pytest.fixture(scope="module")
def rome_map(tmp_path_factory, scenario_map):
    """The scenario's map (built once a run: tests/conftest.py scenario_map)."""
    return scenario_map("rise-of-rome", tmp_path_factory.mktemp("names-ror") / "italy.duckdb")


def test_rise_of_rome_target_and_power(rome_map, tmp_path, capsys):
    c = tmp_path / "rome.duckdb"
    assert _cli(capsys, "campaign", "new", "--scenario", "rise-of-rome", "--map", rome_map, "--out", c, "-q")[0] == 0
    assert _cli(capsys, "turn", "start", c, "--seed", 1)[0] == 0
    assert _cli(capsys, "turn", "next", c)[0] == 0
    code, out, err = _cli(capsys, "turn", "attack", c, "--target", "celts")
    assert code != 0 and "(Boian Celts, Senon Celts)" in err and "did you mean Boian Celts or Senon Celts?" in err
    code, out, err = _cli(capsys, "turn", "attack", c, "--target", "Samnitse")
    assert code != 0 and "did you mean Samnites?" in err
    code, out, err = _cli(capsys, "turn", "attack", c, "--target", "senon", "--power", "rom")
    assert code == 0, err
    assert "Rome's decision, attack Senon Celts" in out
