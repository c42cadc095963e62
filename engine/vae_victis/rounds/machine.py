"""The Vae Victis II round as the core's phase machine sees it, and the stored round every step reads.

A round is played as the seed orders it::

    orders      1.1 initiative uses (sealed)          initiative   submit_initiative
                1.2 publish uses + naval superiority  publish      publish_initiative
                1.3 movement/siege/assault/transfer   orders       submit_orders (sealed until the reveal)
                    or commit-reveal                  commit, reveal-orders  commit_orders, reveal_orders
                    the reveal after the deadline     reveal       reveal_round (deadline: set_deadline)
    movement    simultaneous movement, engagements    move         run_movement
    battles     Field of Glory II results, retreats   result       record_result, declare_retreat
                a faction's own administration choices choose  submit_choices (sealed until administration)
    admin       the nine administration steps         administer   run_administration
    victory     victory points, the five conditions   victory      run_victory  -> next round

The campaign's ``phase`` (and, in the orders phase, ``stage``: ``initiative`` or
``moves``) says which steps are allowed (:data:`STEPS`); any other step is refused
with a message naming what is missing and the command that comes next
(:func:`next_step`).  Movement, administration and victory are instantaneous, so the
stored phase moves orders -> battles -> victory -> orders.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from bellica.engine.core.machine import Step, StepRefused
from bellica.engine.core.tables import Snapshot
from bellica.engine.vae_victis.explain import describe
from bellica.engine.vae_victis.model import Army, Board, CampaignState, Event, Phase, Siege
from bellica.engine.vae_victis.state import snapshot_state

__all__ = [
    "STAGE_INITIATIVE", "STAGE_MOVES", "STEPS", "StepRefused", "Round", "round_of", "read_round", "armies_text",
    "next_step", "require", "names", "event", "stored_logistics",
]

STAGE_INITIATIVE = "initiative"
STAGE_MOVES = "moves"

#: The steps of a round: where each runs, and why it is refused at the wrong stage.
STEPS = (
    Step("initiative", "take initiative uses", Phase.ORDERS.value, (STAGE_INITIATIVE,),
         "round {round}'s initiative was published; {next}"),
    Step("publish", "publish initiative", Phase.ORDERS.value, (STAGE_INITIATIVE,),
         "round {round}'s initiative is already published; {next}"),
    Step("orders", "take orders", Phase.ORDERS.value),
    Step("deadline", "set the orders deadline", Phase.ORDERS.value),
    Step("mode", "set the orders mode", Phase.ORDERS.value),
    Step("commit", "take a commitment", Phase.ORDERS.value, (STAGE_MOVES,),
         "round {round}'s initiative uses are not published yet; run `bellica round publish`"),
    Step("reveal-orders", "take revealed orders", Phase.ORDERS.value, (STAGE_MOVES,),
         "round {round}'s initiative uses are not published yet; run `bellica round publish`"),
    Step("reveal", "reveal the orders", Phase.ORDERS.value, (STAGE_MOVES,),
         "round {round}'s initiative uses are not published yet; run `bellica round publish`"),
    Step("move", "run movement", Phase.ORDERS.value, (STAGE_MOVES,),
         "round {round}'s initiative uses are not published yet; run `bellica round publish`"),
    Step("retreat", "take a retreat", Phase.BATTLES.value),
    Step("result", "record a result", Phase.BATTLES.value),
    Step("choose", "take a faction's administration choices", Phase.BATTLES.value),
    Step("administer", "run administration", Phase.BATTLES.value),
    Step("victory", "check victory", Phase.VICTORY.value),
)


# --- the stored round ------------------------------------------------------------------------


@dataclass(frozen=True)
class Round:
    """The stored tables of a campaign at one moment, with its state and orders stage."""

    snap: Snapshot
    state: CampaignState
    stage: str | None

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def phase(self) -> str:
        return self.state.phase.value

    def live_armies(self):
        return [a for a in self.state.armies if not a.eliminated and a.cell is not None]

    def orders_rows(self, rnd: int | None = None) -> dict[int, tuple]:
        rnd = self.round if rnd is None else rnd
        return {k[1]: row for k, row in self.snap.tables["orders"].items() if k[0] == rnd}

    def note(self, key: str, rnd: int | None = None):
        return self.snap.note(self.round if rnd is None else rnd, key)

    def engagement_rows(self) -> list[tuple]:
        return sorted((row for k, row in self.snap.tables["engagements"].items() if k[0] == self.round), key=lambda row: row[2])

    def results_for(self, engagement: int) -> dict[int, tuple]:
        return {k[2]: row for k, row in self.snap.tables["engagement_results"].items()
                if k[0] == self.round and k[1] == engagement}

    def missing(self, column: int) -> dict[str, tuple[int, ...]]:
        """Live armies, by faction, whose orders row lacks ``column`` (2: moves, 3: initiative use)."""
        rows = self.orders_rows()
        out: dict[str, list[int]] = {}
        for a in self.live_armies():
            row = rows.get(a.id)
            if row is None or row[column] is None:
                out.setdefault(a.faction, []).append(a.id)
        return {f: tuple(ids) for f, ids in out.items()}

    def start_state(self) -> CampaignState:
        """The state at the start of this round, rebuilt from the ``start`` note written by movement."""
        note = self.note("start")
        if note is None:
            return self.state
        factions = {a.id: a.faction for a in self.state.armies}
        armies = tuple(
            Army(int(k), factions[int(k)], v["cell"], int(v["strength"]), bool(v["eliminated"]))
            for k, v in sorted(note["armies"].items(), key=lambda kv: int(kv[0]))
        )
        sieges = tuple(
            Siege(x["structure"], x["faction"], tuple(x["armies"]), x["resilience"], x["start_resilience"], x["started_round"])
            for x in note["sieges"]
        )
        return replace(
            self.state, phase=Phase.ORDERS, armies=armies, control=dict(note["control"]), sieges=sieges,
            victory_points=dict(note.get("victory_points", self.state.victory_points)),
        )


def round_of(snap: Snapshot) -> Round:
    return Round(snap, snapshot_state(snap), snap.campaign("stage"))


def read_round(campaign) -> Round:
    """The campaign's stored round (call inside the step's transaction)."""
    return round_of(campaign.snapshot())


# --- what comes next, refusals --------------------------------------------------------------


def armies_text(ids_by_faction: Mapping[str, Sequence[int]]) -> str:
    parts = []
    for faction in sorted(ids_by_faction):
        ids = sorted(ids_by_faction[faction])
        parts.append(f"{faction} arm{'y' if len(ids) == 1 else 'ies'} {', '.join(map(str, ids))}")
    return "; ".join(parts)


def next_step(r: Round) -> str:
    """What the umpire does next, naming the command."""
    if r.state.winner is not None:
        return "none: the campaign is over"
    if r.state.phase is Phase.ORDERS:
        if r.stage == STAGE_INITIATIVE:
            return "give initiative uses (`bellica round initiative`), then publish them (`bellica round publish`)"
        from bellica.engine.vae_victis.rounds import reveal as rv

        missing = r.missing(2)
        if not missing:
            return "run movement (`bellica round move`)"
        late = " (after the deadline: `bellica round reveal`, and they stand still)" if rv.deadline_of(r.snap) else ""
        if rv.orders_mode(r.snap) == rv.COMMIT_REVEAL:
            if r.note(rv.REVEAL_NOTE) is None:
                committed = set(r.note(rv.COMMITMENTS_NOTE) or {})
                waiting = sorted({a.faction for a in r.live_armies()} - committed)
                return f"commit orders (`bellica round commit`) for {', '.join(waiting)}{late}"
            return f"reveal orders (`bellica round reveal-orders`) for {armies_text(missing)}{late}"
        return f"submit orders (`bellica round orders`) for {armies_text(missing)}{late}"
    if r.state.phase is Phase.BATTLES:
        pending = [row[2] for row in r.engagement_rows() if not r.results_for(row[2])]
        if pending:
            return f"record results (`bellica round result`) of engagement{'s' if len(pending) > 1 else ''} {', '.join(map(str, pending))}"
        return "run administration (`bellica round administer`)"
    if r.state.phase is Phase.VICTORY:
        return "check victory and start the next round (`bellica round victory`)"
    return f"phase {r.phase} has no step"


def require(campaign, r: Round, step: str) -> None:
    """Refuse ``step`` (:class:`StepRefused`) unless the stored round allows it."""
    campaign.ruleset.require(campaign, r.snap, step)


# --- shared by the steps --------------------------------------------------------------------


def names(campaign) -> dict[str, str]:
    """cell -> structure name from the campaign's Board, for the words of the log (kept on the campaign)."""
    out = campaign.cache.get("board_names")
    if out is None:
        board: Board = campaign.board
        out = campaign.cache["board_names"] = {s.cell: s.name for s in board.structures.values()}
    return out


def event(rnd: int, phase: str, kind: str, data: Mapping[str, Any], text: str = "", names=None) -> Event:
    ev = Event(round=rnd, phase=phase, kind=kind, data=dict(data), text=text)
    return ev if text else replace(ev, text=describe(ev, names))


def stored_logistics(campaign, state: CampaignState):
    """Logistics of the stored position, computed on the campaign database itself (its static
    link tables are built once and kept there); remembered for the pure rules functions."""
    from bellica.engine.vae_victis.logistics import compute_logistics, remember

    board = campaign.board
    result = compute_logistics(campaign.con, board=board)
    remember(board, state, result)
    return result

