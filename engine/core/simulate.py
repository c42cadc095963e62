"""Many campaigns at once, for balance testing: any ruleset's ``seed -> dict`` run over many seeds.

:func:`run_seeds` derives each run's seed from a master seed and the run's index (by
:func:`bellica.engine.core.rng.stream`), and :func:`simulate` maps a pure function of the seed
over them, so run ``i`` gets the same seed, and the same result, whether the runs go one after
another in this process, over a pool of local processes, or over a Dask cluster of any
size: the result list is in run order whatever finished first.  A ruleset provides the
function (Rise of Rome: :class:`bellica.engine.rise_of_rome.policies.CampaignRunner`); it must
be picklable (a module-level function, a ``functools.partial`` of one, or an instance of a
module-level class) and must draw every die from the seed it is given.

Where the runs go (``scheduler``):

* ``None`` or ``"processes"``: a local process pool of ``workers`` processes (default: every
  core); ``workers=1`` runs in this process;
* ``"sync"``: in this process, one after another (for debugging);
* an address (``tcp://host:8786``, ``tls://...``, ``inproc://...``, or ``host:port``): a
  running Dask scheduler, through :class:`distributed.Client`;
* a :class:`distributed.Client` already connected.

The runs travel in batches (about four per worker), so a cluster's per-task overhead is paid
a few dozen times, not once per campaign.  :func:`summarise` reduces the result rows to counts,
quantiles and per-turn bands without knowing the ruleset.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from bellica.engine.core import rng
from bellica.geo.errors import InputError, first_line

__all__ = ["BATCHES_PER_WORKER", "SEED_NAMESPACE", "CampaignGames", "Simulation", "Study", "StudyOptions", "campaign_copy",
           "campaign_lines", "campaign_simulation", "campaign_study", "play_seats", "play_until_waiting", "quantile",
           "run_seeds", "scratch_folder", "seat_kinds", "seated_factions", "shared_reads", "simulate", "simulation_named",
           "simulation_of", "simulations", "summarise", "umpire_step"]

#: The namespace of the run seeds in :func:`rng.stream` (never a campaign's own labels).
SEED_NAMESPACE = "simulate-run"
#: Batches per worker: enough to even out slow and fast runs, few enough to keep overhead low.
BATCHES_PER_WORKER = 4


def run_seeds(master: int, runs: int) -> list[int]:
    """The seed of each of ``runs`` runs: run ``i``'s depends only on ``master`` and ``i``."""
    if runs < 0:
        raise InputError(f"runs {runs}: give a number of runs of 0 or more")
    return [rng.stream(int(master), SEED_NAMESPACE, i).getrandbits(63) for i in range(runs)]


def _batches(n: int, count: int) -> list[range]:
    """``range(n)`` cut into ``count`` (or fewer) contiguous batches of near-equal size."""
    count = max(1, min(count, n))
    size = math.ceil(n / count) if n else 1
    return [range(i, min(i + size, n)) for i in range(0, n, size)]


def _run_batch(play_one: Callable[[int], dict], seeds: Sequence[int]) -> list[dict]:
    return [play_one(s) for s in seeds]


def _is_address(text: str) -> bool:
    if "://" in text:
        return True
    host, sep, port = text.rpartition(":")
    return bool(sep and host and port.isdigit())


def simulate(play_one: Callable[[int], dict], seeds: Iterable[int], *, scheduler: Any = None,
             workers: int | None = None, progress: Callable[[int, int], None] | None = None,
             quiet: bool = False) -> list[dict]:
    """``play_one(seed)`` for every seed, in order; each row gets ``run`` (its index) and ``seed``.

    ``scheduler``/``workers``: module doc.  ``progress(done, total)`` is called with the runs done
    so far as each run (in this process) or batch (a pool or a cluster) finishes.  ``quiet``:
    distributed's client logs WARNING and above only, even with --verbose
    (:class:`bellica.geo.logs.library_logs`).  A run's exception is raised here (the first in run
    order for the local pool)."""
    seeds = [int(s) for s in seeds]
    n = len(seeds)
    if workers is not None and workers < 1:
        raise InputError(f"workers {workers}: give 1 or more worker processes")
    if isinstance(scheduler, str):
        if scheduler in ("processes", ""):
            scheduler = None
        elif scheduler not in ("sync",) and not _is_address(scheduler):
            raise InputError(f"scheduler {scheduler!r}: give \"processes\", \"sync\" or a Dask scheduler address "
                             "such as tcp://127.0.0.1:8786")
    if n == 0:
        return []
    if scheduler == "sync" or (scheduler is None and (workers or os.cpu_count() or 1) == 1):
        rows = []
        for i, s in enumerate(seeds):
            rows.append(play_one(s))
            if progress is not None:
                progress(i + 1, n)
    elif scheduler is None:
        rows = _local_pool(play_one, seeds, workers or os.cpu_count() or 1, progress)
    else:
        rows = _dask(play_one, seeds, scheduler, progress, quiet)
    return [{"run": i, "seed": s, **row} for i, (s, row) in enumerate(zip(seeds, rows))]


def _local_pool(play_one, seeds: list[int], workers: int, progress) -> list[dict]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    workers = min(workers, len(seeds))
    batches = _batches(len(seeds), workers * BATCHES_PER_WORKER)
    # forkserver: a clean parent for the workers (no threads or open databases of the caller copied).
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    out: list[list[dict] | None] = [None] * len(batches)
    done = 0
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method)) as pool:
        futures = {pool.submit(_run_batch, play_one, [seeds[i] for i in b]): k for k, b in enumerate(batches)}
        for f in as_completed(futures):
            k = futures[f]
            out[k] = f.result()
            done += len(batches[k])
            if progress is not None:
                progress(done, len(seeds))
    return [row for rows in out for row in rows]  # type: ignore[union-attr]


def _dask(play_one, seeds: list[int], scheduler, progress, quiet: bool) -> list[dict]:
    try:
        import distributed  # noqa: F401 -- imported before library_logs: the import sets its log level
    except ImportError as err:  # pragma: no cover - distributed is a dependency
        raise InputError(f"a Dask scheduler needs the distributed package ({err}): pip install distributed") from None
    from bellica.geo.logs import library_logs

    with library_logs(quiet=quiet):
        return _dask_batches(play_one, seeds, scheduler, progress)


def _dask_batches(play_one, seeds: list[int], scheduler, progress) -> list[dict]:
    from distributed import Client, as_completed

    own = None
    if isinstance(scheduler, str):
        try:
            own = client = Client(scheduler, timeout="10s", set_as_default=False)
        except (OSError, TimeoutError, ValueError) as err:
            first = first_line(err)
            raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({first}): start one with "
                             "`dask scheduler` and its workers with `dask worker ADDRESS`, or leave --scheduler out") from None
    else:
        client = scheduler
    try:
        threads = sum(client.nthreads().values()) or 1
        batches = _batches(len(seeds), threads * BATCHES_PER_WORKER)
        futures = [client.submit(_run_batch, play_one, [seeds[i] for i in b], pure=False) for b in batches]
        index = {f.key: k for k, f in enumerate(futures)}
        out: list[list[dict] | None] = [None] * len(batches)
        done = 0
        for f in as_completed(futures, loop=client.loop):
            k = index[f.key]
            out[k] = f.result()
            done += len(batches[k])
            if progress is not None:
                progress(done, len(seeds))
        return [row for rows in out for row in rows]  # type: ignore[union-attr]
    finally:
        if own is not None:
            own.close()


# --- the summary --------------------------------------------------------------------------


def quantile(values: Sequence[float], q: float) -> float | None:
    """The ``q`` quantile of ``values`` by linear interpolation between order statistics (numpy's
    default); None for no values."""
    xs = sorted(values)
    if not xs:
        return None
    pos = (len(xs) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    value = xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)
    return round(value, 6)


QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def _qname(q: float) -> str:
    return "median" if q == 0.5 else f"p{round(q * 100):02d}"


def summarise(rows: Sequence[Mapping[str, Any]], *, counts: Mapping[str, Sequence[str]] | Sequence[str] = (),
              numbers: Sequence[str] = (), series: Sequence[str] = (),
              quantiles: Sequence[float] = QUANTILES) -> dict:
    """The distribution of the runs' outcomes.

    ``counts``: keys whose values are categories (a mapping gives each key its categories in
    order, zero counts kept); ``numbers``: keys holding one number per run (mean, min, max and
    ``quantiles``); ``series``: keys holding a list per run (one entry per turn), summarised
    entry by entry (n, mean, min, max and the quantiles; None entries skipped).
    """
    n = len(rows)
    out: dict[str, Any] = {"runs": n, "counts": {}, "numbers": {}, "series": {}}
    order = counts if isinstance(counts, Mapping) else {k: () for k in counts}
    for key, known in order.items():
        tally = {c: 0 for c in known}
        for r in rows:
            v = r.get(key)
            tally[v] = tally.get(v, 0) + 1
        out["counts"][key] = {str(k): {"runs": v, "share": round(v / n, 6) if n else None} for k, v in tally.items()}

    def stats(values: list[float]) -> dict:
        d: dict[str, Any] = {"n": len(values)}
        d["mean"] = round(sum(values) / len(values), 6) if values else None
        d["min"] = min(values) if values else None
        d["max"] = max(values) if values else None
        for q in quantiles:
            d[_qname(q)] = quantile(values, q)
        return d

    for key in numbers:
        out["numbers"][key] = stats([r[key] for r in rows if r.get(key) is not None])
    for key in series:
        length = max((len(r.get(key) or ()) for r in rows), default=0)
        out["series"][key] = [
            {"index": t, **stats([r[key][t] for r in rows if len(r.get(key) or ()) > t and r[key][t] is not None])}
            for t in range(length)]
    return out


# --- engine players in a simulated campaign ---------------------------------------------------


class _Rows:
    """A read's answer kept in memory: what the callers of ``con.execute`` use of a cursor."""

    def __init__(self, description, rows: list) -> None:
        self.description = description
        self._rows = rows
        self._at = 0

    def fetchall(self) -> list:
        out, self._at = self._rows[self._at:], len(self._rows)
        return list(out)

    def fetchone(self):
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchmany(self, size: int = 1) -> list:
        out = self._rows[self._at:self._at + size]
        self._at += len(out)
        return list(out)


class _ReadOnce:
    """A campaign connection that answers each identical SELECT once (:func:`shared_reads`);
    any other statement goes to the connection and forgets every answer kept."""

    def __init__(self, con) -> None:
        self._con = con
        self._kept: dict[tuple[str, str], tuple] = {}

    def execute(self, sql: str, parameters=None):
        first = str(sql).lstrip().split(None, 1)[:1]
        if not first or first[0].upper() not in ("SELECT", "WITH"):
            self._kept.clear()
            return self._con.execute(sql) if parameters is None else self._con.execute(sql, parameters)
        key = (sql, repr(parameters))
        kept = self._kept.get(key)
        if kept is None:
            cur = self._con.execute(sql) if parameters is None else self._con.execute(sql, parameters)
            kept = self._kept[key] = (cur.description, cur.fetchall())
        return _Rows(*kept)

    def __getattr__(self, name: str):
        return getattr(self._con, name)


class shared_reads:
    """``with shared_reads(campaign):`` the campaign's reads are answered once each while nothing is
    written: two seats read at one position (every faction's player view is filtered from the same
    queries) pay for the queries once, and the state tables are read once for the block
    (``campaign.snapshot()``).  Only for reading: the connection and the snapshot are the
    campaign's own again after the block."""

    def __init__(self, campaign) -> None:
        self.campaign = campaign
        self._con = None

    def __enter__(self):
        c = self.campaign
        self._con = c.con
        c.con = _ReadOnce(self._con)
        # The state tables too (read through the campaign's prepared statements, not ``con``):
        # once for the block (at the first look), an instance attribute over the method until the block ends.
        kept: list = []

        def snapshot():
            if not kept:
                kept.append(type(c).snapshot(c))
            return kept[0]

        c.snapshot = snapshot
        return c

    def __exit__(self, *exc) -> None:
        self.campaign.con = self._con
        vars(self.campaign).pop("snapshot", None)


def play_seats(campaign, seats: Mapping[str, Any]) -> list:
    """Every seat of ``seats`` ({faction: bot kind}) with a step open decides on the same position,
    then each takes its steps in turn through :func:`~bellica.engine.core.players.take_seat`, as
    :func:`~bellica.engine.core.players.play_seat` takes them (the person's parser and step, a
    ``bot_note`` where the ruleset logs reasons).  Simultaneous decisions, as sealed orders are: the
    seats are read together (:func:`shared_reads`), so their player views' queries run once.
    Returns the :class:`~bellica.engine.core.players.Played` of each seat that took a step."""
    with shared_reads(campaign):
        read = _read_seats(campaign, seats)
    return _take_seats(campaign, read)


def _read_seats(campaign, seats: Mapping[str, Any]) -> list:
    """(the :class:`~bellica.engine.core.players.Seat`, its player) of each seat of ``seats`` with a
    step open now."""
    from bellica.engine.core.players import bot_maker, reads_offers, seat_for

    ruleset = campaign.ruleset
    read = []
    for faction, kind in seats.items():
        actions = ruleset.open_actions(campaign, faction)
        if actions:
            player = bot_maker(ruleset, kind)()
            read.append((seat_for(campaign, faction, kind, actions=actions, offers=reads_offers(player)), player))
    return read


def _take_seats(campaign, read: Sequence) -> list:
    """Each read seat's player decides and its answers are taken, in turn; the seats that took a step."""
    from bellica.engine.core.players import take_seat

    played = [take_seat(campaign, seat, player, tell=False) for seat, player in read]
    return [p for p in played if p.answers]


def play_until_waiting(campaign, seats: Mapping[str, Any], *, limit: int = 400,
                       until: Callable[[Any], bool] | None = None) -> int:
    """:func:`play_seats` again and again until no seat takes a step (a person's or the umpire's
    turn, or the campaign is over) or ``until(campaign)`` holds; returns the steps taken.  ``until``
    reads the position the seats then read (one :func:`shared_reads` block).  A seat that keeps
    taking steps past ``limit`` is a bot's bug: one line naming it."""
    taken = 0
    while True:
        with shared_reads(campaign):
            if until is not None and until(campaign):
                return taken
            read = _read_seats(campaign, seats)
        played = _take_seats(campaign, read)
        if not played:
            return taken
        taken += len(played)
        if taken > limit:
            raise InputError(f"the bots took more than {limit} steps without waiting for the umpire "
                             f"({', '.join(p.faction for p in played)} still playing): a bot that never finishes")


def umpire_step(campaign, name: str, given: Mapping[str, Any], *, as_faction: str | None = None) -> list:
    """Take the declared step ``name`` with ``given`` (text by parameter name) as the umpire (or
    as ``as_faction``), through the parser and step a person's form uses."""
    from bellica.engine.core.steps import parse_input

    ruleset = campaign.ruleset
    action = next((a for a in ruleset.actions() if a.name == name), None)
    if action is None:
        raise InputError(f"{ruleset.name} has no step {name!r}")
    word = ruleset.faction_flag.lstrip("-")
    typed = parse_input(action, given, tuple(ruleset.factions(campaign)), word)
    return action.run(campaign, as_faction, **typed)


def seat_kinds(ruleset, given: Mapping[str, str], factions: Sequence[str], default: str | None) -> dict[str, str]:
    """{faction: bot kind} for every faction: ``given`` ({faction: kind}, names as the campaign
    spells them), the others ``default`` (None: the ruleset's ``heuristic`` when it has one, else
    ``random``); an unknown kind is one line naming the ruleset's kinds."""
    kinds = dict(ruleset.bots())
    if default is None:
        default = "heuristic" if "heuristic" in kinds else "random"
    out = {f: given.get(f, default) for f in factions}
    for f, kind in out.items():
        if kind not in kinds:
            raise InputError(f"seat {f}={kind}: {ruleset.name} has no bot {kind!r}: use one of {', '.join(sorted(kinds))}")
    unknown = sorted(set(given) - set(factions))
    if unknown:
        raise InputError(f"seat {unknown[0]}: not a faction of this campaign: give one of {', '.join(factions)}")
    return out


#: Free space a scratch folder in memory needs, else the system's temporary folder.
_SHM_NEEDED = 1 << 30


def scratch_folder() -> str | None:
    """Where simulated games' campaign copies go: ``/dev/shm`` when it has room (a step's commit
    syncs the file: in memory that costs nothing), else None (the system's temporary folder)."""
    import shutil
    from pathlib import Path

    shm = Path("/dev/shm")
    try:
        return str(shm) if shm.is_dir() and shutil.disk_usage(shm).free > _SHM_NEEDED else None
    except OSError:
        return None


class campaign_copy:
    """``with campaign_copy(FILE, seed) as c:`` a started :class:`Campaign` on a scratch copy of the
    fresh campaign file ``FILE`` (never written itself), removed afterwards; one open connection
    for the whole game."""

    def __init__(self, source, seed: int) -> None:
        from pathlib import Path

        self.source, self.seed = Path(source), int(seed)
        self._tmp = self._campaign = None

    def __enter__(self):
        import shutil
        import tempfile
        from pathlib import Path

        from bellica.engine.core.campaign import Campaign

        if not self.source.is_file():
            raise InputError(f"campaign {self.source}: no such file on this worker: give a fresh `bellica campaign new` "
                             "file every worker can read at the same path")
        self._tmp = tempfile.TemporaryDirectory(prefix="bellica-sim-", dir=scratch_folder())
        path = Path(self._tmp.name) / "game.duckdb"
        shutil.copyfile(self.source, path)
        try:
            self._campaign = Campaign.open(path)
            if self._campaign.has_state():
                raise InputError(f"campaign {self.source} has already started: give a fresh `bellica campaign new` file")
            self._campaign.start(seed=self.seed)
        except BaseException:
            self.__exit__()
            raise
        return self._campaign

    def __exit__(self, *exc) -> None:
        if self._campaign is not None:
            self._campaign.close()
            self._campaign = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


# --- what a ruleset declares for `bellica simulate` ---------------------------------------------
#
# A ruleset's package offers simulation with a module ``<package>.simulate`` holding ``SIMULATION``, a
# :class:`Simulation`.  The command finds it through the ruleset registry (:func:`simulations`), so a
# ruleset installed as a distribution adds its own studies without an edit of ``bellica simulate``.


@dataclass(frozen=True)
class StudyOptions:
    """What ``bellica simulate`` was given, as a study is built from it."""

    ruleset: str  # the registered name
    seed: int = 1
    runs: int = 1
    policy: str | None = None
    nation_policies: tuple[str, ...] = ()  # NATION=POLICY as typed
    rules_file: Path | None = None
    campaign_file: Path | None = None
    seats: tuple[str, ...] = ()  # FACTION=KIND as typed
    length: int | None = None  # --rounds


@dataclass
class Study:
    """A study ready to run: the picklable ``seed -> row`` (:func:`simulate` maps it over the run
    seeds), how the rows are summarised (:func:`summarise`'s ``counts``, ``numbers``, ``series``), the
    summary's own fields (``meta``), the report's lines, and the chart (a function of
    ``bellica.web_maps.plots`` by name, with its keyword arguments from the summary document)."""

    runner: Callable[[int], dict]
    what: str  # what the progress bar calls a run: "campaigns", "games"
    meta: dict
    counts: Mapping[str, Sequence[str]]
    numbers: Sequence[str]
    series: Sequence[str]
    lines: Callable[[dict, dict], list[str]]  # (meta with the timing, the summary) -> the report
    plot: str  # "outcome_plot" (it reads the rows too) or "nations_plot"
    plot_args: Callable[[dict], dict]
    rate_digits: int = 2  # runs per second, rounded to this many digits


@dataclass(frozen=True)
class Simulation:
    """What a ruleset declares to be simulated (module comment above).

    ``study`` builds a :class:`Study` from the options (an unknown policy or seat is one line naming
    the choices).  ``on_campaign``: played on ``--campaign FILE`` with ``--seat`` and ``--rounds``
    (else the scenario as shipped, with ``--rules``); ``nation_policies``: takes ``--nation-policy``;
    ``one_player``: why it refuses ``--nation-policy`` when it does not; ``aliases``: other names the
    command accepts for it."""

    title: str
    policy_help: str  # who --policy plays, and the default, for the command's help
    study: Callable[[StudyOptions], Study]
    about: str = ""  # a paragraph of the command's help: who plays, what departs from the seed
    aliases: tuple[str, ...] = ()
    on_campaign: bool = False
    nation_policies: bool = False
    one_player: str = ""
    rounds_help: str = ""  # on a campaign: what --rounds counts, and its default


def simulation_of(ruleset) -> Simulation | None:
    """The :class:`Simulation` the ruleset's package declares (``<package>.simulate.SIMULATION``), or None."""
    import importlib
    import importlib.util

    package = type(ruleset).__module__.rpartition(".")[0]
    if not package:
        return None
    try:
        found = importlib.util.find_spec(f"{package}.simulate") is not None
    except (ImportError, ValueError):
        return None
    return getattr(importlib.import_module(f"{package}.simulate"), "SIMULATION", None) if found else None


def simulations() -> dict[str, Simulation]:
    """Every found ruleset's :class:`Simulation`, by registered name (in the registry's order)."""
    from bellica.engine.core.ruleset import get_ruleset, ruleset_names

    out = {}
    for name in ruleset_names():
        sim = simulation_of(get_ruleset(name))
        if sim is not None:
            out[name] = sim
    return out


def simulation_named(name: str) -> tuple[str, Simulation]:
    """(the registered name, its :class:`Simulation`) of ``name`` as typed (a ruleset's name or one of
    its aliases); one line naming the choices otherwise."""
    found = simulations()
    for registered, sim in found.items():
        if name == registered or name in sim.aliases:
            return registered, sim
    raise InputError(f"no simulation for the ruleset {name!r}: choose one of {', '.join(found)}")


# --- the rulesets played on a campaign file by their engine players --------------------------------


@dataclass(frozen=True)
class CampaignGames:
    """A ruleset whose game is its campaign file, stepped by the engine players: what a study of it
    needs (:func:`campaign_simulation`).

    ``runner(campaign, seats, length)``: the picklable ``seed -> row`` of one game on a copy of the
    file (seats: (faction, kind) pairs; length: ``--rounds``, None: ``default_length``).  ``unit``:
    what ``--rounds`` counts; ``default_length`` (None: the game's own, ``length_words``);
    ``score``: what a game is won by ("VP": rows ``vp_<faction>``, else ``provinces_<faction>``);
    ``span``: the row's key of how long it lasted; ``series``: (the row's per-round prefix, its words
    on the chart, what one entry is); ``seated``: the factions a game seats (None: every faction)."""

    runner: Callable[[str, tuple, int | None], Callable[[int], dict]]
    departure: str
    unit: str
    default_length: int | None
    length_words: str
    score: str
    span: str
    series: tuple[str, str, str]
    seated: Callable[[Any], list[str]] | None = None


def campaign_simulation(title: str, games: CampaignGames, *, aliases: tuple[str, ...] = (), rounds_help: str) -> Simulation:
    """The :class:`Simulation` of a ruleset played on a campaign file (``--campaign``, ``--seat``, ``--rounds``)."""
    from functools import partial

    return Simulation(title, "every seat's bot kind (default heuristic where the ruleset has one, else random; "
                             "docs/bots.md)", partial(campaign_study, games), about=CAMPAIGN_ABOUT, aliases=aliases,
                      on_campaign=True, rounds_help=rounds_help)


#: The command's help on the rulesets played on a campaign file.
CAMPAIGN_ABOUT = ("played on --campaign FILE, a fresh `bellica campaign new` file: every seat by an engine player "
                  "(--policy for all, --seat FACTION=KIND for one), the umpire's steps by the engine, each battle by a "
                  "seeded generator (a departure from the seed: the report says so).")


def seated_factions(campaign_file, ruleset: str, games: CampaignGames) -> list[str]:
    """The factions a game seats (:attr:`CampaignGames.seated`).  A file of another ruleset, or one
    already started, is one line naming the fix."""
    from bellica.engine.core.campaign import Campaign

    with Campaign.open(campaign_file, read_only=True) as c:
        if c.ruleset.name != ruleset:
            raise InputError(f"--campaign {campaign_file} is a {c.ruleset.name} campaign: give a {ruleset} one "
                             f"(`bellica campaign new --scenario ...`) or simulate {c.ruleset.name}")
        if c.has_state():
            raise InputError(f"--campaign {campaign_file} has already started: give a fresh `bellica campaign new` file")
        return list(games.seated(c)) if games.seated is not None else list(c.ruleset.factions(c))


def _seats(options: StudyOptions, games: CampaignGames) -> dict[str, str]:
    from bellica.engine.core.names import one_named
    from bellica.engine.core.ruleset import get_ruleset

    factions = seated_factions(options.campaign_file, options.ruleset, games)
    given = {}
    for item in options.seats:
        name, sep, kind = str(item).partition("=")
        if not sep or not name.strip() or not kind.strip():
            raise InputError(f"--seat {item!r}: give FACTION=KIND, e.g. --seat {factions[0]}=heuristic")
        given[one_named(name.strip(), factions, what="faction", where="--seat")] = kind.strip().lower()
    return seat_kinds(get_ruleset(options.ruleset), given, factions, options.policy)


def campaign_study(games: CampaignGames, options: StudyOptions) -> Study:
    """The :class:`Study` of ``options.runs`` games on ``options.campaign_file`` (docs/simulate.md)."""
    if options.campaign_file is None:
        raise InputError(f"{options.ruleset} is played on a campaign file: give --campaign FILE, a fresh "
                         f"`bellica campaign new --scenario ...` file")
    if options.length is not None and options.length < 1:
        raise InputError(f"--rounds {options.length}: give 1 or more {games.unit}s")
    seats = _seats(options, games)
    length = options.length if options.length is not None else games.default_length
    factions = list(seats)
    score_key = "vp" if games.score == "VP" else "provinces"
    prefix, words, per = games.series
    meta = {"ruleset": options.ruleset, "campaign": str(options.campaign_file), "seats": seats, "seed": options.seed,
            "runs": options.runs, "length": {"unit": games.unit, "limit": length, "otherwise": games.length_words},
            "seeds": "run i's seed: rng.stream(seed, 'simulate-run', i).getrandbits(63)",
            "departures": [games.departure]}
    title = (f"{options.ruleset}: {options.runs} games, {', '.join(f'{f} {k}' for f, k in seats.items())}, "
             f"seed {options.seed} (battles by a seeded generator)")
    return Study(games.runner(str(options.campaign_file.resolve()), tuple(seats.items()), length), "games", meta,
                 counts={"winner": factions + ["tie"], "how": ()},
                 numbers=("margin", games.span, *(f"{score_key}_{f}" for f in factions)),
                 series=tuple(prefix + f for f in factions),
                 lines=_report(factions, games), plot="nations_plot",
                 plot_args=lambda document: {"title": title, "nations": factions, "series_prefix": prefix,
                                             "series_label": words, "index_label": f"{per} (0: after the first)"},
                 rate_digits=3)


def _report(factions: list[str], games: CampaignGames) -> Callable[[dict, dict], list[str]]:
    """The report of a campaign study: :func:`campaign_lines` with its factions and games fixed."""
    return lambda meta, summary: campaign_lines(meta, summary, factions, games)


def campaign_lines(meta: dict, summary: dict, factions: list[str], games: CampaignGames) -> list[str]:
    """The report of a study of games on a campaign file: who played, how long, the departures, the
    wins and how, how long the games lasted and by how much they were won, the scores, the series."""
    span, score = games.span, games.score
    series_prefix, series_words, per = games.series
    seats = ", ".join(f"{f} {k}" for f, k in meta["seats"].items())
    limit, unit = meta["length"]["limit"], meta["length"]["unit"]
    lines = [f"{meta['ruleset']}: {summary['runs']} games on {meta['campaign']}, {seats}, seed {meta['seed']}, "
             f"{meta['where']}: {meta['seconds']:.1f} s ({meta['runs_per_second']:.2f} games/s)",
             f"Each game: at most {limit} {unit}{'' if limit == 1 else 's'}" if limit else f"Each game: {meta['length']['otherwise']}",
             *(f"Departure from the seed: {d}." for d in meta["departures"])]
    wins = summary["counts"]["winner"]
    lines.append("Wins: " + ", ".join(f"{k} {v['runs']} ({(v['share'] or 0) * 100:.1f}%)" for k, v in wins.items()))
    lines.append("How: " + ", ".join(f"{k} {v['runs']}" for k, v in summary["counts"]["how"].items()))
    for key, words in ((span, f"{span} played" if span != "round" else "ended in round"),
                       ("margin", f"winner's lead ({score})")):
        n = summary["numbers"][key]
        if n["n"]:
            lines.append(f"{words[0].upper() + words[1:]}: median {n['median']:g}, 10-90% {n['p10']:g} to {n['p90']:g}, "
                         f"mean {n['mean']:g}, range {n['min']:g} to {n['max']:g}")
    for f in factions:
        n = summary["numbers"][f"{'vp' if score == 'VP' else 'provinces'}_{f}"]
        if n["n"]:
            lines.append(f"{f} {score} at the end: median {n['median']:g}, mean {n['mean']:g}, range {n['min']:g} to {n['max']:g}")
    lines.append(f"{series_words[0].upper() + series_words[1:]} after each {per}, median [10-90%]:")
    for f in factions:
        entries = summary["series"][series_prefix + f]
        lines.append(f"  {f}: " + ", ".join(f"{p['index'] + 1}: {p['median']:g} [{p['p10']:g}-{p['p90']:g}]" for p in entries))
    return lines
