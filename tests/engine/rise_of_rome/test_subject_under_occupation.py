"""Issue 22, deviation 2: a Subject whose home is occupied by an external army is no Subject.

The seed: an Inactive Power is the Subject of another Active Power "if all of its home
provinces are controlled by the Power", and the province an External Power's army occupies
"is not controlled by any Power" (control reverts when the army leaves).  Seen before the fix:
"Tarentine Greeks collect 30 (provinces 25, subjects 5)" while Carthage occupied Lucania et
Bruttium, the only home of their Subject, the Bruttians and Lucanians.
"""

from __future__ import annotations

from bellica.engine.rise_of_rome.model import ExternalArmy, TurnState, status, subjects_of, suzerain
from bellica.engine.rise_of_rome.revenue import power_revenue
from bellica.engine.rise_of_rome.rules import default_rules
from bellica.engine.rise_of_rome.scenario import load_scenario

from .test_views import campaign_db, put_state, python_revenue

SCENARIO = load_scenario()
RULES = default_rules()
HOME = "Lucania et Bruttium"


def _states():
    subject = TurnState(turn=4, control={**SCENARIO.start_control(), HOME: "Tarentine Greeks"})
    occupied = TurnState(turn=4, control=subject.control,
                         externals={"Carthage": ExternalArmy("Carthage", HOME, 100, 4)})
    return subject, occupied


def test_a_subject_whose_only_home_an_external_army_occupies_pays_nobody():
    subject, occupied = _states()
    assert SCENARIO.homes("Bruttians and Lucanians") == (HOME,)
    # Tarentum's master holds the home: a Subject, yielding 5.
    assert suzerain(SCENARIO, subject, "Bruttians and Lucanians") == "Tarentine Greeks"
    assert power_revenue(SCENARIO, subject, RULES, "Tarentine Greeks").subjects == 5
    # Carthage in the province: controlled by no Power, so no Subject and no yield.
    assert suzerain(SCENARIO, occupied, "Bruttians and Lucanians") is None
    assert status(SCENARIO, occupied, "Bruttians and Lucanians") == "inactive"
    assert "Bruttians and Lucanians" not in subjects_of(SCENARIO, occupied, "Tarentine Greeks")
    rev = power_revenue(SCENARIO, occupied, RULES, "Tarentine Greeks")
    assert rev.subjects == 0 and "subjects" not in rev.text()


def test_the_revenue_view_agrees_on_the_occupied_subject():
    con = campaign_db(RULES)
    for state in _states():
        put_state(con, state)
        got = con.execute("SELECT power, active, provinces, subjects, resources, penalty, total, civic_only "
                          "FROM ror_revenue_next").fetchall()
        assert got == python_revenue(state, RULES)
