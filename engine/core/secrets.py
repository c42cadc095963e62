"""What a viewer may not read of a campaign's tables: a ruleset's declared secrets.

A ruleset says, table by table, what is secret now (:meth:`Ruleset.secrets`): which rows a viewer
may read (its own, by a SQL condition on the viewer), and whether another's rows are left out
whole or only some of their columns are (an army's position is on the board, its strength is
not).  The SQL console copies for each viewer only what these declarations let it read
(:mod:`bellica.engine.core.console`), so a sealed value is not in that viewer's database at all,
whatever SQL is typed; the event log is copied as :func:`bellica.engine.core.sealed.log_view`
gives it to that viewer.  The ruleset's player view (its ``player_view``) is the same decision
for the other interfaces, and the conformance test checks that they agree.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Secret"]


@dataclass(frozen=True)
class Secret:
    """A table holding something some viewers may not read now.

    Rows: ``public`` is a SQL condition selecting the rows every viewer reads (empty: none), and
    ``mine`` those a faction viewer also reads, with ``$viewer`` standing for its name
    (``faction = $viewer``).  The umpire reads the whole table when ``umpire`` is true, else only
    the ``public`` rows.  ``columns``: only these columns of the other rows are secret (they read as
    NULL), the rows themselves stay; empty: the other rows are left out whole.  ``hidden_rows``:
    other rows left out whole all the same (a command aboard an enemy fleet).  A viewer who may read
    no row at all (no ``public``, no ``mine``) finds the table refused in one line, made of ``what``
    it holds and when it ``opens``."""

    table: str
    what: str
    opens: str
    mine: str = ""
    public: str = ""
    columns: tuple[str, ...] = ()
    hidden_rows: str = ""
    umpire: bool = True

    def refusal(self) -> str:
        return f"it holds {self.what}, which this viewer may not read: it opens {self.opens}"
