"""`bellica simulate trossian`: the engine players in every seat, battles by the stated seeded
generator, the same rows in this process and on a Dask LocalCluster."""

from __future__ import annotations

from tests.engine.test_simulate_campaigns import _same_here_and_on_dask


def test_trossian_games_are_the_same_here_and_on_a_dask_cluster(tmp_path_factory, tmp_path, capsys):
    from tests.engine.trossian.campaign_file import fresh_campaign

    fresh = fresh_campaign(tmp_path_factory.getbasetemp(), tmp_path / "tr.duckdb")
    rows = _same_here_and_on_dask(capsys, tmp_path, "trossian", "--campaign", fresh, "--runs", 2, "--rounds", 2,
                                  "--policy", "random")
    assert len(rows) == 2 and all(r["rounds"] == "2" for r in rows)
    assert all(set(r["seats"].split(",")) == {f"{n}=random" for n in ("Crimean Khanate", "Danubian Principalities",
                                                                         "Ottoman Porte", "Russia")} for r in rows)
