"""A score-won game of a study as its row (engine/core/game_row.py)."""

from bellica.engine.core.game_row import game_row


def test_the_leader_its_lead_and_every_sides_score_in_the_studys_keys():
    row = game_row(["Syracusae", "Carthago", "Acragas"], {"Syracusae": "random", "Carthago": "heuristic", "Acragas": "random"},
                   [("Carthago", 9), ("Syracusae", 5)], "vp", {"turns": 4}, {"battles": 2}, score="vp",
                   series="vp_by_turn_", by_round={"Syracusae": (1, 5), "Carthago": [3, 9], "Acragas": [0, 0]})
    assert row == {"seats": "Syracusae=random,Carthago=heuristic,Acragas=random", "winner": "Carthago", "how": "vp",
                   "turns": 4, "margin": 4, "battles": 2, "vp_Syracusae": 5, "vp_Carthago": 9, "vp_Acragas": 0,
                   "vp_by_turn_Syracusae": [1, 5], "vp_by_turn_Carthago": [3, 9], "vp_by_turn_Acragas": [0, 0]}
    assert list(row)[:6] == ["seats", "winner", "how", "turns", "margin", "battles"]


def test_equal_leaders_tie_and_a_lone_side_leads_by_its_score():
    tied = game_row(["a", "b"], {"a": "x", "b": "y"}, [("b", 3), ("a", 3)], "provinces", {"years": 2, "rounds": 9}, {},
                    score="provinces", series="provinces_by_year_", by_round={"a": [3], "b": [3]})
    assert (tied["winner"], tied["margin"], list(tied)[3:5]) == ("tie", 0, ["years", "rounds"])
    alone = game_row(["a"], {"a": "x"}, [("a", 7)], "vp", {}, {}, score="vp", series="s_", by_round={"a": []})
    assert (alone["winner"], alone["margin"]) == ("a", 7)
