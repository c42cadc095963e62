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
from typing import Any, Callable, Iterable, Mapping, Sequence

from bellica.engine.core import rng
from bellica.geo.errors import InputError

__all__ = ["BATCHES_PER_WORKER", "SEED_NAMESPACE", "campaign_copy", "play_seats", "play_until_waiting", "quantile", "run_seeds",
           "scratch_folder", "seat_kinds", "shared_reads", "simulate", "summarise", "umpire_step"]

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
            first = (str(err).strip().splitlines() or [type(err).__name__])[0]
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


def play_seats(campaign, seats: Mapping[str, Any], *, makers: Mapping[str, Callable[[], Any]] | None = None) -> list:
    """Every seat of ``seats`` ({faction: bot kind}) with a step open decides on the same position,
    then each takes its steps in turn, as :func:`~bellica.engine.core.players.play_seat` takes them
    (the person's parser and step, a ``bot_note`` where the ruleset logs reasons).  Simultaneous
    decisions, as sealed orders are: the seats are read together (:func:`shared_reads`), so their
    player views' queries run once.  ``makers``: kind -> a player (default: the ruleset's bots).
    Returns the :class:`~bellica.engine.core.players.Played` of each seat that took a step."""
    from bellica.engine.core.players import Played, _decide_and_take, note_event, seat_for

    ruleset = campaign.ruleset
    makers = dict(ruleset.bots()) if makers is None else dict(makers)
    with shared_reads(campaign):
        read = {f: seat_for(campaign, f, kind) for f, kind in seats.items() if ruleset.open_actions(campaign, f)}
    out = []
    for faction, seat in read.items():
        kind = seats[faction]
        if kind not in makers:
            raise InputError(f"no bot {kind!r} for {ruleset.name}: use one of {', '.join(sorted(makers)) or 'none'}")
        answers, events = _decide_and_take(campaign, seat, makers[kind](), kind)
        if answers and ruleset.bot_notes:
            note = note_event(campaign, faction, kind, seat.label, answers)
            with campaign.transaction():
                campaign.append([note], before=campaign.snapshot())
            events.append(note)
        if answers:
            out.append(Played(faction, kind, seat.label, answers, tuple(events)))
    return out


def play_until_waiting(campaign, seats: Mapping[str, Any], *, limit: int = 400,
                       until: Callable[[Any], bool] | None = None) -> int:
    """:func:`play_seats` again and again until no seat takes a step (a person's or the umpire's
    turn, or the campaign is over) or ``until(campaign)`` holds; returns the steps taken.  A seat
    that keeps taking steps past ``limit`` is a bot's bug: one line naming it."""
    taken = 0
    while until is None or not until(campaign):
        played = play_seats(campaign, seats)
        if not played:
            return taken
        taken += len(played)
        if taken > limit:
            raise InputError(f"the bots took more than {limit} steps without waiting for the umpire "
                             f"({', '.join(p.faction for p in played)} still playing): a bot that never finishes")
    return taken


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
