"""A scripted first round of the First Punic War campaign, for ``make demo``.

:func:`run_demo_round` takes a campaign database fresh from ``bellica campaign new
--scenario first-punic-war`` and plays, step by step through :mod:`engine.vae_victis.rounds` on one :class:`~engine.core.campaign.Campaign`
(each step one transaction, exactly as the ``bellica round`` commands do):

* **placement**: the scenario's starting positions, except that Carthaginian army 7
  starts in Tyndaris instead of Henna;
* **initiative**: a few armies put their Initiative point into sea zones, the rest
  take +40 FP; naval superiority is published;
* **orders and movement**: Roman army 14 (Messana) and Carthaginian army 7
  (Tyndaris) both march on the unowned town of Mylae and reach it at the same MP:
  a *movement collision*, decided by the seven-step priority; the loser halts next
  to Mylae, inside the winner's ZoC.  Carthaginian army 4 marches from Agrigentum
  past Phintias and halts on entering the ZoC of Syracusan Gela.  Roman army 13
  *crosses the Strait of Messina* from Rhegium into Sicily and stops there;
* **at sea**: Carthaginian army 5 *embarks* at Panormus and sails east along the
  coast; Roman army 12 embarks at Tarentum and sails round the toe of Italy from
  Mare Ionium into Mare Tyrrhenum, each zone's naval superiority paying for its part
  of the move.  The two navies meet off Mylae and fight a *naval battle* (the Battle
  of Mylae, 260 BC) with numbers derived from every army's orders: the beaten navy
  retreats to a port and rests, the winner advances.  Roman army 10 marches out of
  Capua and back (its moves feed the round's naval numbers like everyone's);
* **battle**: the two armies at Mylae fight one engagement; its result stands in for
  the Field of Glory II game: Roma wins, casualty percentages drawn from the
  campaign's seeded random source (:mod:`engine.core.rng`) and recorded as any result is;
* **administration**: the winner at Mylae advances into Tyndaris, vacated by the
  loser; the victorious Roman navy *debarks* into Mylae, which passes to Roma;
  army 4 starts the *siege* of Gela (a player's choice); the loser at Mylae is placed
  back on its lines; casualties cost FP;
* **victory**: the round's victory points; round 2 begins.

Finally the event log is replayed and compared with every state table.

Then :func:`run_solo_round` plays round 2 **solo**: Carthago's seat is given to the heuristic
engine player (:mod:`engine.vae_victis.bots`, docs/bots.md), which reads only Carthago's player
view and gives its initiative uses and orders through the same steps a person takes, each with
its reason in the log (sealed like its orders until the reveal); Roma, the person, stands still
by the script.  Engagements are settled by the same seeded stand-in as round 1 (the seeded
source decides the winner too), the bot's siege wishes are the administration's choices, and
the whole log is re-adjudicated from the scenario.  ``python -m bellica.demo`` (``make demo``)
prints both rounds.
"""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path

from bellica.engine.core import rng
from bellica.engine.core.campaign import Campaign
from bellica.engine.vae_victis import rounds
from bellica.engine.vae_victis.model import ArmyOrders
from bellica.engine.vae_victis.state import load_state
from bellica.geo.errors import InputError

__all__ = ["ADVANCES", "DEBARKS", "DEMO_PLACEMENTS", "DEMO_SEED", "MOVES", "SIEGES", "SOLO_BOT", "run_demo_round",
           "run_solo_round"]

DEMO_SEED = 264  # 264 BC: the war begins

#: The scenario's placements.csv with army 7 moved from Henna to Tyndaris (both Carthaginian).
DEMO_PLACEMENTS = (
    (1, "Carthago", "Carthago"),
    (2, "Carthago", "Utica"),
    (3, "Carthago", "Hadrumetum"),
    (4, "Carthago", "Agrigentum"),
    (5, "Carthago", "Panormus"),
    (6, "Carthago", "Lilybaeum"),
    (7, "Carthago", "Tyndaris"),
    (8, "Carthago", "Caralis"),
    (9, "Roma", "Roma"),
    (10, "Roma", "Capua"),
    (11, "Roma", "Neapolis"),
    (12, "Roma", "Tarentum"),
    (13, "Roma", "Rhegium"),
    (14, "Roma", "Messana"),
    (15, "Roma", "Ostia"),
    (16, "Roma", "Ariminum"),
)

INITIATIVE = {
    "Carthago": {1: "Mare Africum", 2: "Mare Tyrrhenum"},
    "Roma": {9: "Mare Tyrrhenum", 12: "Mare Ionium"},
}

# Moves as players write them; the clock positions are those of the res-5 H3 hexes there
# (pointy-topped: sides at 1, 3, 5, 7, 9, 11).  Every other army stands still ("").
MOVES = {
    "Carthago": {
        7: "3",  # Tyndaris -> Mylae
        4: "3 5 3",  # Agrigentum -> Phintias -> next to Gela
        5: "1 3 5 3 3 3 3 1 3 3",  # embarks at Panormus, along the north coast of Sicily to off Mylae
    },
    "Roma": {
        14: "9",  # Messana -> Mylae
        13: "9 9",  # Rhegium -> the strait hex -> Sicily: across the Strait of Messina
        12: "7 9 7 7 7 5 5 3 5 5 7 5 7 9 7 7 7 7 7 7 7 9 9 9 11 1 11 9",  # Tarentum, round Italy's toe, to Mylae
        10: "1 7",  # out of Capua and back
    },
}

SIEGES = {4: "Gela"}
ADVANCES = {14: "Tyndaris"}  # the winner at Mylae into the hex of the removed loser
DEBARKS = {12: 5}  # the winning Roman navy lands at Mylae (clock 5 of its hex)


def _place(campaign: Path) -> None:
    from bellica.etl.campaign import place_armies

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "placements.csv"
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["army", "faction", "structure"])
            w.writerows(DEMO_PLACEMENTS)
        place_armies(campaign, path)


def _demo_casualties(seed: int, rnd: int, engagement: int) -> tuple[int, int]:
    """Stand-in FoG II casualty percentages (winner, loser), from the campaign's seeded source."""
    r = rng.stream(seed, "demo-casualties", rnd, engagement)
    return r.randint(12, 35), r.randint(36, 70)


def run_demo_round(campaign_path: str | Path, *, seed: int = DEMO_SEED) -> list[str]:
    """Place the armies and play one scripted round on a fresh First Punic War campaign.

    Returns the round's event log in words (what ``bellica log --round 1`` prints).
    Raises :class:`geo.errors.InputError` if the campaign has already started.
    """
    campaign = Path(campaign_path)
    with Campaign.open(campaign) as c:
        if c.has_state():
            raise InputError(f"{campaign} has already started: run the demo on a fresh `bellica campaign new` database")
    _place(campaign)

    with Campaign.open(campaign) as c:
        c.start(seed=seed)
        army_faction = {a.id: a.faction for a in load_state(c).armies}
        for faction, uses in INITIATIVE.items():
            rounds.submit_initiative(c, uses, faction=faction, source="the demo script")
        rounds.publish_initiative(c)
        for faction in sorted(INITIATIVE):
            orders = {
                army: ArmyOrders(army, moves=tuple(int(m) for m in MOVES.get(faction, {}).get(army, "").split()))
                for army, f in sorted(army_faction.items())
                if f == faction
            }
            rounds.submit_orders(c, orders, faction=faction, source="the demo script")
        rounds.run_movement(c)

        s = load_state(c)
        for number, _battle, army_a, army_b, _assault, _done in rounds.round_status(c).engagements:
            if army_b is None:
                continue
            winner = army_a if s.army(army_a).faction == "Roma" else army_b
            loser = army_b if winner == army_a else army_a
            won, lost = _demo_casualties(seed, s.round, number)
            rounds.record_result(c, number, {winner: ("win", won), loser: ("loss", lost)})

        rounds.run_administration(c, rounds.AdminChoices(siege_starts=dict(SIEGES), advances=dict(ADVANCES),
                                                         debarks=dict(DEBARKS)))
        rounds.run_victory(c)
        c.verify()
        return [e.text for e in c.events(round=1) if e.kind != "put_note"]


#: The solo round's bot seat: Carthago played by the engine.
SOLO_BOT = {"Carthago": "heuristic"}


def _settle(c, seed: int) -> None:
    """Each engagement of the round: a seeded stand-in for the FoG II game (winner and casualties)."""
    s = load_state(c)
    for number, _battle, army_a, army_b, _assault, done in rounds.round_status(c).engagements:
        if done or army_b is None:
            continue
        winner, loser = (army_a, army_b) if rng.stream(seed, "demo-winner", s.round, number).random() < 0.5 else (army_b, army_a)
        won, lost = _demo_casualties(seed, s.round, number)
        rounds.record_result(c, number, {winner: ("win", won), loser: ("loss", lost)})


def run_solo_round(campaign_path: str | Path, *, seed: int = DEMO_SEED) -> list[str]:
    """Play round 2 of the demo campaign with Carthago's seat played by the heuristic bot (module doc).

    Returns round 2's event log in words.  Raises :class:`geo.errors.InputError` unless the
    campaign stands at the start of round 2 (after :func:`run_demo_round`).
    """
    from bellica.engine.core.players import play_bots, set_seats
    from bellica.engine.core.readjudicate import readjudicate
    from bellica.engine.vae_victis.bots import siege_wishes
    from bellica.engine.vae_victis.bots_board import Aid

    with Campaign.open(campaign_path) as c:
        s = load_state(c)
        if (s.round, s.phase.value) != (2, "orders"):
            raise InputError(f"{campaign_path} is not at the start of round 2: run the demo's first round first")
        set_seats(c, SOLO_BOT, by="the demo script")
        play_bots(c)  # Carthago's initiative uses; Roma gives none (every army takes the strength bonus)
        rounds.publish_initiative(c)
        play_bots(c)  # Carthago's orders, sealed until Roma's come in
        roma = {a.id: ArmyOrders(a.id) for a in s.armies if a.faction == "Roma" and not a.eliminated}
        rounds.submit_orders(c, roma, faction="Roma", source="the demo script")  # the reveal
        rounds.run_movement(c)
        _settle(c, seed)
        view = c.ruleset.player_view(c, "Carthago")
        wishes = siege_wishes(c.board, view, Aid(c.board))
        rounds.run_administration(c, rounds.AdminChoices(siege_starts=wishes))
        rounds.run_victory(c)
        lines = [e.text for e in c.events(round=2) if e.kind != "put_note"]
    readjudicate(campaign_path)
    return lines


if __name__ == "__main__":  # python -m bellica.demo build/first-punic-war.duckdb
    import sys

    for line in run_demo_round(sys.argv[1]):
        print(line)
    print("== round 2, solo: Carthago played by the heuristic bot (docs/bots.md)")
    for line in run_solo_round(sys.argv[1]):
        print(line)
