"""The seam between the core and a ruleset: the :class:`Ruleset` plug-in and the registry of rulesets.

A ruleset (Vae Victis II, the naval rules, a province game, ...) is a subclass of
:class:`Ruleset`, registered by name with :func:`register`.  It declares

* its **state tables** (:attr:`Ruleset.tables`, :class:`~engine.core.tables.StateTable`) and
  the **state event kinds** that change them (:attr:`Ruleset.reducers`; the core's
  generic ``put_row``/``drop_row`` work on any declared table, so a small ruleset
  needs no reducer of its own);
* how to read its static **Board** (:meth:`load_board`) and its **rules data**
  (:meth:`read_rules`), both read once per :class:`~engine.core.campaign.Campaign`;
* its **starting state** from the scenario tables (:meth:`start_snapshot`) and the
  events that record it (:meth:`initial_events`);
* its **round**: the steps and the phases they run in (:attr:`steps`), what comes
  next (:meth:`next_step`), how a recorded log replays as steps
  (:meth:`recorded_steps`, :meth:`run_step`);
* the **words** of its events (:meth:`describe`) and how its orders are sealed from
  other factions (:attr:`order_seal`, :mod:`engine.core.sealed`);
* what a viewer may see now (:meth:`player_view`, :mod:`bellica.schema.view`).

The core gives it the campaign file, transactions, the append-only event log and the
one reducer, replay and verification, re-adjudication, seeded randomness
(:mod:`engine.core.rng`) and the phase machine (:mod:`engine.core.machine`).

Registration needs no edit of core code: :func:`get_ruleset` finds a name in the
registry, else imports every ``bellica.engine.<package>.ruleset`` module (each calls
:func:`register` when imported) and every ``bellica.rulesets`` entry point (rulesets
installed as separate distributions), then looks again.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from bellica.datasets.rules import DEFAULT_RULESET
from bellica.engine.core.events import Event, StoredEvent
from bellica.engine.core.machine import Step, position_of, require_step
from bellica.engine.core.sealed import OrderSeal
from bellica.engine.core.tables import Snapshot, StateSchema, StateTable, core_tables, tables_from_sql
from bellica.geo.errors import InputError, BellicaError

__all__ = [
    "Ruleset",
    "Reducer",
    "LEGACY_RULESET",
    "ENTRY_POINT_GROUP",
    "QUIET_KINDS",
    "register",
    "get_ruleset",
    "ruleset_names",
    "ruleset_scenarios",
]

#: A reducer applies one state event's data to a snapshot, in place.
Reducer = Callable[[Snapshot, Mapping[str, Any]], None]

#: The ruleset of campaign files written before files recorded theirs (``scenario_meta.ruleset``).
LEGACY_RULESET = DEFAULT_RULESET

#: Entry-point group through which an installed distribution offers rulesets (value: a module to import).
ENTRY_POINT_GROUP = "bellica.rulesets"

#: Bookkeeping event kinds: they state what the tables now hold, and a step's output leaves them
#: out (:meth:`Ruleset.said`); the player reads the rules' own events.
QUIET_KINDS = frozenset({"put_row", "drop_row", "set_campaign", "put_note"})


class Ruleset:
    """Base class of a ruleset plug-in; subclasses set the class attributes and override the hooks."""

    #: The registered name, recorded in ``scenario_meta.ruleset`` (e.g. ``"vae-victis-ii"``).
    name: str = ""
    #: The ruleset's own state tables, defined once as SQL (a file :class:`~pathlib.Path` or text):
    #: ``CREATE TABLE`` statements whose ``PRIMARY KEY`` names the columns keying each table's
    #: rows.  The core adds its ``campaign`` and ``round_notes`` (``engine/core/sql/state.sql``).
    state_sql: str | Path = ""
    #: The ruleset's own state event kinds -> their reducers.
    reducers: Mapping[str, Reducer] = {}
    #: The steps of a round, in play order.
    steps: tuple[Step, ...] = ()
    #: How its orders are sealed from other factions (``None``: nothing is sealed).
    order_seal: OrderSeal | None = None
    #: Its web map keeps layers of its own rather than drawing its player view's features.
    own_map_layers: bool = False
    #: The web app's pages it gets: ``steps``, a form per declared step (bellica/app/step_forms.py),
    #: the only kind since every front end follows from the declarations (issue 20).
    web_pages: str = "steps"
    #: The game's name in words (``Magna Graecia``; empty: :attr:`name`).
    title: str = ""
    #: What its messages call a round (``turn``, ``round``, ``phase``).
    round_word: str = "round"
    #: Its tables whose new rows a step's output tells (an order given), beside the rules' own events.
    told_tables: frozenset = frozenset()
    #: The command-line group its declared steps make (``bellica <group> <step>``; empty: the
    #: ruleset declares none, or its group is written by hand).  :attr:`play_command` names it.
    command_group: str = ""

    @property
    def play_command(self) -> str:
        """The command a person plays this ruleset's campaigns with, named when another game's
        command is given one of its files (``bellica round`` refuses a Trossian campaign in one
        line): ``bellica <command_group>``.  A ruleset sets it as a class attribute where its
        steps are played through another command (``bellica turn``, shared by two games)."""
        return f"bellica {self.command_group}" if self.command_group else "bellica round"

    #: The option naming the faction that takes a side's step (``--nation``, ``--side``).
    faction_flag: str = "--faction"
    #: A folder of the scenario folders the ruleset ships (a distribution's own; None: it ships
    #: none, or they are bellica's ``datasets/scenarios``): ``bellica campaign new --scenario NAME``
    #: and ``bellica campaign scenarios`` find them by name (:func:`ruleset_scenarios`).
    scenarios: Path | None = None
    #: Whether ``<group> status`` answers before the campaign's start (False: it is a step out
    #: of order there, exit 3, naming ``start``).
    status_before_start: bool = True
    #: The campaign file the generated ``start`` and ``status`` help examples name.
    example_campaign: str = "CAMPAIGN"
    #: Whether ``<group> status --json`` writes the file's name for the placeholder ``CAMPAIGN`` of
    #: its words (False: the player view's status as it is, as the web app's status JSON gives it).
    status_json_names_file: bool = True
    #: Whether a step's output ends with the ``next:`` line naming what comes next (False: the
    #: ruleset's ``status`` says it, and a step prints only what it did).
    says_next: bool = True

    # --- the schema -----------------------------------------------------------------

    @cached_property
    def tables(self) -> tuple[StateTable, ...]:
        """The ruleset's own state tables, read from :attr:`state_sql`."""
        return tables_from_sql(self.state_sql) if self.state_sql else ()

    @cached_property
    def schema(self) -> StateSchema:
        from bellica.engine.core.state import CORE_REDUCERS

        clash = sorted(set(self.reducers) & set(CORE_REDUCERS))
        if clash:
            raise BellicaError(f"ruleset {self.name}: state kind {clash[0]!r} is the core's own")
        return StateSchema.build(core_tables() + self.tables, {**CORE_REDUCERS, **self.reducers})

    # --- static board and rules data, read once per Campaign ---------------------------

    def load_board(self, campaign) -> Any:
        """The static board of ``campaign`` (what never changes during a campaign)."""
        raise BellicaError(f"ruleset {self.name} has no board")

    def close_board(self, board: Any) -> None:
        """Release what the board holds (in-memory databases, caches) when its campaign closes."""

    def read_rules(self, campaign) -> Any:
        """The rules data of ``campaign`` (constants of the ruleset, with the scenario's overrides)."""
        return None

    def factions(self, campaign) -> list[str]:
        """The campaign's factions (who may read the log, whose orders are sealed), sorted:
        by default the names of its ``factions`` table."""
        if "factions" not in campaign.tables():
            return []
        return sorted(r[0] for r in campaign.con.execute("SELECT name FROM factions").fetchall())

    # --- starting a campaign -------------------------------------------------------------

    def start_snapshot(self, campaign, *, seed: int) -> Snapshot:
        """The state at the start of the campaign, from the scenario tables (checked again by verify)."""
        raise NotImplementedError(f"ruleset {self.name} does not say how a campaign starts")

    def initial_events(self, campaign, *, seed: int) -> list[Event]:
        """The set-up events (phase ``setup``) that record :meth:`start_snapshot`: by default a
        ``set_campaign`` per campaign key and a ``put_row`` per row of the ruleset's tables."""
        snap = self.start_snapshot(campaign, seed=seed)
        out = [Event(1, "setup", "set_campaign", {"key": k, "value": v}) for k, v in snap.rows("campaign")]
        for table in self.tables:
            names = table.column_names
            for row in snap.rows(table.name):
                out.append(Event(1, "setup", "put_row", {"table": table.name, "row": dict(zip(names, row))}))
        return [Event(e.round, e.phase, e.kind, e.data, self.describe(e, campaign)) for e in out]

    def after_start(self, campaign) -> None:
        """Called inside the start transaction once the set-up events are stored (e.g. install views)."""

    # --- words -----------------------------------------------------------------------------

    def describe(self, event: Event, campaign=None) -> str:
        """One line of words for ``event`` (its own ``text`` when it has one)."""
        if event.text:
            return event.text
        d = event.data
        if event.kind == "set_campaign":
            return f"campaign {d['key']} = {d['value']}"
        if event.kind == "put_note":
            return f"noted {d['key']} for round {d['round']}"
        if event.kind == "put_row":
            return f"{d['table']}: " + ", ".join(f"{k}={v}" for k, v in d["row"].items())
        if event.kind == "drop_row":
            return f"{d['table']}: drop " + ", ".join(f"{k}={v}" for k, v in d["key"].items())
        return f"{event.kind}: " + ", ".join(f"{k}={v}" for k, v in sorted(d.items()))

    # --- the round ---------------------------------------------------------------------------

    def step(self, name: str) -> Step:
        for s in self.steps:
            if s.name == name:
                return s
        raise BellicaError(f"ruleset {self.name} has no step {name!r}: its steps are {', '.join(s.name for s in self.steps)}")

    def next_step(self, campaign, snap: Snapshot) -> str:
        """What the umpire does next, in words naming the command."""
        return "see the ruleset's rounds"

    def require(self, campaign, snap: Snapshot, name: str) -> None:
        """Refuse step ``name`` (:class:`~engine.core.machine.StepRefused`) unless the campaign's position allows it."""
        require_step(self.step(name), position_of(snap), lambda: self.next_step(campaign, snap))

    def run_step(self, campaign, name: str, arg: Any) -> list[Event]:
        """Run step ``name`` with the input ``arg`` a log recorded (re-adjudication)."""
        raise BellicaError(f"ruleset {self.name} cannot re-run step {name!r}")

    def recorded_steps(self, events: Sequence[StoredEvent]) -> list[tuple[str, Any]]:
        """The umpire's steps and their inputs, read back from a log, in order."""
        return []

    # --- the steps as data (engine/core/steps.py): every front end follows from them ------------

    def actions(self) -> tuple:
        """The ruleset's declared steps (:class:`~bellica.engine.core.steps.Action`), in the order
        its help lists them; none by default."""
        return ()

    def action(self, name: str):
        """The declared step ``name`` (an :class:`InputError` naming the others otherwise)."""
        for a in self.actions():
            if a.name == name:
                return a
        raise InputError(f"{self.name} has no step {name!r}: its steps are {', '.join(a.name for a in self.actions())}")

    def open_actions(self, campaign, viewer: str | None) -> list:
        """The declared steps ``viewer`` (a faction; None: the umpire) may take now: theirs
        (:data:`~bellica.engine.core.steps.SIDE` for a faction, the umpire's otherwise, and for the
        umpire also the side steps declared ``umpire_page``) whose machine step the position
        allows (:meth:`may_take`)."""
        from bellica.engine.core.steps import SIDE, UMPIRE

        if not campaign.has_state():
            return []
        snap = campaign.snapshot()
        who = UMPIRE if viewer is None else SIDE
        return [a for a in self.actions() if (a.who == who or (viewer is None and a.umpire_page))
                and self.may_take(campaign, snap, a, viewer)]

    def may_take(self, campaign, snap: Snapshot, action, viewer: str | None) -> bool:
        """Whether ``viewer`` may take ``action`` now: by default, whether :meth:`require` lets
        its machine step run (a ruleset whose turns belong to one side says more)."""
        try:
            self.require(campaign, snap, action.machine_step)
        except InputError:
            return False
        return True

    def not_theirs(self, campaign, action, viewer: str | None) -> str | None:
        """Why ``viewer`` (a faction; None: the umpire) may never take ``action`` in this campaign,
        in one line (a page refuses it as another role's step, 403), or None.  Whether the position
        allows it now is :meth:`may_take`'s.  Default: None (the step's ``who`` decides alone); a
        solo game's steps, say, are its player's side's only."""
        return None

    def said(self, campaign, events: Sequence, viewer: str | None) -> list[str]:
        """What a step's ``events`` tell ``viewer`` (None: the umpire) as lines: the rules' own
        events (bookkeeping rows only for :attr:`told_tables`), each sealed as the log seals it
        (:attr:`order_seal`); a ``step`` event is a heading."""
        quiet = QUIET_KINDS
        seal = self.order_seal
        snap = campaign.snapshot() if seal is not None else None
        lines = []
        for ev in events:
            if ev.kind in quiet and not (ev.kind == "put_row" and ev.data.get("table") in self.told_tables):
                continue
            if seal is not None and seal.hides(viewer, ev.kind, ev.data, snap):
                lines.append(seal.text(ev.data))
            else:
                lines.append(f"== {ev.text}" if ev.kind == "step" else ev.text)
        return lines

    def choices(self, campaign, viewer: str | None, action, param) -> Sequence[str] | None:
        """The values ``viewer`` may give ``param`` of ``action`` now, for a page to offer (the
        viewer's own armies' numbers, the places in reach), or None: any text.  Only a help: the
        step itself still decides.  Default: a ``choice`` parameter's choices, else None."""
        return tuple(param.choices) if param.kind == "choice" else None

    def field_offers(self, campaign, signer, action, param) -> Sequence | None:
        """The fields a page draws for ``param`` of ``action`` for ``signer`` (a
        :class:`~bellica.engine.core.steps.Signer`): for a keyed parameter one
        :class:`~bellica.engine.core.steps.FieldOffer` per key the signer may give now (an army it
        commands), for a list one box per item it may tick; or None: the parameter as a whole.
        Only a help, as :meth:`choices`: the step still decides.  Default: None."""
        return None

    def form_note(self, campaign, signer, action) -> str:
        """One line a page shows in ``action``'s form for ``signer``: where the step stands for them
        (given already, by whom; never what another gave).  Default: none."""
        return ""

    #: Older spellings of its page's forms that scripts may still post, by path: (``"step"``,
    #: ``"check"`` or ``"preview"``: the declared step taken, checked or previewed; the roles that
    #: may post it).  :meth:`older_form` says which step and its fields.  Default: none.
    older_paths: Mapping[str, tuple[str, tuple[str, ...]]] = {}

    def older_form(self, campaign, signer, path: str, fields: Mapping) -> tuple[str, dict]:
        """(the declared step, its fields by the page's names) of ``fields`` posted to an older path."""
        raise InputError(f"{path} is no page of this campaign")

    def older_answer(self, campaign, path: str, step: str, fields: Mapping) -> dict | None:
        """The JSON an older path answered scripts after its step ran, or None: the step's own."""
        return None

    def page_sections(self, campaign, viewer: str | None) -> list:
        """What a viewer's page shows besides its status, forms, map and log, as
        :class:`~bellica.engine.core.steps.PageSection` (a titled block of lines and a table of
        text, which the page escapes): Vae Victis II's engagements, the revealed orders, and for the
        umpire who has submitted (never what).  Read from what ``viewer`` may see only.  Default: none."""
        return []

    def map_words(self, campaign, text: str) -> str:
        """``text`` (a step's words, a log line, a problem) as a page shows it beside the map: its
        places named as the map names them.  Default: as it is (Vae Victis II's events name H3
        cells, which it names as its map's tooltips do)."""
        return text

    def status_lines(self, status: Mapping) -> list[str]:
        """The player view's ``status`` as lines of text (``<group> status`` without ``--json``):
        by default one ``key: value`` line per entry."""
        return [f"{k}: {v}" for k, v in status.items()]

    # --- what a viewer may see ------------------------------------------------------------------

    def player_view(self, campaign, viewer: str | None):
        """What ``viewer`` (a faction as the campaign spells it; None: the umpire) may see now, as a
        :class:`bellica.schema.view.PlayerView`: the one place the ruleset decides what another
        faction may not read.  Exports write it (``bellica export``)."""
        raise InputError(f"ruleset {self.name} has no player view: it cannot be exported yet")

    def secrets(self, campaign) -> tuple:
        """The tables holding what some viewer may not read now
        (:class:`bellica.engine.core.secrets.Secret`): the SQL console copies each viewer only what
        they let it read.  Decided beside :meth:`player_view` (the same decision, for SQL); the log's
        own seal is :attr:`order_seal`.  Default: nothing is secret."""
        return ()

    def order_sheet(self, view, campaign_name: str) -> tuple[str, str] | None:
        """``(file name, text)`` of an orders file for ``view``'s faction to fill in (a play-by-email
        packet's), made from that view alone; None when the ruleset takes orders by its commands."""
        return None

    def case_position(self, campaign, words: Sequence[str]) -> list[tuple[str, str, dict]] | None:
        """A position line of an adjudication case (engine/core/cases.py, docs/cases.md), split into
        ``words``, read in the ruleset's own terms: ``[("put" or "drop", table, {column: value})]``
        (a put merged over the stored row).  None (the default): the core reads the line."""
        return None

    def log_key(self, event: StoredEvent) -> tuple:
        """What re-adjudication compares of each event (a ruleset may leave out bookkeeping fields)."""
        return (event.round, event.phase, event.kind, event.data, event.text)

    # --- engine players (engine/core/players.py) ------------------------------------------------

    #: Whether a bot's reasons are logged as a ``bot_note`` event after its steps (the ruleset then
    #: seals it with its orders and replays it: :func:`~bellica.engine.core.players.with_note_steps`).
    bot_notes: bool = False

    def bots(self) -> Mapping[str, Callable[[], Any]]:
        """The kinds of engine player that may take a seat, by name (``{"random": ..., "heuristic":
        ...}``), each a callable making a :class:`~bellica.engine.core.players.Player`.  None by default."""
        return {}

    def bot_aid(self, campaign, viewer: str) -> Any:
        """Public help a bot of ``viewer``'s seat is given beside its player view (what a person in
        the seat also has: a hex game's static board, published levels); never the campaign."""
        return None


# --- the registry ------------------------------------------------------------------------------

_REGISTRY: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Add ``ruleset`` to the registry under its name (again with the same object: no change)."""
    if not ruleset.name:
        raise BellicaError(f"{type(ruleset).__name__} has no name: set the class attribute `name`")
    known = _REGISTRY.get(ruleset.name)
    if known is not None and known is not ruleset and type(known) is not type(ruleset):
        raise BellicaError(f"two rulesets are named {ruleset.name!r}: {type(known).__name__} and {type(ruleset).__name__}")
    _REGISTRY[ruleset.name] = ruleset
    return ruleset


def _discover(wanted: str | None = None) -> None:
    """Import every in-tree ``bellica.engine.<package>.ruleset`` and every installed entry point;
    with ``wanted``, stop as soon as a ruleset of that name is registered.

    Why ``wanted``: a command opens one campaign of one ruleset, and importing every other
    ruleset (and scanning the installed distributions' entry points) cost each command ~45 ms.
    The packages whose name begins the wanted one's (``vae_victis`` for ``vae-victis-ii``) are
    tried first; the others and the entry points only when it is not among them.  A name offered
    twice (in the tree and by an entry point) is still refused where both are imported
    (:func:`ruleset_names`, or a name not found in the tree).
    """
    import bellica.engine as engine_pkg

    found = wanted.replace("-", "_").lower() if wanted else ""
    packages = [info.name for info in pkgutil.iter_modules(engine_pkg.__path__) if info.ispkg and info.name != "core"]
    packages.sort(key=lambda name: not found.startswith(name))  # stable: the likely ones first, else in order
    for package in packages:
        module = f"bellica.engine.{package}.ruleset"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
        if wanted and wanted in _REGISTRY:
            return
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ep.load()


def get_ruleset(name: str | None) -> Ruleset:
    """The registered ruleset ``name`` (``None``: :data:`LEGACY_RULESET`)."""
    name = name or LEGACY_RULESET
    if name not in _REGISTRY:
        _discover(name)
    if name not in _REGISTRY:
        raise InputError(f"unknown ruleset {name!r} in scenario_meta: use one of {', '.join(ruleset_names()) or 'none installed'}")
    return _REGISTRY[name]


def ruleset_scenarios() -> dict[str, Path]:
    """The scenarios the found rulesets ship in their :attr:`Ruleset.scenarios` folders, by the name
    ``bellica campaign new --scenario`` takes: a folder's name (a hex or province scenario: its
    ``scenario.toml`` or ``provinces.toml``), or ``<folder>/<stem>`` for each TOML file of a folder
    whose ``[scenario]`` names a ruleset and a node file (a node scenario, docs/nodes.md).  The
    first ruleset offering a name keeps it."""
    import tomllib

    def node_scenario(path: Path) -> bool:
        try:
            head = tomllib.loads(path.read_text(encoding="utf-8")).get("scenario")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return False
        return isinstance(head, dict) and bool(head.get("ruleset")) and bool(head.get("nodes"))

    found: dict[str, Path] = {}
    for name in ruleset_names():
        folder = _REGISTRY[name].scenarios
        if folder is None or not Path(folder).is_dir():
            continue
        for sub in sorted(p for p in Path(folder).iterdir() if p.is_dir()):
            if (sub / "scenario.toml").is_file() or (sub / "provinces.toml").is_file():
                found.setdefault(sub.name, sub)
            else:
                for f in sorted(sub.glob("*.toml")):
                    if node_scenario(f):
                        found.setdefault(f"{sub.name}/{f.stem}", f)
    return found


def ruleset_names() -> list[str]:
    """Every ruleset that can be found (registered or discoverable), sorted."""
    _discover()
    return sorted(_REGISTRY)
