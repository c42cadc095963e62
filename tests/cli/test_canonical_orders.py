"""Issue 22, item 3: every list the engine records is in one canonical order, so that
`bellica round verify --readjudicate` never fails on an order the engine chose itself.

Before: Rome's `--defence-split` was recorded in the order typed ("Defense 25 against
Epirus/Macedonia, 15 against Campanians") and re-adjudicated in the stored JSON's order
("15 against Campanians, 25 against Epirus/Macedonia"): verify exited 4.
"""

from __future__ import annotations

from tests.cli.test_rise_of_rome_cli import _status, bellica, campaign, italy  # noqa: F401 (fixtures)


def test_a_defence_split_typed_out_of_order_readjudicates(campaign, capsys):  # noqa: F811
    # Seed 17, turn 1: the Etruscans and the Campanians attack Rome (the split's names typed
    # in reverse alphabetical order, as "Epirus/Macedonia=25,Campanians=15" in the issue).
    assert bellica(capsys, "turn", "start", campaign, "--seed", "17")[0] == 0
    assert bellica(capsys, "turn", "next", campaign)[0] == 0
    assert bellica(capsys, "turn", "attack", campaign, "--none")[0] == 0
    free = _status(capsys, campaign)["rome_free"]
    code, out, err = bellica(capsys, "turn", "spend", campaign, "--defence", free,
                            "--defence-split", f"Etruscans={free - 8},Campanians=8")
    assert code == 0, err
    assert f"Defense 8 against Campanians, {free - 8} against Etruscans" in out
    code, out, err = bellica(capsys, "round", "verify", campaign, "--readjudicate")
    assert code == 0, err
