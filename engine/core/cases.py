"""The catalogue of adjudication cases: one TOML file per case, run against the installed engine.

Like the DATC of Diplomacy, each ruleset publishes numbered cases (``datasets/cases/<ruleset>/``,
docs/cases.md): a position written as compact text lines over a scenario's start, the steps as a
user types them (the words of the ruleset's declared steps, read by the same parser as the
command line and the web app), and what must follow: events that must (or must not) be logged,
SQL on the campaign's tables and the rows it must give, or the words a refused step must say.

Nothing here knows a ruleset.  A case is run on a fresh, not yet started campaign file of its
scenario (the caller makes it, as ``bellica campaign new`` does: the engine never builds a map);
the runner freezes the case's rules overrides into it, starts it with the case's seed (through
the ruleset's declared ``start`` step if it has one), applies the position, runs the steps and
checks the expectations.  A position line is the core's: a state table's row, merged over the
stored row with the same key (``TABLE column=value ...``), or ``drop TABLE key=value ...``; a
ruleset may read lines of its own first (:meth:`~bellica.engine.core.ruleset.Ruleset.case_position`,
e.g. Vae Victis II's ``army 9 at Roma 3 3 strength 1600``).  Every line becomes ``put_row`` /
``drop_row`` events in the log, so the campaign still verifies.
"""

from __future__ import annotations

import json
import re
import shlex
import time
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from bellica.engine.core.events import Event
from bellica.geo.errors import BellicaError, InputError

__all__ = ["Case", "CaseResult", "CASES_DIR", "case_key", "load_case", "load_catalogue", "parse_step_line",
           "position_events", "prepare", "run_case", "start_key"]

#: The shipped catalogue: one folder per ruleset (its registry name), one TOML file per case.
CASES_DIR = Path(__file__).resolve().parents[2] / "datasets" / "cases"

#: The keys a case file may hold (docs/cases.md); any other is refused, so a typo is never ignored.
_KEYS = {"id", "title", "ruleset", "scenario", "seed", "tests", "rules", "position", "steps", "refused", "expect",
         "note"}
_EXPECT_KEYS = {"events", "absent", "sql", "said"}


@dataclass(frozen=True)
class Case:
    """One case of the catalogue, as its file says (docs/cases.md)."""

    path: Path
    id: str
    title: str
    ruleset: str
    scenario: str
    seed: int
    tests: str
    steps: tuple[str, ...]
    position: tuple[str, ...] = ()
    rules: Mapping[str, Any] = field(default_factory=dict)
    refused: str | None = None
    events: tuple[Mapping[str, Any], ...] = ()
    absent: tuple[Mapping[str, Any], ...] = ()
    sql: tuple[Mapping[str, Any], ...] = ()
    said: tuple[str, ...] = ()


@dataclass
class CaseResult:
    """How a case ran: ``failures`` empty when it passed; ``seconds`` of wall time."""

    case: Case
    failures: list[str]
    seconds: float

    @property
    def passed(self) -> bool:
        return not self.failures

    def line(self) -> str:
        head = f"{'pass' if self.passed else 'FAIL'} {self.case.ruleset} {self.case.id}: {self.case.title}"
        return head if self.passed else head + "".join(f"\n    {f}" for f in self.failures)


def case_key(case_id: str) -> tuple:
    """Sort key of a case number: ``A.2`` before ``A.10``, sections in order."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in case_id.split("."))


def load_case(path: Path) -> Case:
    """The case a TOML file holds; :class:`InputError` naming the file and the fault."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise InputError(f"{path}: not a readable case file: {e}") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise InputError(f"{path}: unknown key {unknown[0]!r} (a case holds {', '.join(sorted(_KEYS))})")
    expect = data.get("expect", {})
    unknown = sorted(set(expect) - _EXPECT_KEYS)
    if unknown:
        raise InputError(f"{path}: unknown key expect.{unknown[0]} ([expect] holds {', '.join(sorted(_EXPECT_KEYS))})")
    for need in ("id", "title", "ruleset", "scenario", "tests", "steps"):
        if need not in data:
            raise InputError(f"{path}: the case needs {need!r} (docs/cases.md)")
    if not (expect or "refused" in data):
        raise InputError(f"{path}: the case expects nothing: give [expect] or refused (docs/cases.md)")
    position = data.get("position", "")
    lines = position.splitlines() if isinstance(position, str) else list(position)
    return Case(
        path=path, id=str(data["id"]), title=str(data["title"]), ruleset=str(data["ruleset"]),
        scenario=str(data["scenario"]), seed=int(data.get("seed", 1)), tests=str(data["tests"]),
        steps=tuple(data["steps"]), position=tuple(l.strip() for l in lines if l.strip() and not l.strip().startswith("#")),
        rules=dict(data.get("rules", {})), refused=data.get("refused"),
        events=tuple(expect.get("events", ())), absent=tuple(expect.get("absent", ())),
        sql=tuple(expect.get("sql", ())), said=tuple(expect.get("said", ())))


def load_catalogue(ruleset: str | None = None, root: Path | None = None) -> list[Case]:
    """Every case of the catalogue (of ``ruleset``), sorted by ruleset and number; two files giving
    one number are refused."""
    root = Path(root) if root else CASES_DIR
    folders = [root / ruleset] if ruleset else sorted(p for p in root.iterdir() if p.is_dir())
    cases: list[Case] = []
    for folder in folders:
        if not folder.is_dir():
            have = ", ".join(sorted(p.name for p in root.iterdir() if p.is_dir()))
            raise InputError(f"no cases for ruleset {folder.name!r}: the catalogue has {have}")
        found = [load_case(p) for p in sorted(folder.glob("*.toml"))]
        ids = [c.id for c in found]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise InputError(f"{folder}: case {twice[0]} is numbered twice")
        wrong = [c for c in found if c.ruleset != folder.name]
        if wrong:
            raise InputError(f"{wrong[0].path}: ruleset {wrong[0].ruleset!r} in the folder of {folder.name}")
        cases += sorted(found, key=lambda c: case_key(c.id))
    return cases


# --- reading what a user types ------------------------------------------------------------------


def parse_step_line(ruleset, line: str, factions: Sequence[str]) -> tuple[Any, str | None, dict[str, Any]]:
    """(action, actor, typed input) of a step line as a user types it after ``bellica GROUP``,
    without the campaign file: ``orders --faction roma --army 9 --moves "3 3"``.  Words are split as
    a shell splits them; flags and positional words are the declared parameters'; the faction
    flag names the actor.  Typed by :func:`~bellica.engine.core.steps.parse_input`, the one
    parser of every front end."""
    from bellica.engine.core.names import one_named
    from bellica.engine.core.steps import parse_input

    words = shlex.split(line)
    if not words:
        raise InputError("an empty step line")
    actions = {a.name: a for a in ruleset.actions()}
    action = actions.get(words[0])
    if action is None:
        raise InputError(f"step {words[0]!r} is not one of {ruleset.name}'s: {', '.join(actions)}")
    by_flag = {f: p for p in action.params if p.flag for f in (p.flag, *p.aliases)}
    positional = [p for p in action.params if p.positional]
    given: dict[str, Any] = {}
    actor_name: str | None = None
    rest = words[1:]
    i = 0
    loose: list[str] = []
    while i < len(rest):
        word = rest[i]
        if word.startswith("--") and word != "--":
            name, eq, value = word.partition("=")
            if name == ruleset.faction_flag:
                actor_name = value if eq else _next_word(rest, i, name)
                i += 1 if eq else 2
                continue
            p = by_flag.get(name)
            if p is None:
                raise InputError(f"step {action.name}: no option {name} (its options: "
                                 f"{', '.join(sorted(by_flag)) or 'none'})")
            if p.kind == "flag":
                given[p.name] = True
                i += 1
                continue
            value = value if eq else _next_word(rest, i, name)
            i += 1 if eq else 2
            if p.repeats:  # a list, or KEY=VALUE items of a keyed parameter
                given.setdefault(p.name, []).append(value)
            else:
                given[p.name] = value
            continue
        loose.append(word)
        i += 1
    for p in positional:
        if not loose:
            break
        if p.repeats:
            given[p.name], loose = loose, []
        else:
            given[p.name] = loose.pop(0)
    if loose:
        raise InputError(f"step {action.name}: unexpected word {loose[0]!r}")
    word = ruleset.faction_flag.lstrip("-")
    actor = one_named(actor_name, list(factions), what=word) if actor_name is not None else None
    return action, actor, parse_input(action, given, factions, word)


def _next_word(words: list[str], i: int, name: str) -> str:
    if i + 1 >= len(words):
        raise InputError(f"option {name} needs a value")
    return words[i + 1]


# --- the position --------------------------------------------------------------------------------


def position_events(campaign, lines: Iterable[str]) -> list[Event]:
    """The ``put_row`` / ``drop_row`` events the position ``lines`` make, read over the campaign's
    current tables: first by the ruleset's own reader (:meth:`Ruleset.case_position`), else as the
    core's ``TABLE column=value ...`` (merged over the stored row of that key) or ``drop TABLE
    key=value ...``."""
    snap = campaign.snapshot()
    schema = campaign.ruleset.schema
    rnd, phase = int(snap.campaign("round") or 0), str(snap.campaign("phase") or "")
    events: list[Event] = []
    for line in lines:
        words = shlex.split(line)
        own = campaign.ruleset.case_position(campaign, words)
        rows = own if own is not None else [_core_line(words, line)]
        for kind, table, values in rows:
            spec = schema.tables.get(table)
            if spec is None:
                raise InputError(f"position {line!r}: no state table {table!r} (tables: {', '.join(sorted(schema.tables))})")
            typed = {k: _typed(v, dict(spec.columns).get(k, "VARCHAR"), line) for k, v in values.items()}
            key = spec.key_from(typed)
            if kind == "drop":
                if key not in snap.tables[table]:
                    raise InputError(f"position {line!r}: {table} has no row {dict(zip(spec.key, key))}")
                events.append(Event(rnd, phase, "drop_row", {"table": table, "key": dict(zip(spec.key, key))},
                                    f"case position: {line}"))
                continue
            stored = snap.tables[table].get(key)
            row = dict(zip(spec.column_names, stored)) if stored is not None else {}
            row.update(typed)
            row = dict(zip(spec.column_names, spec.row_from(row)))
            for k in spec.column_names:
                if spec.columns[spec.column_names.index(k)][1].upper() == "JSON" and isinstance(row[k], str):
                    row[k] = json.loads(row[k])
            events.append(Event(rnd, phase, "put_row", {"table": table, "row": row}, f"case position: {line}"))
    return events


def _core_line(words: list[str], line: str) -> tuple[str, str, dict[str, str]]:
    kind = "put"
    if words and words[0] == "drop":
        kind, words = "drop", words[1:]
    if not words:
        raise InputError(f"position {line!r}: give TABLE column=value ... (docs/cases.md)")
    values = {}
    for w in words[1:]:
        k, eq, v = w.partition("=")
        if not eq:
            raise InputError(f"position {line!r}: {w!r} is not column=value")
        values[k] = v
    return kind, words[0], values


def _typed(value: Any, typ: str, line: str) -> Any:
    """A position word as the column's type: ``null`` is NULL, booleans ``true``/``false``, JSON
    read as JSON, numbers as numbers (the table's own coercion follows)."""
    if not isinstance(value, str):
        return value
    if value == "null":
        return None
    t = typ.upper()
    if t == "BOOLEAN":
        if value.lower() not in ("true", "false"):
            raise InputError(f"position {line!r}: {value!r} is not true or false")
        return value.lower() == "true"
    if t == "JSON":
        try:
            return json.loads(value)
        except ValueError:
            raise InputError(f"position {line!r}: {value!r} is not JSON") from None
    return value


# --- running one case ----------------------------------------------------------------------------


def start_key(case: Case) -> str:
    """What the started campaign of a case depends on (scenario, seed, rules): cases sharing it
    may start from one copy (:func:`prepare`)."""
    return json.dumps([case.scenario, case.seed, case.rules], sort_keys=True)


def prepare(case: Case, campaign_path: Path) -> None:
    """Freeze the case's rules into ``campaign_path`` (its scenario's campaign, not started) and
    start it with the case's seed: the file every case of the same :func:`start_key` begins from."""
    from bellica.engine.core.campaign import Campaign

    if case.rules:
        _set_rules(campaign_path, case.rules, case)
    with Campaign.open(campaign_path) as c:
        if c.ruleset.name != case.ruleset:
            raise InputError(f"{case.path}: scenario {case.scenario} is a {c.ruleset.name} campaign, not {case.ruleset}")
        _start(c, case.seed)


def run_case(case: Case, campaign_path: Path, *, prepared: bool = False) -> CaseResult:
    """Run ``case`` on ``campaign_path``, a fresh copy of its scenario's campaign, not started
    (``prepared``: already through :func:`prepare`); the file is changed.  Returns the result;
    never raises for a case that fails, only for a bad case file."""
    from bellica.engine.core.campaign import Campaign

    t0 = time.perf_counter()
    failures: list[str] = []
    if not prepared:
        prepare(case, campaign_path)
    with Campaign.open(campaign_path) as c:
        if case.position:
            events = position_events(c, case.position)
            with c.transaction():
                snap = c.snapshot()
                c.append(events, before=snap)
        first = len(c.events())
        said: list[str] = []
        refusal: str | None = None
        for k, line in enumerate(case.steps, 1):
            try:
                action, actor, typed = parse_step_line(c.ruleset, line, c.ruleset.factions(c))
                out = action.run(c, actor, **typed)
                said += [x if isinstance(x, str) else getattr(x, "text", str(x)) for x in (out or ())]
            except BellicaError as e:
                if k == len(case.steps) and case.refused is not None:
                    refusal = str(e)
                    break
                failures.append(f"step {k} `{line}` refused: {e}")
                break
        logged = c.events()[first:]
        failures += _check(case, c, logged, said, refusal)
    return CaseResult(case, failures, time.perf_counter() - t0)


def _start(c, seed: int) -> None:
    """Start the campaign: through the ruleset's declared ``start`` step if it declares one (it may
    do more than the core's start), else the core's."""
    from bellica.engine.core.steps import parse_input

    start = next((a for a in c.ruleset.actions() if a.name == "start" and a.opens in ("start", "step")), None)
    if start is None or not any(p.name == "seed" for p in start.params):
        c.start(seed=seed)
        return
    start.run(c, None, **parse_input(start, {"seed": seed}))


def _set_rules(path: Path, rules: Mapping[str, Any], case: Case) -> None:
    """Freeze the case's rules values (dotted keys) into the campaign file's ``rules`` table."""
    import duckdb

    con = duckdb.connect(str(path))
    try:
        have = {k for (k,) in con.execute("SELECT key FROM rules").fetchall()}
        for key, value in _dotted(rules):
            if key not in have:
                near = sorted(k for k in have if k.rsplit(".", 1)[-1] == key.rsplit(".", 1)[-1])
                raise InputError(f"{case.path}: rules key {key!r} is not one of the ruleset's"
                                 + (f" (did you mean {near[0]}?)" if near else ""))
            con.execute("UPDATE rules SET value = ? WHERE key = ?", [json.dumps(value, sort_keys=True), key])
    finally:
        con.close()


def _dotted(node: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for k, v in node.items():
        if isinstance(v, Mapping) and v:
            out += _dotted(v, f"{prefix}{k}.")
        else:
            out.append((f"{prefix}{k}", v))
    return out


# --- the expectations ----------------------------------------------------------------------------


def _matches(pattern: Mapping[str, Any], e) -> bool:
    if "kind" in pattern and e.kind != pattern["kind"]:
        return False
    if "text" in pattern and not re.search(pattern["text"], e.text or "", re.I):
        return False
    if "data" in pattern and not re.search(pattern["data"], json.dumps(e.data, sort_keys=True), re.I):
        return False
    return True


def _describe(pattern: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {v!r}" for k, v in pattern.items())


def _check(case: Case, c, logged, said: list[str], refusal: str | None) -> list[str]:
    failures = []
    if case.refused is not None:
        if refusal is None:
            failures.append(f"the last step was not refused (expected words matching {case.refused!r})")
        elif not re.search(case.refused, refusal, re.I):
            failures.append(f"the last step was refused as {refusal!r}, not matching {case.refused!r}")
    for pattern in case.events:
        n = sum(1 for e in logged if _matches(pattern, e))
        want = pattern.get("count")
        if (want is None and n == 0) or (want is not None and n != int(want)):
            failures.append(f"expected {want if want is not None else 'an'} event{'s' if want != 1 else ''} with "
                            f"{_describe({k: v for k, v in pattern.items() if k != 'count'})}, logged {n}")
    for pattern in case.absent:
        hits = [e for e in logged if _matches(pattern, e)]
        if hits:
            failures.append(f"expected no event with {_describe(pattern)}, logged: {hits[0].text!r}")
    for pattern in case.said:
        if not any(re.search(pattern, s, re.I) for s in said):
            failures.append(f"no line said matches {pattern!r}")
    for q in case.sql:
        try:
            rows = [[_plain(v) for v in r] for r in c.con.execute(q["query"]).fetchall()]
        except Exception as e:  # a query DuckDB refuses is a failing case, said in one line
            failures.append(f"query {q['query']!r} failed: {str(e).splitlines()[0]}")
            continue
        want = [list(r) for r in q.get("rows", [])]
        if rows != want:
            failures.append(f"query {q['query']!r} gave {rows}, expected {want}")
    return failures


def _plain(v: Any) -> Any:
    if isinstance(v, Decimal):
        return float(v)
    if isinstance(v, tuple):
        return list(v)
    return v
