"""Vae Victis II as a plug-in of the core (:class:`engine.core.ruleset.Ruleset`), registered on import.

The core finds it by the name a campaign file records (``scenario_meta.ruleset``;
files that record none are Vae Victis II campaigns).  What it plugs in: the state
tables and kinds of :mod:`.state`, the Board of :mod:`.board` (with the logistics
derived from it, closed with the campaign), the rules data of :mod:`.rules`, the
round of :mod:`.rounds` and the words of :mod:`.explain`.  Its steps are declared as data in
:mod:`.steps` (:meth:`VaeVictisII.actions`): ``bellica round ...`` is made from them.
"""

from __future__ import annotations

from typing import Any, Sequence

from bellica.engine.core.events import Event, StoredEvent
from bellica.engine.core.ruleset import Ruleset, register
from bellica.engine.core.tables import Snapshot
from bellica.engine.vae_victis import explain, state
from bellica.engine.vae_victis.rounds import machine
from bellica.engine.vae_victis.bots import BOT_SEAL
from bellica.engine.vae_victis.older_forms import OLDER_PATHS

__all__ = ["VaeVictisII", "VAE_VICTIS_II", "LOGISTICS_INPUTS", "install_rules_views"]

#: The map and scenario tables the logistics SQL is built from (engine/vae_victis/sql/logistics/).
LOGISTICS_INPUTS = frozenset({"hexes", "hex_neighbors", "hex_sea_zones", "road_edges", "river_cells", "structures", "factions"})


def install_rules_views(campaign) -> bool:
    """Build the rules views in the campaign database (once: they are kept): the zones of
    control (``zoc``, ``army_zoc``, ``structure_zoc``), the logistics tables and views and the
    naval views (``navies``, ``navy_zoc``, ``blockaded_structures``, ``superiority``,
    ``sea_supply``), so the umpire can query them by name and every step reuses them.

    Skipped (returns False) for a database without the map and scenario tables they need.
    """
    if not LOGISTICS_INPUTS <= campaign.tables():
        return False
    from bellica.engine.vae_victis.logistics import compute_logistics, ensure_logistics
    from bellica.engine.vae_victis.logistics.sea import install_naval_views
    from bellica.engine.vae_victis.zoc import install_zoc_views

    ensure_logistics(campaign.con)  # first: it drops an older file's `navies` hook table, now a view
    install_zoc_views(campaign.con)
    install_naval_views(campaign.con)
    compute_logistics(campaign.con)  # writes army_logistics_distance for the starting positions
    return True


class VaeVictisII(Ruleset):
    """The land rules of Vae Victis II (seed: the First Punic War campaign)."""

    name = "vae-victis-ii"
    state_sql = state.STATE_SQL
    reducers = state.REDUCERS
    steps = machine.STEPS
    order_seal = BOT_SEAL  # the orders' seal, and a bot's reasons sealed like them (engine/vae_victis/bots.py)
    bot_notes = True  # a bot's reasons are logged (engine/core/players.py)
    own_map_layers = True  # the hex play aids of web_maps/scenario_layers.py, not yet features of its view
    older_paths = OLDER_PATHS  # what scripts posted to the page it had before issue 20 (.older_forms)
    title = "Vae Victis II"
    round_word = "round"
    command_group = "round"  # bellica round <step>, made from .steps (bellica/commands/play.py)
    faction_flag = "--faction"
    example_campaign = "punic.duckdb"
    status_before_start = False  # `round status` before the start is a step out of order (exit 3)
    says_next = False  # a step prints what it did; `bellica round status` says what comes next

    def actions(self) -> tuple:
        from bellica.engine.vae_victis.bots import BOTS_STEP
        from bellica.engine.vae_victis.steps import ACTIONS

        at = next(i for i, a in enumerate(ACTIONS) if a.name == "orders") + 1
        return ACTIONS[:at] + (BOTS_STEP,) + ACTIONS[at:]

    def bots(self):
        from bellica.engine.vae_victis.bots import BOTS

        return BOTS

    def bot_aid(self, campaign, viewer: str):
        from bellica.engine.vae_victis.bots import bot_aid

        return bot_aid(campaign)

    def case_position(self, campaign, words):
        """Position lines of the adjudication cases in Vae Victis II's terms (:mod:`.cases`)."""
        from bellica.engine.vae_victis.cases import case_position

        return case_position(campaign, words)

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        """A step the position allows now (its machine step, :attr:`steps`); never a view or an
        offline step, nor the start once started, nor the bots' step while no bot holds a seat."""
        from bellica.geo.errors import BellicaError

        if action.opens != "step":
            return False
        if action.name == "bots":  # offered only where a bot holds a seat (docs/bots.md)
            from bellica.engine.core.players import seats

            if not seats(campaign.con):
                return False
        try:
            self.require(campaign, snap, action.machine_step)
        except BellicaError:
            return False
        if action.name in ("commit", "reveal-orders"):
            from bellica.engine.vae_victis.offers import commit_reveal_open

            return commit_reveal_open(campaign, action.name, viewer)
        return True

    def choices(self, campaign, viewer: str | None, action, param):
        """What a page offers in a step's field (:mod:`.offers`), else the declaration's choices."""
        from bellica.engine.vae_victis.offers import offered

        found = offered(campaign, viewer, action.name, param.name)
        return found if found is not None else super().choices(campaign, viewer, action, param)

    def field_offers(self, campaign, signer, action, param):
        """A player's field per army it commands: its initiative uses, its administration choices (:mod:`.offers`)."""
        from bellica.engine.vae_victis.offers import field_offers

        return field_offers(campaign, signer, action.name, param.name)

    def form_note(self, campaign, signer, action) -> str:
        """Where a player's administration choices stand (:mod:`.offers`)."""
        from bellica.engine.vae_victis.offers import form_note

        return form_note(campaign, signer, action.name)

    def older_form(self, campaign, signer, path: str, fields) -> tuple[str, dict]:
        """The older page's forms, taken to the declared steps (:mod:`.older_forms`)."""
        from bellica.engine.vae_victis.older_forms import older_form

        return older_form(campaign, signer, path, fields)

    def older_answer(self, campaign, path: str, step: str, fields) -> dict | None:
        from bellica.engine.vae_victis.older_forms import older_answer

        return older_answer(campaign, path, step, fields)

    def status_lines(self, status) -> list[str]:
        """The round status in words, as `bellica round status` prints it (its player view's status)."""
        import dataclasses

        from bellica.engine.vae_victis.rounds.status import RoundStatus

        names = {f.name for f in dataclasses.fields(RoundStatus)}
        return RoundStatus(**{k: v for k, v in status.items() if k in names}).lines()

    def page_sections(self, campaign, viewer: str | None) -> list:
        """The engagements, the orders once revealed, who has submitted (:mod:`.page_sections`)."""
        from bellica.engine.vae_victis.page_sections import page_sections

        return page_sections(campaign, viewer)

    def map_words(self, campaign, text: str) -> str:
        """Its events and messages name hexes by H3 cell: a page names them as its map does (:mod:`.move_preview`)."""
        from bellica.engine.vae_victis.move_preview import named

        return named(campaign, text) or text

    def said(self, campaign, events: Sequence, viewer: str | None) -> list[str]:
        """A step's events in words (its bookkeeping notes left out), and the lines it tells as they are."""
        return [e if isinstance(e, str) else e.text for e in events if isinstance(e, str) or e.kind != "put_note"]

    def load_board(self, campaign) -> Any:
        from bellica.engine.vae_victis.board import board_from_duckdb
        from bellica.engine.vae_victis.logistics import attach_campaign

        # A read-write campaign keeps a fresh JSON copy of its Board (board_cache) for the next step.
        board = board_from_duckdb(campaign.con, write_cache=not campaign.read_only)
        attach_campaign(board, campaign.con)  # logistics_for then reuses the campaign's static link tables
        return board

    def close_board(self, board: Any) -> None:
        from bellica.engine.vae_victis.logistics import close_derived

        close_derived(board)

    def read_rules(self, campaign) -> Any:
        from bellica.engine.vae_victis.rules import read_rules

        return read_rules(campaign.con)

    def start_snapshot(self, campaign, *, seed: int) -> Snapshot:
        return state.start_snapshot(campaign, seed=seed)

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        return state.initial_events(campaign, seed=seed)

    def after_start(self, campaign) -> None:
        install_rules_views(campaign)

    def describe(self, event: Event, campaign=None) -> str:
        return explain.describe(event, state.structure_names(campaign) if campaign is not None else None)

    def next_step(self, campaign, snap: Snapshot) -> str:
        return machine.next_step(machine.round_of(snap))

    def recorded_steps(self, events: Sequence[StoredEvent]) -> list[tuple[str, Any]]:
        from bellica.engine.vae_victis.rounds import recorded  # every step module: not for a status

        from bellica.engine.core.players import with_note_steps

        return with_note_steps(events, recorded.recorded_steps)

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        from bellica.engine.vae_victis.rounds import recorded  # every step module: not for a status

        if name == "bot-note":
            from bellica.engine.core.players import replay_note

            return replay_note(campaign, arg)
        return recorded.run_step(campaign, name, arg)

    def log_key(self, event: StoredEvent) -> tuple:
        from bellica.engine.vae_victis.rounds import recorded  # every step module: not for a status

        return recorded.log_key(event)

    def player_view(self, campaign, viewer: str | None):
        from bellica.engine.vae_victis.player_view import player_view

        return player_view(campaign, viewer)

    def secrets(self, campaign) -> tuple:
        from bellica.engine.vae_victis.player_view import secrets

        return secrets(campaign)

    def order_sheet(self, view, campaign_name: str) -> tuple[str, str] | None:
        from bellica.engine.vae_victis.order_sheet import order_sheet

        return order_sheet(view, campaign_name)


VAE_VICTIS_II = register(VaeVictisII())
