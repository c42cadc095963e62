"""Rulesets whose steps log their input first and rewrite state tables from a pure state.

A *stepped* ruleset keeps its pure rules (functions over an immutable turn state) apart
from the campaign file: each step logs a ``step`` event first (``{"step", "input"}``, the
input as resolved), runs the pure rules, and writes the state they leave as the core's
``put_row``/``drop_row`` events, diffed from the state's rows against the snapshot.
Re-adjudication reads the steps back from the ``step`` events and runs them again.

:class:`SteppedRuleset` gives the plug-in hooks that are the same for every such ruleset
(board and rules read from the campaign file, a scenario folder stored, the start
snapshot, row words, recorded steps); the helpers below build the events.  Nothing here
knows a ruleset: it finds a ruleset's functions in the ruleset's own package by their
module (``rules``, ``storage``, ``scenario``), or a subclass names them as class attributes.
"""

from __future__ import annotations

import importlib
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from bellica.datasets.rules import rules_rows
from bellica.engine.core.events import Event, StoredEvent
from bellica.engine.core.files import read_toml
from bellica.engine.core.rules import stored_rules
from bellica.engine.core.ruleset import Ruleset
from bellica.engine.core.tables import Snapshot, StateSchema
from bellica.geo.errors import InputError

__all__ = ["DryRun", "StepInput", "StepOutcome", "SteppedRuleset", "adjacency_of", "allowed", "border_pairs",
           "create_scenario_tables", "diff_events", "dry_run", "scenario_tables", "set_campaign", "snapshot_of",
           "step_event", "store_rules"]

#: A state as rows: ``{table: {key: row dict}}``.
Rows = Mapping[str, Mapping[tuple, dict]]


def step_event(rnd: int, phase: str, step: str, arg: Any, text: str) -> Event:
    """The ``step`` event a step logs first: its name and input (what re-adjudication runs again)."""
    return Event(rnd, phase, "step", {"step": step, "input": arg}, text)


def set_campaign(rnd: int, phase: str, key: str, value) -> Event:
    """A ``set_campaign`` event moving the core position (``value`` None clears the key)."""
    return Event(rnd, phase, "set_campaign", {"key": key, "value": value},
                 f"campaign {key} = {value}" if value is not None else f"campaign {key} cleared")


def diff_events(c, snap: Snapshot, rows: Rows, rnd: int, phase: str, *,
                state_keys: Mapping[str, Iterable[str]] | None = None) -> list[Event]:
    """put_row/drop_row events turning ``snap``'s tables named in ``rows`` into ``rows``, each
    described by the campaign's ruleset.  ``state_keys``: for a key/value table, the keys the
    state owns; its other rows (a verdict, say) are never dropped."""
    owned = {t: set(keys) for t, keys in (state_keys or {}).items()}
    events: list[Event] = []
    schema = c.ruleset.schema
    for table, wanted in rows.items():
        spec = schema.tables[table]
        stored = snap.tables[table]
        want = {spec.key_of(spec.row_from(r)): spec.row_from(r) for r in wanted.values()}
        for key in sorted(stored, key=str):
            if key not in want and not (table in owned and key[0] not in owned[table]):
                events.append(Event(rnd, phase, "drop_row", {"table": table, "key": dict(zip(spec.key, key))}))
        for key, row in sorted(want.items(), key=lambda kv: str(kv[0])):
            if stored.get(key) != row:
                events.append(Event(rnd, phase, "put_row", {"table": table, "row": dict(zip(spec.column_names, row))}))
    return [Event(e.round, e.phase, e.kind, e.data, c.ruleset.describe(e, c)) for e in events]


def snapshot_of(schema: StateSchema, position: Iterable[tuple[str, str]], rows: Rows) -> Snapshot:
    """An empty snapshot of ``schema`` holding the ``campaign`` keys of ``position`` and ``rows``."""
    snap = schema.empty()
    for key, value in position:
        snap.tables["campaign"][(key,)] = (key, value)
    for table, table_rows in rows.items():
        spec = schema.tables[table]
        for r in table_rows.values():
            row = spec.row_from(r)
            snap.tables[table][spec.key_of(row)] = row
    return snap


# --- one step, run by the core --------------------------------------------------------------------------


@dataclass(frozen=True)
class StepInput:
    """What a step's rule is given: the campaign's snapshot, its board and rules, the pure state
    read from the snapshot, the round and phase it runs in, the dice (the campaign's one seeded
    source) and the faction taking it (None: the umpire)."""

    snap: Snapshot
    board: Any
    rules: Any
    state: Any
    round: int
    phase: str
    dice: Any
    actor: str | None


@dataclass(frozen=True)
class StepOutcome:
    """What a step's rule gives back: the ``step`` event logged first (``marker``), the new pure
    state (None: no state table changes), the rules' own events (``told``), events written after
    the dice (``extra``: rows the step puts itself), the new position in the ruleset's own
    terms (``where``; None: :meth:`SteppedRuleset.position_events` reads it from the state) and
    events written after the state tables' diff, before the position (``after``: notes and rows
    the step derives from its new state)."""

    marker: Event
    state: Any = None
    told: Sequence[Event] = ()
    extra: Sequence[Event] = ()
    where: Any = None
    after: Sequence[Event] = ()


#: Set while :func:`dry_run` runs a step: :meth:`SteppedRuleset.take_step` then stops once the rule
#: has accepted the step, before anything is logged (no transaction is even opened).
_DRY: ContextVar[bool] = ContextVar("bellica_step_dry_run", default=False)


class DryRun(Exception):
    """Raised by :meth:`SteppedRuleset.take_step` under :func:`dry_run` once its rule accepted step ``step``."""

    def __init__(self, step: str):
        super().__init__(f"step {step} accepted (a dry run: nothing written)")
        self.step = step


def dry_run(run: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
    """Whether ``run(*args, **kwargs)`` (a declared step's ``run``) would be accepted, running the
    ruleset's own checks and pure rule and writing nothing: True once its first step's rule
    accepts it (the rest of a step made of several is not tried), False if it takes no step at
    all; the rule's refusal (an :class:`InputError`) propagates.  Nothing of the outcome is
    returned (its events may hold dice not yet due to anyone)."""
    token = _DRY.set(True)
    try:
        run(*args, **kwargs)
    except DryRun:
        return True
    finally:
        _DRY.reset(token)
    return False


def _require_used(entered: Mapping[str, int] | None, dice: Any) -> None:
    """Refuse dice entered at the table that the step never rolled (a mistyped label was silently
    dropped, the die drawn from the seed instead): one line naming it and the step's rolls."""
    if not entered:
        return
    used = {r.key for r in getattr(dice, "log", ())}
    unused = sorted(set(entered) - used)
    if unused:
        rolled = ", ".join(sorted(used)) or "none"
        raise InputError(f"entered die {unused[0]}: this step rolls no die of that label (its rolls: {rolled}); "
                         "give the label as the step names it")


# --- the static scenario in the campaign file -------------------------------------------------------


def create_scenario_tables(con, scenario_sql: str) -> None:
    """Run a ruleset's scenario DDL (``;``-separated) and make sure the schema's one ``rules`` table exists."""
    from bellica.geo.spatialdb import forget_catalog
    from bellica.schema import CAMPAIGN, create_tables

    for statement in scenario_sql.split(";"):
        if statement.strip():
            con.execute(statement)
    forget_catalog(con)
    # The frozen rules live in the schema's one `rules` table (schema/campaign.sql), as in every campaign.
    if not con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'rules'").fetchone()[0]:
        create_tables(con, CAMPAIGN, ["rules"])


def store_rules(con, rules) -> None:
    """Freeze a typed rules object's merged values in the ``rules`` table."""
    con.executemany("INSERT INTO rules VALUES (?, ?)", rules_rows(rules.values))


def scenario_tables(con) -> set[str]:
    """Names (lower case) of the tables of the campaign file's current schema."""
    return {r[0] for r in con.execute("SELECT lower(table_name) FROM information_schema.tables "
                                      "WHERE table_schema = current_schema()").fetchall()}


def border_pairs(adjacency: Mapping[str, Iterable[str]]) -> list[tuple[str, str]]:
    """Each border of a symmetric adjacency once, as a sorted pair, sorted."""
    return sorted({tuple(sorted((a, b))) for a, ns in adjacency.items() for b in ns})


def adjacency_of(names: Iterable[str], pairs: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """The symmetric adjacency of ``names`` from border ``pairs``."""
    adjacency: dict[str, set[str]] = {p: set() for p in names}
    for a, b in pairs:
        adjacency[a].add(b)
        adjacency[b].add(a)
    return {p: frozenset(n) for p, n in adjacency.items()}


def allowed(check: Callable[..., Any], *args: Any) -> bool:
    """Whether ``check(*args)``, a position's check that raises an :class:`InputError` naming
    what is wrong, lets a step run (a page offers the step, a ``may_take`` says yes)."""
    try:
        check(*args)
    except InputError:
        return False
    return True


def _worded(words: Mapping[str, str | Callable[[Mapping], str]], table: str, values: Mapping) -> str | None:
    """``words[table]`` said of ``values`` (None: no words for that table)."""
    said = words.get(table)
    if said is None:
        return None
    return said.format(**values) if isinstance(said, str) else said(values)


class SteppedRuleset(Ruleset):
    """The plug-in hooks every stepped ruleset shares.  A subclass sets ``scenario_name`` (the
    board's name when ``scenario_meta`` names none) and ``start_phase``, and overrides
    :meth:`folder_summary`, :meth:`start_state` (unless its ``turn`` module's ``new_game``
    gives the start) and, for its own tables' words,
    :attr:`row_words` / :attr:`drop_words` (or :meth:`describe_row` / :meth:`describe_drop`).

    Its package declares the rest by module, found when first needed: ``rules`` (``Rules``
    with ``from_mapping``, ``default_rules()``, ``rules_with(overrides, *, source)``),
    ``storage`` (``read_scenario(con, name)``, ``write_scenario(con, scenario, rules)``,
    ``state_rows(scenario, state)``, ``install_views(con)``), ``scenario``
    (``load_scenario(folder)``, for :meth:`load_folder`) and ``turn`` (``new_game(board, rules)``,
    for :meth:`start_state`).  A subclass may name any of them
    itself instead, as a class attribute (a staticmethod) or a method.
    """

    scenario_name: str = ""
    start_phase: str = ""
    #: The scenario folder's file whose optional ``[rules]`` table overrides the ruleset's file.
    scenario_file: str = "provinces.toml"

    # --- the package's own modules: its rules, its tables, its scenario folder -------------------

    def _declared(self, module: str, name: str) -> Any:
        """``name`` in the ruleset package's module ``module`` (an error naming both if absent)."""
        found = getattr(self._view_module(module), name, None)
        if found is None:
            package = type(self).__module__.rpartition(".")[0]
            raise NotImplementedError(f"ruleset {self.name}: {package}.{module} has no {name}; "
                                      f"define it there or set it on {type(self).__name__}")
        return found

    @property
    def rules_class(self) -> Any:
        return self._declared("rules", "Rules")

    def default_rules(self) -> Any:
        return self._declared("rules", "default_rules")()

    def rules_with(self, overrides: Mapping | None, *, source: str) -> Any:
        return self._declared("rules", "rules_with")(overrides, source=source)

    def read_scenario(self, con, name: str) -> Any:
        return self._declared("storage", "read_scenario")(con, name)

    def write_scenario(self, con, scenario: Any, rules: Any) -> None:
        self._declared("storage", "write_scenario")(con, scenario, rules)

    def state_rows(self, scenario: Any, state: Any) -> Rows:
        return self._declared("storage", "state_rows")(scenario, state)

    def install_views(self, con) -> None:
        self._declared("storage", "install_views")(con)

    # --- board and rules ------------------------------------------------------------------------

    def load_board(self, campaign):
        name = campaign.con.execute("SELECT value FROM scenario_meta WHERE key = 'name'").fetchone() \
            if "scenario_meta" in campaign.tables() else None
        return self.read_scenario(campaign.con, name[0] if name else self.scenario_name)

    def read_rules(self, campaign):
        values = stored_rules(campaign.con)
        return self.default_rules() if values is None else self.rules_class.from_mapping(values)

    def factions(self, campaign) -> list[str]:
        return sorted(campaign.board.nations)

    def player_view(self, campaign, viewer: str | None):
        """The ruleset package's ``player_view(campaign, viewer)``, in its ``player_view`` module
        (imported when first asked: a round step never needs it)."""
        module = self._view_module()
        return module.player_view(campaign, viewer) if module else super().player_view(campaign, viewer)

    def secrets(self, campaign) -> tuple:
        """The ruleset package's ``secrets(campaign)``, in its ``secrets`` module beside its player
        view (none if it has none)."""
        module = self._view_module("secrets")
        return module.secrets(campaign) if module else ()

    def actions(self) -> tuple:
        """The ruleset package's declared steps: ``ACTIONS`` in its ``steps`` module (none if it has none)."""
        module = self._view_module("steps")
        return tuple(module.ACTIONS) if module else ()

    def _view_module(self, name: str = "player_view"):
        """The module ``name`` of the ruleset's package, where it decides what a viewer may see
        (None if it has none)."""
        package = type(self).__module__.rpartition(".")[0]
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{name}":
                raise
            return None

    # --- a scenario folder ----------------------------------------------------------------------

    def load_folder(self, folder: Path) -> tuple[Any, Mapping | None]:
        """The scenario a folder holds, checked (the ``scenario`` module's ``load_scenario``), and
        the ``[rules]`` overrides of its :attr:`scenario_file` (None: none)."""
        folder = Path(folder)
        scenario = self._declared("scenario", "load_scenario")(folder)
        return scenario, read_toml(folder / self.scenario_file, f"a {self.title} scenario folder").get("rules")

    def folder_summary(self, scenario) -> str:
        """The stored scenario in words."""
        raise NotImplementedError

    def write_scenario_folder(self, con, folder) -> str:
        """Read and check a scenario folder with this ruleset's loader and, given a connection
        (``None``: only check), store it and its rules (the scenario file's optional ``[rules]``
        over the ruleset's file) in the campaign file.  Returns a summary in words."""
        folder = Path(folder)
        scenario, overrides = self.load_folder(folder)
        rules = (self.rules_with(overrides, source=f"{folder.name}/{self.scenario_file} [rules]") if overrides
                 else self.default_rules())
        if con is not None:
            self.write_scenario(con, scenario, rules)
        return self.folder_summary(scenario)

    # --- the start ------------------------------------------------------------------------------

    def start_state(self, campaign, seed: int) -> tuple[Any, list]:
        """The pure state at the start and the rules' events telling it (default: the package's
        ``turn.new_game(board, rules)``, a start that draws no dice and tells nothing)."""
        return self._declared("turn", "new_game")(campaign.board, campaign.rules), []

    def start_snapshot(self, campaign, *, seed: int) -> Snapshot:
        """The campaign before its first step: round 1, :attr:`start_phase`, the keys of
        :meth:`start_position`, the seed, and the start state's rows as a step writes them
        (:meth:`step_rows`, so a ruleset whose rows read its rules gets the same at the start)."""
        state, _told = self.start_state(campaign, seed)
        position = (("round", "1"), ("phase", self.start_phase), *self.start_position(state), ("seed", str(seed)))
        return snapshot_of(self.schema, position, self.step_rows(campaign, state))

    def start_position(self, state: Any) -> tuple[tuple[str, str], ...]:
        """The campaign keys the start sets besides round, phase and seed (default: none; a ruleset
        whose first phase is taken in stages names the first stage)."""
        return ()

    def after_start(self, campaign) -> None:
        self.install_views(campaign.con)

    # --- one step: the core's runner and the ruleset's hooks -------------------------------------------

    def take_step(self, campaign, name: str, rule: Callable[[StepInput], StepOutcome], *,
                  actor: str | None = None, entered: Mapping[str, int] | None = None) -> list[Event]:
        """Run step ``name`` in one transaction: check the position (:meth:`check_step`), read
        the pure state (:meth:`state_of`) and the dice (:meth:`dice_of`, ``entered``: dice rolled
        at the table), run the pure ``rule``, then log its marker, its events, the dice it used
        (:meth:`dice_events`), its extra events, the state tables' diff, its ``after`` events and
        the new position (:meth:`position_events`).  Returns the events logged."""
        c = campaign
        if _DRY.get():  # a preview (dry_run): the rule decides, nothing is logged or written
            snap = c.snapshot()
            self._checked_outcome(c, snap, name, rule, actor, entered)
            raise DryRun(name)
        with c.transaction():
            snap = c.snapshot()
            state, rnd, phase, dice, out = self._checked_outcome(c, snap, name, rule, actor, entered)
            events = [out.marker, *self.told_events(out, state, rnd, phase), *self.dice_events(dice, state, rnd, phase),
                      *out.extra]
            if out.state is not None:
                events += diff_events(c, snap, self.step_rows(c, out.state), rnd, phase, state_keys=self.state_keys)
            events += [*out.after, *self.position_events(c, snap, out, rnd, phase)]
            c.append(events, before=snap)
        return events

    def _checked_outcome(self, c, snap: Snapshot, name: str, rule, actor: str | None, entered) -> tuple:
        """The position checked, the pure state read and ``rule`` run on it: (state, round, phase, dice, outcome)."""
        self.check_step(c, snap, name, actor)
        state = self.state_of(c, snap)
        rnd, phase = self.step_time(snap, state)
        dice = self.dice_of(c, snap, entered)
        out = rule(StepInput(snap, c.board, c.rules, state, rnd, phase, dice, actor))
        _require_used(entered, dice)
        return state, rnd, phase, dice, out

    #: For a key/value state table, the keys the pure state owns (:func:`diff_events`).
    state_keys: Mapping[str, Iterable[str]] = {}

    def check_step(self, campaign, snap: Snapshot, name: str, actor: str | None) -> None:
        """Refuse step ``name`` by ``actor`` unless the position allows it (default: :meth:`require`)."""
        self.require(campaign, snap, name)

    def step_rows(self, campaign, state: Any) -> Rows:
        """The state tables' rows a step's new pure state holds (default: :meth:`state_rows`)."""
        return self.state_rows(campaign.board, state)

    def state_of(self, campaign, snap: Snapshot) -> Any:
        """The pure state the snapshot's rows hold."""
        raise NotImplementedError

    def step_time(self, snap: Snapshot, state: Any) -> tuple[int, str]:
        """The round and phase a step's events are logged in (default: the campaign's position)."""
        return int(snap.campaign("round")), snap.campaign("phase")

    def dice_of(self, campaign, snap: Snapshot, entered: Mapping[str, int] | None) -> Any:
        """The step's dice: the campaign's seeded source, with the dice ``entered`` at the table."""
        raise NotImplementedError

    def told_events(self, out: StepOutcome, state: Any, rnd: int, phase: str) -> list[Event]:
        """The rule's events as logged (default: as the rule gave them)."""
        return list(out.told)

    def dice_events(self, dice: Any, state: Any, rnd: int, phase: str) -> list[Event]:
        """The rolls the step used, as events (default: none logged)."""
        return []

    def position_events(self, campaign, snap: Snapshot, out: StepOutcome, rnd: int, phase: str) -> list[Event]:
        """``set_campaign`` events moving the core position to where the step leaves it (default: none)."""
        return []

    # --- words and re-adjudication -------------------------------------------------------------

    #: Words for a ``put_row`` on the ruleset's tables, by table: a template of the row's
    #: columns (``"fleet {fleet} in {sea}"``) or a function of the row.
    row_words: Mapping[str, str | Callable[[Mapping], str]] = {}
    #: The same for a ``drop_row``, of the dropped row's key.
    drop_words: Mapping[str, str | Callable[[Mapping], str]] = {}

    def describe_row(self, table: str, row: Mapping) -> str | None:
        """Words for a ``put_row`` on one of the ruleset's tables (None: the core's words)."""
        return _worded(self.row_words, table, row)

    def describe_drop(self, table: str, key: Mapping) -> str | None:
        """Words for a ``drop_row`` on one of the ruleset's tables (None: the core's words)."""
        return _worded(self.drop_words, table, key)

    def describe(self, event: Event, campaign=None) -> str:
        if event.text:
            return event.text
        d = event.data
        words = None
        if event.kind == "put_row":
            words = self.describe_row(d["table"], d["row"])
        elif event.kind == "drop_row":
            words = self.describe_drop(d["table"], d["key"])
        return words if words is not None else super().describe(event, campaign)

    def recorded_steps(self, events: Sequence[StoredEvent]) -> list[tuple[str, Any]]:
        return [(e.data["step"], e.data.get("input")) for e in events if e.kind == "step"]
