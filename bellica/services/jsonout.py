"""The ``--json`` output of the commands that print state: one JSON document on stdout, nothing else.

What a script can rely on (README.md, "Scripting the CLI", says the same):

* A command run with ``--json`` prints exactly one JSON document, on one line, on stdout; errors
  and warnings stay on stderr as ``error: ...``/``warning: ...`` lines, so ``stdout`` parses or is
  empty.  The one exception is ``bellica sql`` given several statements that return rows: one
  array per such statement, one per line (JSON Lines), so a single query stays one document.
  (``bellica log --json`` predates this and prints one object per event, one per line.)
* Keys keep the order the command reports (SQL: the query's column order), not sorted.
* Values the JSON grammar lacks are converted, never dropped: DECIMAL as a number (a float:
  16 significant digits), DATE/TIME/TIMESTAMP as ISO 8601 text, UUID as text, BLOB and GEOMETRY
  (WKB) as the hex of their bytes (ask for ``ST_AsGeoJSON(geom)`` or ``ST_AsText(geom)``
  instead), a non-finite float (NaN, inf) as ``null`` (as JavaScript's ``JSON.stringify``
  does), LIST as an array, STRUCT and MAP as an object with text keys, anything else as its
  text.  Text is written as UTF-8, not ``\\u`` escapes.
* SQL rows become objects keyed by column name; a name the result repeats (``SELECT 1 AS a,
  2 AS a``) gets ``_1``, ``_2``... appended, as DuckDB names them in a subquery, so no value
  is lost to a key collision.
* ``map info``: ``map_meta`` values written as JSON by the build (numbers, lists, ``null``)
  are decoded; a value that is not JSON (a path, a region name) stays text.

This module only shapes data: the commands and the web app open the databases and call these
functions (it is a service: bellica/app reads it, never bellica/commands).
The shape of ``bellica round status --json`` is the Vae Victis ruleset's own
(``engine/vae_victis/steps.py``, ``status_data``), as every ruleset's status is its player view's.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import math
import uuid
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import click

__all__ = ["dumps", "echo_json", "json_value", "map_info_json", "rows_json", "structures_json"]


def json_value(value: Any) -> Any:
    """``value`` (as DuckDB or the engine hands it to Python) as something :func:`json.dumps` writes
    as valid JSON; the conversions are listed in the module doc."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)  # an IntEnum or numpy-like int subclass written as a plain number
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return None
        return int(value) if value == value.to_integral_value() and value.as_tuple().exponent >= 0 else float(value)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return [json_value(v) for v in items]
    return str(value)


def dumps(data: Any) -> str:
    """One JSON document on one line (UTF-8 text kept as is; ``NaN`` never written)."""
    return json.dumps(json_value(data), ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def echo_json(data: Any) -> None:
    """Print ``data`` as one JSON document on stdout."""
    click.echo(dumps(data))


def _unique_names(columns: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for name in columns:
        key, n = name, 0
        while key in seen:
            n += 1
            key = f"{name}_{n}"
        seen.add(key)
        out.append(key)
    return out


def rows_json(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Rows as objects keyed by column name, in column order (repeated names made unique)."""
    names = _unique_names(columns)
    return [{k: json_value(v) for k, v in zip(names, row)} for row in rows]


def _meta_value(text: Any) -> Any:
    if not isinstance(text, str):
        return json_value(text)
    try:
        return json.loads(text)
    except ValueError:
        return text


def map_info_json(map_db: str | Path) -> dict[str, Any]:
    """What ``bellica map info`` prints, as data: ``{"path", "meta": {key: value}, "kind": {kind: hexes},
    "terrain": {terrain: hexes}}`` (counts largest first, as in the text)."""
    from bellica.etl.export import map_info

    meta, counts = map_info(map_db)
    out: dict[str, Any] = {"path": str(map_db), "meta": {k: _meta_value(v) for k, v in meta}}
    out.update({column: {k: int(n) for k, n in rows} for column, rows in counts.items()})
    return out


def structures_json(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """``structure_summary`` rows (structure, kind, controller, terrain, coast, resilience) as objects;
    an uncontrolled structure has ``"controller": null`` (the text shows ``-``)."""
    out = []
    for name, kind, controller, terrain, coast, resilience in rows:
        out.append({
            "structure": name,
            "kind": kind,
            "controller": None if controller in (None, "-") else controller,
            "terrain": terrain,
            "coast": bool(coast),
            "resilience": json_value(resilience),
        })
    return out
