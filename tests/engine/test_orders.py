"""Orders: syntax as players write them, legality in the position, all problems at once."""

import pytest

from bellica.engine.vae_victis.model import ArmyOrders, Siege, Transfer
from bellica.engine.vae_victis.orders import (
    IllegalOrderError,
    OrderError,
    OrderSyntaxError,
    army_orders_from_cli,
    load_orders_file,
    orders_from_cli,
    parse_moves,
    parse_orders_text,
    validate_orders,
    walk_moves,
)
from bellica.geo.errors import InputError, MissingInputError
from tests.engine.boards import sketch

TM = sketch(
    radius=3,
    terrain={"3 3": "peaks"},
    water={"9": "coast", "9 9": "sea", "5 5": "lake"},
    structures=[
        ("Ostia", "town", "", "roma"),
        ("Capua", "city", "1 1", "carthago"),
        ("Neapolis", "town", "7", "roma"),
    ],
)
STATE = TM.state(
    [(1, "carthago", "1 1"), (2, "carthago", "5"), (9, "roma", "3"), (10, "roma", "1"), (11, "roma", "7", 1600, True)],
    sieges=[Siege("Capua", "roma", (10,), 3, 3, 1)],
)


def test_seed_move_strings_parse():
    assert parse_moves("2 4 2 6 0 6") == (2, 4, 2, 6, 0, 6)
    assert parse_moves("3 3 5 0 5") == (3, 3, 5, 0, 5)
    assert parse_moves("  12\t0 ") == (12, 0)
    assert parse_moves("") == ()


@pytest.mark.parametrize(
    "text, index, token",
    [("3,3", 1, "'3,3'"), ("3 3 x 5", 3, "'x'"), ("3 13", 2, "'13'"), ("3 -1", 2, "'-1'"), ("3 3 5.", 3, "'5.'")],
)
def test_other_symbols_are_rejected_with_position(text, index, token):
    with pytest.raises(OrderSyntaxError) as e:
        parse_moves(text, army=9)
    (p,) = e.value.problems
    assert p.army == 9 and p.index == index and token in p.message and f'"{text}"' in p.message
    assert isinstance(e.value, InputError) and isinstance(e.value, ValueError)


def test_every_bad_token_is_listed():
    with pytest.raises(OrderSyntaxError) as e:
        parse_moves("3, 5; 7")
    assert [p.index for p in e.value.problems] == [1, 2]


def test_walk_follows_clock_positions():
    assert walk_moves(TM.board, TM.cell(""), (3, 0, 1)) == [TM.cell(""), TM.cell("3"), TM.cell("3"), TM.cell("3 1")]


def test_unknown_direction_lists_valid_clock_positions():
    orders = {9: ArmyOrders(9, (1, 2))}
    with pytest.raises(IllegalOrderError) as e:
        validate_orders(TM.board, STATE, "roma", orders)
    (p,) = e.value.problems
    assert p.army == 9 and p.index == 2
    assert "valid clock positions here: 1 3 5 7 9 11" in p.message and TM.cell("3 1") in p.message
    assert '"1 2"' in p.message


def test_off_the_map_is_told_apart():
    with pytest.raises(IllegalOrderError, match="leads off the map"):
        validate_orders(TM.board, STATE, "roma", {9: ArmyOrders(9, (1, 1, 1, 1))})


@pytest.mark.parametrize("moves, index, what", [((9, 9, 9), 2, "coast"), ((1, 0, 11), None, None),
                                                 ((0, 3), 2, "peaks")])
def test_impassable_hexes(moves, index, what):
    # army 9 stands at "3": 9 leads back to the centre, then onto the coast; 3 onto the peaks
    orders = {9: ArmyOrders(9, moves)}
    if what is None:
        validate_orders(TM.board, STATE, "roma", orders)
        return
    with pytest.raises(IllegalOrderError) as e:
        validate_orders(TM.board, STATE, "roma", orders)
    assert e.value.problems[0].index == index and what in e.value.problems[0].message


def test_lake_is_impassable():
    s = TM.state([(9, "roma", "5")])
    with pytest.raises(IllegalOrderError, match="lake hex"):
        validate_orders(TM.board, s, "roma", {9: ArmyOrders(9, (5,))})


def test_army_checks_and_all_problems_collected():
    orders = {
        1: ArmyOrders(1, (3,)),                    # not roma
        11: ArmyOrders(11, (3,)),                  # eliminated
        42: ArmyOrders(42, ()),                    # unknown
        9: ArmyOrders(9, (3, 2), assault="Capua"),  # bad direction + assault without siege
        10: ArmyOrders(10, (), assault="Capua"),    # fine: 10 besieges Capua
    }
    with pytest.raises(IllegalOrderError) as e:
        validate_orders(TM.board, STATE, "roma", orders)
    msgs = {(p.army, p.field): p.message for p in e.value.problems}
    assert "belongs to carthago" in msgs[(1, "army")]
    assert "eliminated" in msgs[(11, "army")]
    assert "no such army" in msgs[(42, "army")]
    assert "Capua is not besieged by army 9" in msgs[(9, "assault")]
    assert (9, "moves") in msgs and 10 not in {p.army for p in e.value.problems}
    assert "5 problem(s)" in str(e.value)


def test_lift_siege_needs_a_siege():
    with pytest.raises(IllegalOrderError, match="no siege to lift"):
        validate_orders(TM.board, STATE, "roma", {9: ArmyOrders(9, lift_siege=True)})
    validate_orders(TM.board, STATE, "roma", {10: ArmyOrders(10, lift_siege=True)})


def test_transfers_cap_and_links():
    linked = [(9, 10)]
    ok = {9: ArmyOrders(9, transfers=(Transfer(10, 60),)), 10: ArmyOrders(10, transfers=(Transfer(9, 40),))}
    validate_orders(TM.board, STATE, "roma", ok, linked_pairs=linked)
    over = {9: ArmyOrders(9, transfers=(Transfer(10, 60),)), 10: ArmyOrders(10, transfers=(Transfer(9, 41),))}
    with pytest.raises(IllegalOrderError, match="to 101, over the cap of 100"):
        validate_orders(TM.board, STATE, "roma", over, linked_pairs=linked)
    with pytest.raises(IllegalOrderError, match="not connected by logistics"):
        validate_orders(TM.board, STATE, "roma", ok)
    with pytest.raises(IllegalOrderError, match="over the cap"):
        validate_orders(TM.board, STATE, "roma", {9: ArmyOrders(9, transfers=(Transfer(10, 30),))},
                        linked_pairs=linked, transferred_before={frozenset((9, 10)): 80})
    with pytest.raises(IllegalOrderError, match="belongs to carthago"):
        validate_orders(TM.board, STATE, "roma", {9: ArmyOrders(9, transfers=(Transfer(1, 30),))},
                        linked_pairs=[(9, 1)])


def test_initiative_sea_zone_and_cap():
    # roma controls Ostia and Neapolis, both next to the coast hex of Mare Tyrrhenum: cap 1 x 2.
    two = {9: ArmyOrders(9, initiative="Mare Tyrrhenum"), 10: ArmyOrders(10, initiative="Mare Tyrrhenum")}
    validate_orders(TM.board, STATE, "roma", two)
    s = TM.state([(9, "roma", "3"), (10, "roma", "1")], control={"Neapolis": "carthago"})
    with pytest.raises(IllegalOrderError, match="at most 1"):
        validate_orders(TM.board, s, "roma", two)
    with pytest.raises(IllegalOrderError, match="did you mean 'Mare Tyrrhenum'"):
        validate_orders(TM.board, STATE, "roma", {9: ArmyOrders(9, initiative="Mare Tyrhenum")})


ORDERS_TOML = """
faction = "roma"
round = 2

[armies.9]
moves = "1 0 11"
initiative = "Mare Tyrrhenum"

[armies.10]
moves = ""
assault = "Capua"
transfers = [{ to = 9, fp = 50 }]
"""


def test_orders_file_round_trip(tmp_path):
    f = tmp_path / "roma-2.toml"
    f.write_text(ORDERS_TOML)
    of = load_orders_file(f)
    assert of.faction == "roma" and of.round == 2
    assert of.orders[9] == ArmyOrders(9, (1, 0, 11), initiative="Mare Tyrrhenum")
    assert of.orders[10] == ArmyOrders(10, (), assault="Capua", transfers=(Transfer(9, 50),))
    validate_orders(TM.board, STATE, of.faction, of.orders, linked_pairs=[(9, 10)])


def test_malformed_file_lists_every_problem():
    text = """
faction = "roma"
colour = "red"
[armies.9]
moves = "3, 3"
lift_siege = "yes"
[armies.10]
move = "3"
transfers = [{ to = 9 }]
"""
    with pytest.raises(OrderSyntaxError) as e:
        parse_orders_text(text, "roma.toml")
    text_all = str(e.value)
    assert "roma.toml" in text_all and "colour" in text_all and "'3,'" in text_all
    assert "lift_siege must be true or false" in text_all and "did you mean 'moves'" in text_all
    assert "no moves" in text_all and "{ to = ARMY, fp = FP }" in text_all


def test_not_toml_and_missing_file(tmp_path):
    with pytest.raises(OrderSyntaxError, match="not valid TOML"):
        parse_orders_text("[armies.9\nmoves=")
    with pytest.raises(MissingInputError):
        load_orders_file(tmp_path / "nope.toml")


def test_cli_forms():
    assert orders_from_cli(["9=3 3 5 0 5", "10="]) == {9: ArmyOrders(9, (3, 3, 5, 0, 5)), 10: ArmyOrders(10)}
    with pytest.raises(OrderSyntaxError, match="ordered twice"):
        orders_from_cli(["9=3", "9=5"])
    with pytest.raises(OrderError, match="ARMY=MOVES"):
        orders_from_cli(["3 3 5"])
    o = army_orders_from_cli(10, "1 0", assault="Capua", transfers=["9:50"])
    assert o == ArmyOrders(10, (1, 0), assault="Capua", transfers=(Transfer(9, 50),))
    with pytest.raises(OrderSyntaxError, match="TO:FP"):
        army_orders_from_cli(10, "", transfers=["9-50"])


def test_influence_cap_carthago_two_per_coastal_structure_none_blockaded_or_besieged():
    # Seed, "Naval superiority": at most 1 x (Roma) and 2 x (Carthago) the controlled unbesieged,
    # unblockaded Towns/Cities adjacent to a Coast hex of the zone.  Carthago holding Neapolis
    # alone there may put both its points in Mare Tyrrhenum; Roma (Ostia) only one.
    from bellica.engine.vae_victis.orders import influence_cap

    s = TM.state([(1, "carthago", "1 1"), (2, "carthago", "5"), (9, "roma", "3"), (10, "roma", "1")],
                 control={"Neapolis": "carthago"})
    assert influence_cap(TM.board, s, "carthago", "Mare Tyrrhenum") == 2
    assert influence_cap(TM.board, s, "roma", "Mare Tyrrhenum") == 1
    both = {1: ArmyOrders(1, initiative="Mare Tyrrhenum"), 2: ArmyOrders(2, initiative="Mare Tyrrhenum")}
    validate_orders(TM.board, s, "carthago", both)
    with pytest.raises(IllegalOrderError, match="at most 0"):
        validate_orders(TM.board, s, "carthago", both, blockaded={"Neapolis"})
    besieged = TM.state([(1, "carthago", "1 1"), (2, "carthago", "5"), (9, "roma", "7 7")],
                        control={"Neapolis": "carthago"}, sieges=[Siege("Neapolis", "roma", (9,), 1, 1, 1)])
    assert influence_cap(TM.board, besieged, "carthago", "Mare Tyrrhenum") == 0


# --- issue 8: loose input (each test named after the bug it pins down) -----------------------


def test_non_ascii_digits_are_not_army_numbers():
    # Bug: "٩=3" was taken as army 9 (str.isdigit and int() accept other scripts' digits).
    with pytest.raises(OrderSyntaxError, match="digits 0-9") as e:
        orders_from_cli(["٩=3", "２０=1"])
    assert len(e.value.problems) == 2
    with pytest.raises(OrderSyntaxError, match=r"\[armies.٩\]: the army must be its number in digits 0-9"):
        parse_orders_text('[armies."٩"]\nmoves = "3"\n')
    with pytest.raises(OrderSyntaxError, match="is not TO:FP in digits 0-9"):
        army_orders_from_cli(9, "3", transfers=["١٠:60"])
    with pytest.raises(OrderSyntaxError, match="'٣' at column 1"):
        parse_moves("٣ 3")
    assert orders_from_cli([" 9 =3"]) == {9: ArmyOrders(9, (3,))}  # ASCII digits with blanks still read


def test_a_60000_token_move_string_is_refused_before_parsing():
    # Bug: a 60,000-token move string was stored in the log.
    text = " ".join(["3"] * 60_000)
    with pytest.raises(OrderSyntaxError) as e:
        orders_from_cli([f"9={text}"])
    msg = str(e.value)
    assert "the move string is 119999 characters long, over the 1000 any round can use" in msg
    assert len(msg) < 300 and msg.count("\n") == 0
    # A long garbage string is a handful of problems, not one per token.
    with pytest.raises(OrderSyntaxError) as e:
        parse_moves(" ".join(["x"] * 300))
    assert len(e.value.problems) == 6 and "and 295 more tokens that are not moves" in str(e.value)


def test_a_move_string_longer_than_a_round_allows_is_refused_with_the_cap():
    # The rules' cap: 12 MP a round, the cheapest move (a "0", or a 1-MP road step) costs 1 MP.
    from bellica.engine.vae_victis.orders import max_moves

    assert max_moves(TM.board) == 12
    validate_orders(TM.board, STATE, "roma", {9: ArmyOrders(9, (0,) * 12)})  # 12 stand-stills: fine
    with pytest.raises(IllegalOrderError) as e:
        validate_orders(TM.board, STATE, "roma", {9: ArmyOrders(9, (0,) * 13)})
    assert str(e.value) == (
        "problem in the orders: army 9, moves: 13 moves, but an army has 12 MP a round and the cheapest move "
        "costs 1 MP, so at most 12 moves can be used: drop the moves it cannot make"
    )


def test_non_utf8_orders_file_is_one_line(tmp_path):
    # Bug: UnicodeDecodeError traceback.
    f = tmp_path / "roma.toml"
    f.write_bytes(b'faction = "roma"\n# caf\xe9\n[armies.9]\nmoves = "3"\n')
    with pytest.raises(InputError) as e:
        load_orders_file(f)
    assert str(e.value) == f"orders file {f} is not UTF-8 text: byte 22 (0xe9) cannot be decoded; save the file as UTF-8"


def test_deeply_nested_orders_toml_is_one_line(tmp_path):
    # Bug: RecursionError traceback from tomllib.
    f = tmp_path / "deep.toml"
    f.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(OrderSyntaxError) as e:
        load_orders_file(f)
    assert str(e.value).startswith(f"{f} is nested too deeply to be read") and "\n" not in str(e.value)
    with pytest.raises(OrderSyntaxError, match=r"^bad.toml is not valid TOML: .*line 1"):
        parse_orders_text("[armies.9\n", "bad.toml")
    with pytest.raises(MissingInputError, match=r"orders file .*nope.toml does not exist: check the path"):
        load_orders_file(tmp_path / "nope.toml")
    with pytest.raises(InputError, match=r"orders file .* is a directory: give the path of a file"):
        load_orders_file(tmp_path)
