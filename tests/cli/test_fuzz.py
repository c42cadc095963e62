"""Property-based fuzzing of every CLI command that reads a user's file or string (issue #8).

Hypothesis throws generated bad inputs at the commands, run in-process through
``bellica.cli.main`` (a subprocess per example would cost a second each), and every
example must end the way the issue asks:

* exit code non-zero, unless the input was valid (then the step is fully applied);
* on refusal, exactly one ``error: ...`` line naming the input (or click's usage error,
  ``Error: Invalid value ...``, for a bad option), and no traceback anywhere;
* the campaign file byte-identical after a refused step (and after any ``bellica sql``);
* no stray file left in the working folder (a ``.wal``, a half-written output, a temp folder).

Each example gets a fresh folder with a copy of a campaign built once per module.  The
settings are derandomized (the same examples on every run, so CI is reproducible) and
the example counts are sized for about two minutes on two cores.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import traceback
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bellica.cli import main
from tests.bounds import examples
from tests.engine.boards import sketch
from tests.engine.test_rounds import STRUCTURES, WATER
from tests.engine.test_state import make_campaign
from tests.etl.test_campaign import build_synthetic_map, write_synthetic_scenario


def fuzz_settings(n: int):
    return settings(
        max_examples=examples(n),  # bounded in make test, more in make long (tests/bounds.py)
        deadline=None,
        derandomize=True,  # the same examples every run: a CI failure reproduces locally
        database=None,  # no .hypothesis/ folder left in the repository
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large, HealthCheck.filter_too_much],
        print_blob=True,
    )


# --- running the CLI and judging its output -------------------------------------------------

def bellica(capsys, *args) -> tuple[int, str, str]:
    """The CLI in-process, as the `bellica` script runs it: (exit code, stdout, stderr).  An
    exception escaping ``main`` is what the script would print as a traceback, so it is
    turned into one here, for the checks to find."""
    code = 0
    tb = ""
    try:
        main([str(a) for a in args])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - the fuzz target: anything escaping main is a traceback
        code, tb = 1, traceback.format_exc()
    out, err = capsys.readouterr()
    return code, out, err + tb


def sha(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def listing(folder: Path) -> set[str]:
    """Every file and folder under ``folder``, hidden ones included, as relative paths."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def the_error_line(code: int, err: str) -> str:
    """The one line that says what was wrong, ``error: ...`` (with its indented list of problems,
    if any), or click's ``Error: ...`` of a usage error."""
    lines = [line for line in err.splitlines() if line.strip()]
    if code == 2 and any(line.startswith("Error: ") for line in lines):
        errors = [line for line in lines if line.startswith("Error: ")]
        assert len(errors) == 1, err
        assert all(line.startswith(("Usage: ", "Try ", "Error: ")) for line in lines), err
        return errors[0]
    # One `error:` line; a list of problems (every bad order at once) may follow it, indented.
    assert lines and lines[0].startswith("error: "), f"not one `error:` line:\n{err}"
    assert all(line.startswith((" ", "\t")) for line in lines[1:]), f"not one `error:` line:\n{err}"
    return "\n".join(lines)


def judge(result, *, work: Path, before: set[str], names, protected: Path | None = None, protected_sha=None,
          may_succeed: bool = True, outputs=(), always_protected: bool = False) -> None:
    """The issue's checks on one run (see the module doc).  ``names``: strings of which the error
    line must hold one (the input's name); ``protected``: the campaign file whose bytes a refusal
    must leave alone (``always_protected``: whatever the exit code, e.g. for `bellica sql`)."""
    code, out, err = result
    assert "Traceback" not in out + err, f"traceback:\n{out}{err}"
    if code == 0:
        assert may_succeed, f"bad input accepted (exit 0):\n{out}{err}"
        allowed = before | set(outputs)
    else:
        line = the_error_line(code, err)
        # An argument starting with "-" is taken for an option: click names it (`No such option '-9'`).
        named = line.startswith(("Error: No such option", "Error: No such command")) or any(n in line for n in names)
        assert named, f"the error does not name the input ({names}):\n{line}"
        allowed = before
    if protected is not None and (code != 0 or always_protected):
        assert sha(protected) == protected_sha, f"{protected.name} changed by a refused command:\n{err}"
    left = listing(work) - allowed
    assert not left, f"stray files left: {sorted(left)}\n{out}{err}"


@contextmanager
def workspace(root: Path, *files: tuple[str, Path]):
    """A fresh folder holding copies of ``files`` ((name, source) pairs), removed afterwards."""
    work = Path(tempfile.mkdtemp(dir=root))
    try:
        for name, src in files:
            if src.is_dir():
                shutil.copytree(src, work / name)
            else:
                shutil.copyfile(src, work / name)
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- what is fuzzed: files built once per module ---------------------------------------------

@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module")
def started(root) -> Path:
    """A started Vae Victis II campaign (round 1, orders phase): Roma's armies 9 and 10, Carthago's 1."""
    path = root / "started.duckdb"
    c, _ = make_campaign(path, placements=((1, "carthago", "Capua"), (9, "roma", "Roma"), (10, "roma", "Ostia")),
                         m=sketch(radius=4, structures=STRUCTURES, water=WATER))
    c.start(seed=1)
    c.close()
    return path


@pytest.fixture(scope="module")
def synthetic(root) -> dict[str, Path]:
    """The etl tests' synthetic scenario and map, and the campaign made of them (not started)."""
    from bellica.etl.campaign import create_campaign

    scen = write_synthetic_scenario(root / "scen")
    m = build_synthetic_map(root / "map.duckdb")
    c = root / "synthetic.duckdb"
    create_campaign(scen, c, map_path=m)
    return {"scenario": scen, "map": m, "campaign": c}


# --- generated inputs ------------------------------------------------------------------------

#: Text a user could type or paste: any printable character of any script, controls, no NUL
#: (argv cannot carry one).
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
#: Numbers as people mistype them: other scripts' digits, full-width, signs, exponents, huge.
NUMBERISH = st.sampled_from(["9", "10", "1", "0", "٩", "２０", "๑", "9 ", " 9", "-9", "+9", "9.0", "1e3", "", "x",
                             "99999999999999999999", "0x9", "½", "9\u200b"])


def mutated(valid: str):
    """A valid file's text, damaged: cut short, a character inserted or replaced, a line
    dropped, or encoded in something other than UTF-8; or raw bytes, or deep nesting."""
    data = valid.encode()

    def cut(n):
        return data[: n % (len(data) + 1)]

    def insert(pair):
        n, ch = pair
        n %= len(valid) + 1
        return (valid[:n] + ch + valid[n:]).encode("utf-8", "surrogatepass")

    def drop_line(n):
        lines = valid.splitlines(keepends=True)
        del lines[n % len(lines)]
        return "".join(lines).encode()

    return st.one_of(
        st.integers(0, 10_000).map(cut),
        st.tuples(st.integers(0, 10_000), TEXT.filter(bool)).map(insert),
        st.integers(0, 100).map(drop_line),
        st.sampled_from(["latin-1", "utf-16", "utf-8-sig", "cp1252"]).map(
            lambda enc: (valid.replace("Roma", "Romà").replace("roma", "romà")).encode(enc)),
        st.binary(max_size=300),
        st.sampled_from([b"\xff\xfe\x00\x00garbage", b"\x89PNG\r\n\x1a\n", b"PK\x03\x04", b"\x00" * 64]),
        st.sampled_from([10, 2_000, 200_000]).map(lambda n: (valid + "\nx = " + "[" * n + "]" * n + "\n").encode()),
    )


# --- orders ----------------------------------------------------------------------------------

ITEM = st.one_of(
    st.tuples(NUMBERISH, st.sampled_from(["=", "", "==", ":"]),
              st.one_of(TEXT, st.lists(st.integers(-3, 20), max_size=8).map(lambda xs: " ".join(map(str, xs))),
                        st.sampled_from(["3 3", "٣ ٣", "３", "13", "3,3", "3\t3", " ".join(["3"] * 60_000)]))).map("".join),
    TEXT,
)


@fuzz_settings(40)
@given(items=st.lists(ITEM, min_size=1, max_size=3))
def test_orders_items(items, started, root, capsys):
    with workspace(root, ("c.duckdb", started)) as work:
        c = work / "c.duckdb"
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "round", "orders", c, "--faction", "roma", *items)
        names = ["ARMY=MOVES", "army ", "ITEMS", "the command line", "moves"]
        judge(result, work=work, before=before, names=names, protected=c, protected_sha=digest)


ORDERS = 'faction = "roma"\nround = 1\n\n[armies.9]\nmoves = "3 3"\n\n[armies.10]\nmoves = ""\n'


@fuzz_settings(40)
@given(data=mutated(ORDERS))
def test_orders_file(data, started, root, capsys):
    with workspace(root, ("c.duckdb", started)) as work:
        c, f = work / "c.duckdb", work / "roma.toml"
        f.write_bytes(data)
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "round", "orders", c, "--file", f)
        judge(result, work=work, before=before, names=["roma.toml"], protected=c, protected_sha=digest)


# --- administration choices ------------------------------------------------------------------

CHOICES = '[advance]\n9 = "3"\n\n[siege]\n10 = "Capua"\n\ntake_over = ["Capua"]\nsurrender = []\n'


@fuzz_settings(30)
@given(data=mutated(CHOICES))
def test_choices_file(data, started, root, capsys):
    # The campaign is in the orders phase: a choices file that reads well is refused for the
    # phase (a line naming the step), one that does not is refused naming the file.
    with workspace(root, ("c.duckdb", started)) as work:
        c, f = work / "c.duckdb", work / "choices.toml"
        f.write_bytes(data)
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "round", "administer", c, "--choices", f)
        judge(result, work=work, before=before, names=["choices.toml", "administ"], protected=c, protected_sha=digest,
              may_succeed=False)


@fuzz_settings(25)
@given(option=st.sampled_from(["--advance", "--siege", "--take-over", "--surrender"]), value=st.one_of(TEXT, ITEM))
def test_choices_options(option, value, started, root, capsys):
    with workspace(root, ("c.duckdb", started)) as work:
        c = work / "c.duckdb"
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "round", "administer", c, option, value)
        judge(result, work=work, before=before, names=[option, "administ", "structure", "army "], protected=c,
              protected_sha=digest, may_succeed=False)


@fuzz_settings(25)
@given(command=st.sampled_from(["initiative", "result", "retreat"]), value=st.one_of(ITEM, TEXT))
def test_other_step_strings(command, value, started, root, capsys):
    args = {"initiative": ["--faction", "roma", value], "result": ["1", "--winner", "9", "--casualties", value],
            "retreat": [value]}[command]
    with workspace(root, ("c.duckdb", started)) as work:
        c = work / "c.duckdb"
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "round", command, c, *args)
        judge(result, work=work, before=before, protected=c, protected_sha=digest,
              names=["USES", "--casualties", "ARMY", "army", "initiative", "engagement", "battle", "phase"])


# --- placements and scenario folders --------------------------------------------------------

PLACEMENTS = "army,faction,structure\n1,Alpha,Acapitol\n2,Alpha,Atown\n3,Beta,Bcapitol\n4,Beta,Btown\n"


@fuzz_settings(30)
@given(data=mutated(PLACEMENTS))
def test_placements_csv(data, synthetic, root, capsys):
    with workspace(root, ("c.duckdb", synthetic["campaign"])) as work:
        c, f = work / "c.duckdb", work / "p.csv"
        f.write_bytes(data)
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "campaign", "place", c, f)
        judge(result, work=work, before=before, names=["p.csv"], protected=c, protected_sha=digest)
        result = bellica(capsys, "campaign", "check", "--scenario", synthetic["scenario"], "--placements", f)
        judge(result, work=work, before=before, names=["p.csv"])


SCENARIO_FILES = ["scenario.toml", "factions.toml", "structures.csv", "roads.toml", "rivers.toml", "overrides.toml",
                  "placements.csv", "sea_zones.geojson"]


@fuzz_settings(40)
@given(name=st.sampled_from(SCENARIO_FILES), data=st.one_of(st.none(), st.binary(max_size=0), st.data()))
def test_scenario_folder(name, data, synthetic, root, capsys):
    """A copy of the synthetic scenario with one file mangled (None: the file deleted)."""
    with workspace(root, ("scen", synthetic["scenario"])) as work:
        f = work / "scen" / name
        if data is None:
            f.unlink()
        elif isinstance(data, bytes):
            f.write_bytes(data)
        else:
            f.write_bytes(data.draw(mutated(f.read_text()), label=f"{name} bytes"))
        before = listing(work)
        result = bellica(capsys, "campaign", "check", "--scenario", work / "scen")
        judge(result, work=work, before=before, names=[name, "scen"])


@fuzz_settings(8)
@given(name=st.sampled_from(["structures.csv", "factions.toml", "scenario.toml", "sea_zones.geojson"]),
       data=st.data())
def test_campaign_new_from_a_mangled_scenario(name, data, synthetic, root, capsys):
    # The whole path (`campaign new`, on the synthetic map): nothing is left of a refused campaign.
    with workspace(root, ("scen", synthetic["scenario"])) as work:
        f = work / "scen" / name
        f.write_bytes(data.draw(mutated(f.read_text()), label=f"{name} bytes"))
        before = listing(work)
        result = bellica(capsys, "campaign", "new", "--scenario", work / "scen", "--map", synthetic["map"],
                        "--out", work / "new.duckdb", "-q")
        judge(result, work=work, before=before, names=[name, "scen"], outputs=["new.duckdb"])


# --- SQL --------------------------------------------------------------------------------------

HOSTILE_SQL = st.sampled_from([
    "COPY (SELECT 'x') TO '{c}'", "COPY armies TO '{w}/out.csv'", "EXPORT DATABASE '{w}/exp'",
    "SET profiling_output = '{w}/p.json'", "SET extension_directory = '{w}/ext'", "INSTALL httpfs",
    "SELECT * FROM read_text('/etc/passwd')", "SELECT * FROM read_csv('{w}/../x.csv')", "SELECT * FROM glob('/*')",
    "ATTACH '{w}/other.duckdb' AS o", "CREATE TABLE t AS SELECT 1", "UPDATE armies SET strength = 9999",
    "DELETE FROM events", "DROP TABLE armies", "CHECKPOINT", "PRAGMA enable_profiling", "SELECT 1; COPY armies TO '{w}/a.csv'",
    "SELECT 1", "SELECT id FROM armies", "SELECT * FROM events LIMIT 1",
])


@fuzz_settings(40)
@given(query=st.one_of(HOSTILE_SQL, TEXT, st.tuples(HOSTILE_SQL, TEXT).map(lambda p: p[0] + p[1])))
def test_sql_query(query, started, root, capsys):
    with workspace(root, ("c.duckdb", started)) as work:
        c = work / "c.duckdb"
        query = query.replace("{c}", str(c)).replace("{w}", str(work))
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "sql", c, query)
        # Whatever the query, `bellica sql` leaves the campaign as it was and writes no file.
        judge(result, work=work, before=before, names=["QUERY", "statement", "bellica sql"], protected=c,
              protected_sha=digest, always_protected=True)


@fuzz_settings(20)
@given(data=mutated("SELECT id, strength\nFROM armies;\nSELECT count(*) FROM events;\n"))
def test_sql_file(data, started, root, capsys):
    with workspace(root, ("c.duckdb", started)) as work:
        c, f = work / "c.duckdb", work / "q.sql"
        f.write_bytes(data)
        before, digest = listing(work), sha(c)
        result = bellica(capsys, "sql", c, "--file", f)
        judge(result, work=work, before=before, names=["q.sql"], protected=c, protected_sha=digest,
              always_protected=True)


# --- campaign paths ---------------------------------------------------------------------------

CAMPAIGN_COMMANDS = [
    ["round", "status", "{c}"], ["round", "start", "{c}"], ["round", "move", "{c}"], ["round", "show", "{c}"],
    ["round", "orders", "{c}", "--faction", "roma", "9=3"], ["round", "verify", "{c}"], ["round", "victory", "{c}"],
    ["log", "{c}"], ["sql", "{c}", "SELECT 1"], ["campaign", "structures", "{c}"], ["campaign", "place", "{c}", "{p}"],
    ["map", "info", "{c}"], ["map", "export", "{c}", "--out", "{w}/x.gpkg"], ["render", "map", "{c}", "--out", "{w}/x.html"],
    ["campaign", "new", "--scenario", "{s}", "--map", "{c}", "--out", "{w}/new.duckdb"],
]
BAD_CAMPAIGN = st.one_of(
    st.tuples(st.just("text"), TEXT.map(lambda t: t.encode())),
    st.tuples(st.just("bytes"), st.binary(max_size=5000)),
    st.tuples(st.just("truncated"), st.floats(0.0, 0.95)),
    st.tuples(st.just("directory"), st.none()),
    st.tuples(st.just("table"), st.none()),
)


def _write_bad_campaign(path: Path, kind: str, value, started: Path) -> None:
    import duckdb

    if kind in ("text", "bytes"):
        path.write_bytes(value)
    elif kind == "truncated":
        data = started.read_bytes()
        path.write_bytes(data[: int(len(data) * value)])
    elif kind == "directory":
        path.mkdir()
    else:
        con = duckdb.connect(str(path))
        con.execute("CREATE TABLE sales (x INTEGER)")
        con.close()


@fuzz_settings(45)
@given(command=st.sampled_from(CAMPAIGN_COMMANDS), bad=BAD_CAMPAIGN)
def test_campaign_path(command, bad, started, synthetic, root, capsys):
    with workspace(root) as work:
        c, p = work / "bad.duckdb", work / "p.csv"
        _write_bad_campaign(c, *bad, started)
        p.write_text(PLACEMENTS)
        args = [a.replace("{c}", str(c)).replace("{p}", str(p)).replace("{w}", str(work))
                .replace("{s}", str(synthetic["scenario"])) for a in command]
        before, digest = listing(work), sha(c)
        result = bellica(capsys, *args)
        # `bellica sql` may read any DuckDB file (a map, another database), read-only; every other
        # command needs a campaign.
        queryable = command[0] == "sql" and bad[0] == "table"
        judge(result, work=work, before=before, names=[str(c), c.name], protected=c, protected_sha=digest,
              may_succeed=queryable, always_protected=True)


def test_a_map_given_as_a_campaign(synthetic, root, capsys):
    # A map file where a campaign is expected (`campaign structures map.duckdb` was a traceback).
    for command in (["round", "status"], ["round", "start"], ["log"], ["campaign", "structures"]):
        with workspace(root, ("map.duckdb", synthetic["map"])) as work:
            m = work / "map.duckdb"
            before, digest = listing(work), sha(m)
            result = bellica(capsys, *command, m)
            judge(result, work=work, before=before, names=[str(m)], protected=m, protected_sha=digest,
                  may_succeed=False)


# --- DEMs -------------------------------------------------------------------------------------

BBOX = "12.2,40.8,13.8,42.3"


def _write_tif(path: Path, data: np.ndarray, *, nodata=None, crs="EPSG:4326") -> None:
    import rasterio
    from rasterio.transform import Affine

    profile = dict(driver="GTiff", width=data.shape[1], height=data.shape[0], count=1, dtype=data.dtype.name,
                   transform=Affine(2 / data.shape[1], 0.0, 12.0, 0.0, -2 / data.shape[0], 42.5))
    if crs:
        profile["crs"] = crs
    if nodata is not None:
        profile["nodata"] = nodata
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(data, 1)


DEMS = st.one_of(
    st.tuples(st.just("garbage"), st.binary(max_size=2000)),
    st.tuples(st.just("tiff-garbage"), st.binary(max_size=2000).map(lambda b: b"II*\x00" + b)),
    st.tuples(st.just("all-nodata"), st.sampled_from([-9999.0, 0.0])),
    st.tuples(st.just("all-nan"), st.none()),
    st.tuples(st.just("dtype"), st.sampled_from(["complex64", "uint8", "int8", "float64", "uint32"])),
    st.tuples(st.just("truncated"), st.floats(0.05, 0.9)),
)


@fuzz_settings(12)
@given(dem=DEMS)
def test_dem_file(dem, root, capsys):
    kind, value = dem
    with workspace(root) as work:
        f = work / "dem.tif"
        size = 48
        ramp = np.tile(np.linspace(0, 1200, size), (size, 1))
        if kind in ("garbage", "tiff-garbage"):
            f.write_bytes(value)
        elif kind == "all-nodata":
            _write_tif(f, np.full((size, size), value, np.float32), nodata=value)
        elif kind == "all-nan":
            _write_tif(f, np.full((size, size), np.nan, np.float32), nodata=float("nan"))
        elif kind == "dtype":
            data = ramp * (1 + 1j) if value == "complex64" else ramp
            _write_tif(f, data.astype(value))
        else:
            _write_tif(f, ramp.astype(np.float32), nodata=-9999)
            raw = f.read_bytes()
            f.write_bytes(raw[: int(len(raw) * value)])
        before = listing(work)
        result = bellica(capsys, "map", "build", "--bbox", BBOX, "--res", "4", "--dem", f, "--out", work / "m.duckdb",
                        "--quiet")
        # A DEM with no elevation in it must be refused; a ramp in another integer or float type is a DEM.
        valid = kind == "dtype" and value != "complex64"
        judge(result, work=work, before=before, names=["dem.tif"], may_succeed=valid, outputs=["m.duckdb"])


# --- the suite catches what it is for ---------------------------------------------------------

def test_the_suite_catches_a_reintroduced_traceback(started, root, capsys, monkeypatch):
    """A parser raising an uncaught KeyError on some input (a bug as tracebacks used to ship) makes
    the orders property fail: the suite is shown to find tracebacks, not only to pass."""
    from hypothesis import Phase

    from bellica.engine.core import steps as steps_mod

    # The bug goes where the command line's KEY=VALUE items are split (every `round orders` item
    # passes there, whichever army it names), as a parser's uncaught KeyError would ship.
    real = steps_mod._items

    def buggy(given, *, many):
        items = real(given, many=many)
        if any("3" in str(item) for item in items):
            return {}["army"]  # the re-introduced bug: a KeyError no one catches
        return items

    monkeypatch.setattr(steps_mod, "_items", buggy)
    prop = settings(fuzz_settings(40), phases=[Phase.explicit, Phase.generate])(  # no shrinking: speed
        given(items=st.lists(ITEM, min_size=1, max_size=3))(test_orders_items.hypothesis.inner_test))
    with pytest.raises(AssertionError, match="traceback:"):
        prop(started=started, root=root, capsys=capsys)
    # Without the bug the same property passes on the same examples.
    monkeypatch.setattr(steps_mod, "_items", real)
    prop(started=started, root=root, capsys=capsys)
