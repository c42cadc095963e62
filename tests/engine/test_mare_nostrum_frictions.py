"""Mare Nostrum's words where new users tripped (issue 22): the hint stops asking for a wheel
already entered, a wheel of four numbers is refused (never silently replacing one of five), a
number drawn from the seed says under which label the umpire could have entered it, and a
nation out of the game is told so rather than whose turn it is."""

from __future__ import annotations

import pytest

from bellica.engine.core.campaign import Campaign
from bellica.engine.core.machine import StepRefused
from tests.cli.test_mare_nostrum_cli import campaign, mediterranean  # noqa: F401  (fixtures)
from tests.cli.test_rise_of_rome_cli import bellica


def test_the_lottery_words(campaign, capsys):  # noqa: F811
    assert bellica(capsys, "turn", "start", campaign, "--seed", 3)[0] == 0
    code, out, err = bellica(capsys, "turn", "lottery", campaign, "--wheel", "bari", 12, 45, 3, 8, 9)
    assert code == 0, err
    assert "--wheel BA" not in out.splitlines()[-1] and "BA entered" in out
    assert "--wheel CA N N N N N" in out  # the next wheel not yet entered
    code, out, err = bellica(capsys, "turn", "lottery", campaign, "--wheel", "BA", 12, 45, 3, 8)
    assert code == 1 and "4 numbers; a wheel's draw is 5 numbers" in err
    code, out, err = bellica(capsys, "turn", "begin", campaign)
    assert code == 0, err
    assert "wheel/1/BA 12 45 3 8 9 (entered)" in out
    assert "(drawn) [the umpire could have entered the real draw before the turn: --wheel CA]" in out


def test_a_nation_out_of_the_game_is_told_so(campaign):  # noqa: F811
    from bellica.engine.mare_nostrum.status import require

    with Campaign.open(campaign) as c:
        c.start(seed=3)
        snap = c.snapshot()
        cols = c.ruleset.schema.tables["mn_nations_state"].column_names
        table = snap.tables["mn_nations_state"]
        key = ("Ptolemaics",)
        row = dict(zip(cols, table.get(key) or (None,) * len(cols)))
        row.update(nation="Ptolemaics", left_game="its capital fell", left_turn=3)
        table[key] = tuple(row[k] for k in cols)
        with pytest.raises(StepRefused, match=r"Ptolemaics left the game in turn 3 \(its capital fell\) and takes no "
                                              r"more actions"):
            require(c, snap, "build", "Ptolemaics")
