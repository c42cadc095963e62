"""A ruleset's steps declared as data: who takes each, its typed parameters, its help and example.

Every front end follows from these declarations.  ``bellica <group> <step>`` on the command
line is built from them (bellica/commands/play.py), the web app draws one form per step a viewer
may take now (bellica/app/step_forms.py), and both hand the typed text to :meth:`Param.parse`
here, so the command line and the page accept and refuse the same input in the same words.

A ruleset lists its :class:`Action` declarations in its package's ``steps`` module as
``ACTIONS`` (:class:`~bellica.engine.core.stepped.SteppedRuleset` reads it); each names the
function that plays it, ``run(campaign, actor, **input)``, which returns the step's events
(the ruleset's own transaction, step check, dice and state diff).  ``actor`` is the faction
taking a :data:`SIDE` step, ``None`` for the umpire's.  An action that declares ``signed`` is
also given ``signer=``, a :class:`Signer`: who signed the step (the role, the faction, the armies
a token commands, the words recorded as "given by"), so the step itself refuses an army the signer
does not command, on the command line and on a page alike.

A parameter may be *keyed* (``Param.keyed``, e.g. ``"army"``): its value is one entry per key,
``{9: "strength", 10: "Mare Tyrrhenum"}``.  The command line types it as ``KEY=VALUE`` items; a
page draws one field per key the ruleset offers the signer (:class:`FieldOffer`,
``Ruleset.field_offers``), named ``NAME-KEY``; both are read by :meth:`Param.parse`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from bellica.geo.errors import InputError

__all__ = ["Action", "FieldOffer", "ItemError", "NotYours", "PageSection", "Param", "ParamError", "SIDE", "Signer", "UMPIRE", "KINDS", "OPENS",
           "check_action", "keyed_fields", "parse_input", "run_action"]

#: Who takes a step: the umpire, or a side (one faction, named on the command line with the
#: ruleset's :attr:`~bellica.engine.core.ruleset.Ruleset.faction_flag`, on a page by the signed-in player).
UMPIRE, SIDE = "umpire", "side"

#: The kinds of parameter: free ``text``; a ``whole`` number (ASCII digits); one of ``choices``;
#: a ``flag`` (present or not); a ``faction`` of the campaign (any case, a unique beginning); a
#: ``time``: a moment as ISO-8601 text in UTC, checked by the step itself (a page offers a date-time
#: picker and a time zone, and gives the step the UTC text).
KINDS = ("text", "whole", "choice", "flag", "faction", "time")

#: How a step opens its campaign: ``step`` a started campaign, to change it; ``view`` a started
#: campaign, read only (the step tells what is, its ``run`` changes nothing); ``start`` a campaign
#: not yet started (a ruleset's own ``start``); ``offline`` none (no campaign argument; ``run``
#: is given None).
OPENS = ("step", "view", "start", "offline")


class ParamError(InputError):
    """A parameter's text the declaration refuses; ``param`` is the declaration."""

    def __init__(self, param: "Param", message: str):
        super().__init__(f"{param.label}: {message}")
        self.param = param
        self.reason = message


class ItemError(InputError):
    """What is wrong inside one item of a keyed parameter (``9=`` with no army, an army twice): bad
    input (exit 1), as inside an order, not a usage error; ``param`` names the field for a page."""

    def __init__(self, param: "Param", message: str):
        super().__init__(f"{param.label}{message}")
        self.param = param


class NotYours(InputError):
    """A key the signer may not act for (another's army): refused in one line; a page answers it
    as a step of another role's (403), not as a typing slip."""


@dataclass(frozen=True)
class Signer:
    """Who signed a step: ``role`` ``"umpire"`` or ``"player"``, the player's ``faction``, the
    ``armies`` its token commands (None: every army of the faction), and ``by``, the words the
    log records as who gave it (a faction's name on the command line, ``token:NAME`` on a page)."""

    role: str
    faction: str | None = None
    armies: tuple[int, ...] | None = None
    by: str = ""

    def commands(self, faction: str | None, army: int) -> bool:
        """Whether the signer gives ``army`` (of ``faction``) its orders: the umpire any army, a
        player its faction's, an army player's token only the armies it names."""
        if self.role == "umpire":
            return True
        return faction == self.faction and (self.armies is None or int(army) in self.armies)


@dataclass(frozen=True)
class FieldOffer:
    """One field a page draws for a keyed parameter (``key``: an army's number; ``label`` its words;
    ``options``: (value, words) offered, None for any text; ``value`` the one given now; ``none``:
    the words of giving nothing, a blank first option), or one box to tick of a list parameter
    (``key``: the item)."""

    key: str
    label: str
    options: tuple[tuple[str, str], ...] | None = None
    value: str = ""
    none: str = ""
    #: Values suggested for a free-text field (``options`` None): any text may still be typed.
    suggested: tuple[str, ...] = ()


@dataclass(frozen=True)
class PageSection:
    """A block of a viewer's page a ruleset adds (:meth:`Ruleset.page_sections`): ``title``; ``lines``,
    each (id, text), a paragraph a test or a reader may find by its id; a table (``headers``, ``rows``
    of text); all text, escaped by the page.  ``id`` names the block."""

    id: str
    title: str
    lines: tuple[tuple[str, str], ...] = ()
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    #: A moment (ISO-8601 UTC, a deadline) the page shows in UTC and in the browser's own zone.
    when: str = ""


@dataclass(frozen=True)
class Param:
    """One typed parameter of a step.

    ``name`` is its key in the step's input; ``flag`` its option on the command line (``--army``;
    empty: a positional argument, named ``metavar`` or the name in capitals); ``many``: it repeats
    (an option given again, or the rest of the positional words), its value a list; ``default``:
    its value when not given (a list parameter's is ``[]``).  ``example`` is typed text, shown as
    a form's placeholder; ``aliases``: other spellings of its flag the command line also takes
    (``--defense`` for ``--defence``); ``keeps_blank``: a ``text`` given blank is a value (``""``:
    an army's moves standing still), not a parameter left out; ``server_file``: it names a file on
    the machine that runs the step, so only the command line takes it (a web page neither shows nor
    accepts it: the server's files are not a viewer's to name)."""

    name: str
    help: str
    kind: str = "text"
    flag: str = ""
    required: bool = False
    many: bool = False
    choices: tuple[str, ...] = ()
    default: Any = None
    metavar: str = ""
    example: str = ""
    aliases: tuple[str, ...] = ()
    keeps_blank: bool = False
    server_file: bool = False
    #: What the keys of a keyed parameter are (``"army"``): its value is {key: value}, keys ASCII
    #: whole numbers; the command line repeats ``KEY=VALUE`` (empty: not keyed).
    keyed: str = ""
    #: False: a page draws no field for it, because another parameter is the page's way of giving
    #: the same thing (an army's ``--moves`` with ``--army`` on the command line, its ``moves-ARMY``
    #: field on a page); a page posting it anyway is still read by :meth:`parse`.
    on_page: bool = True
    #: A page draws it but never posts it: its value stays in the browser, for the page's own script
    #: (a commitment's moves and secret, from which the browser makes the digest: the server must
    #: not hold them before the reveal).  A page's step never reads it, even if posted.
    local: bool = False
    #: A ``text`` of several lines (a file's text): a page draws a text area, the value kept whole.
    multiline: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"parameter {self.name}: a choice needs its choices")
        if self.flag and not self.flag.startswith("--"):
            raise ValueError(f"parameter {self.name}: its flag {self.flag!r} must begin with --")
        if any(not a.startswith("--") for a in self.aliases) or (self.aliases and not self.flag):
            raise ValueError(f"parameter {self.name}: aliases are other flags, each beginning with --")
        if self.keyed and (self.many or self.kind == "flag"):
            raise ValueError(f"parameter {self.name}: a keyed parameter has one value per key, not a list nor a flag")

    @property
    def repeats(self) -> bool:
        """Whether the command line takes it more than once (a list, or KEY=VALUE items)."""
        return self.many or bool(self.keyed)

    @property
    def positional(self) -> bool:
        return not self.flag

    @property
    def label(self) -> str:
        """How a message names it: its flag, or its positional name in capitals."""
        return self.flag or (self.metavar or self.name.upper())

    def empty(self) -> Any:
        """Its value when not given."""
        if self.kind == "flag":
            return bool(self.default)
        if self.keyed:
            return dict(self.default or {})
        return list(self.default or ()) if self.many else self.default

    def parse(self, given: Any, factions: Sequence[str] = (), word: str = "faction") -> Any:
        """The typed value of ``given`` (text from a form, a list of texts for a ``many``, or
        a value the command line has already typed); ``factions`` are the campaign's, for a
        ``faction`` (``word``: what the ruleset calls one).  Raises :class:`ParamError` naming the parameter and the fix."""
        if self.kind == "flag":
            return given if isinstance(given, bool) else str(given or "").strip().lower() in ("1", "on", "true", "yes")
        if self.keyed:
            return self._keyed(given, factions, word)
        if self.keeps_blank and isinstance(given, str) and not given.strip() and self.kind == "text" and not self.many:
            return given.strip()
        items = _items(given, many=self.many)
        if not items:
            if self.required:
                raise self._missing()
            return self.empty()
        values = [self._one(item, factions, word) for item in items]
        return values if self.many else values[0]

    def _missing(self) -> ParamError:
        return ParamError(self, f"missing: {self.help[:1].lower() + self.help[1:].rstrip('.')}"
                                + (f", e.g. {self.example}" if self.example else ""))

    def _keyed(self, given: Any, factions: Sequence[str], word: str) -> dict:
        """{key: value} of a keyed parameter from a mapping (a page's fields by key) or from
        ``KEY=VALUE`` items (the command line's words, a list, or text one a line); a blank value
        gives nothing for its key unless the parameter ``keeps_blank``."""
        from bellica.geo.files import whole_number

        if isinstance(given, Mapping):
            pairs = [(str(k), "" if v is None else v, f"{k}={v}") for k, v in given.items()]
        else:
            pairs = []
            for item in _items(given, many=True):
                key, sep, value = str(item).partition("=")
                if not sep:
                    key = ""  # refused below as not KEY=VALUE
                pairs.append((key, value, str(item)))
        out: dict[int, Any] = {}
        for key_text, value, item in pairs:
            key = whole_number(key_text.strip())  # ASCII digits only: "٩=3" is not army 9
            if key is None:
                raise ItemError(self, f" {_shown(item)} is not {self.keyed.upper()}=VALUE with the {self.keyed} in "
                                      f"digits 0-9 (e.g. {self.example or '9=' + self.name})")
            if key in out:
                raise ItemError(self, f": {self.keyed} {key} is given twice: give each {self.keyed} once")
            text = value.strip() if isinstance(value, str) else value
            if isinstance(text, str) and not text and not self.keeps_blank:
                continue
            out[key] = text if text == "" else self._one(text, factions, word)
        if not out and self.required:
            raise self._missing()
        return out

    def _one(self, item: Any, factions: Sequence[str], word: str) -> Any:
        if self.kind == "whole":
            return _whole(self, item)
        text = str(item).strip()
        if self.kind == "choice":
            return _choice(self, text)
        if self.kind == "faction":
            return _faction(self, text, factions, word)
        return text


def _shown(value: Any, width: int = 60) -> str:
    """A user's value quoted for a message, cut short: a pasted file must not become the message."""
    text = str(value)
    return repr(text if len(text) <= width else text[:width] + "...")


def _items(given: Any, *, many: bool) -> list:
    """The non-blank items of ``given``: a list as it is, a text split on lines for a ``many``."""
    if given is None:
        return []
    if isinstance(given, (list, tuple)):
        items = list(given)
    elif many and isinstance(given, str):
        items = given.splitlines()
    else:
        items = [given]
    return [i for i in items if not (isinstance(i, str) and not i.strip())]


def _whole(param: Param, item: Any) -> int:
    from bellica.geo.files import whole_number

    if isinstance(item, int) and not isinstance(item, bool) and item >= 0:
        return item
    number = whole_number(str(item).strip())
    if number is None:
        raise ParamError(param, f"{str(item).strip()!r} is not a whole number: give one such as {param.example or '3'}")
    return number


def _choice(param: Param, text: str) -> str:
    """One of ``param.choices`` by the one matcher (:mod:`engine.core.names`): any case, a unique beginning."""
    from bellica.engine.core.names import did_you_mean, matches

    found = matches(text, list(param.choices))
    if len(found) != 1:
        raise ParamError(param, f"{text!r} {'begins several of' if found else 'is not one of'} "
                                f"{', '.join(found or param.choices)}: {did_you_mean(text, found, param.choices)}"
                                f"{'write more of it' if found else 'use one of those'}")
    return found[0]


def _faction(param: Param, text: str, factions: Sequence[str], word: str) -> str:
    from bellica.engine.core.names import matches, refusal

    found = matches(text, list(factions))
    if len(found) != 1:
        raise ParamError(param, refusal(text, found, list(factions), word))
    return found[0]


@dataclass(frozen=True)
class Action:
    """One step a ruleset's players or umpire take.

    ``name`` is the command (``march``); ``summary`` its one line of help and ``details`` the
    rest; ``example`` a whole command line (``CAMPAIGN`` stands for the file); ``who`` is
    :data:`UMPIRE` or :data:`SIDE`; ``step`` the round machine's step whose position it needs
    (empty: ``name``), which decides whether a page offers it now; ``run(campaign, actor,
    **input)`` plays it and returns its events.  ``umpire_too``: a :data:`SIDE` step the umpire
    may also take for the side (the faction flag is then optional, and ``actor`` None).
    ``opens``: how it opens the campaign (:data:`OPENS`); ``actor_help``: the faction flag's help
    (empty: the generic words)."""

    name: str
    summary: str
    run: Callable[..., list]
    who: str = UMPIRE
    params: tuple[Param, ...] = ()
    details: str = ""
    example: str = ""
    step: str = ""
    umpire_too: bool = False
    opens: str = "step"
    actor_help: str = ""
    #: ``run`` is also given ``signer=`` (a :class:`Signer`, or None when a bot or a replay runs it):
    #: the step checks which armies the signer commands and records who gave it.
    signed: bool = False
    #: ``check(campaign, actor, **input)`` (and ``signer=`` when ``signed``): the step's input
    #: checked as ``run`` would check it, nothing stored; it raises what ``run`` would refuse and
    #: returns warnings, lines that refuse nothing.  A page checks a form with it as one types.
    check: Callable[..., list] | None = None
    #: An ``umpire_too`` step the umpire's page offers too (the umpire takes it there for a side:
    #: a defence, a retreat), when the position allows it.
    umpire_page: bool = False
    #: ``preview(campaign, actor, key, text, signer=)``: what one item of the step's keyed parameter
    #: (an army's moves typed so far; ``text`` None: only where the key starts, for the map to
    #: draw it) would do, for the map to plot, nothing stored: a JSON-ready
    #: mapping (bellica/app/key_preview.py says which of its keys the page's map script draws), or
    #: a function of no arguments giving it, called once the campaign is let go (the costly part
    #: need not hold it).  It refuses a key the signer may not give with :class:`NotYours`.  A page
    #: serves it at ``POST /preview/NAME``.
    preview: Callable[..., Mapping[str, Any]] | None = None

    def __post_init__(self) -> None:
        if self.opens not in OPENS:
            raise ValueError(f"step {self.name}: opens must be one of {OPENS}, not {self.opens!r}")
        if self.who not in (UMPIRE, SIDE):
            raise ValueError(f"step {self.name}: who must be {UMPIRE!r} or {SIDE!r}, not {self.who!r}")
        if self.umpire_too and self.who != SIDE:
            raise ValueError(f"step {self.name}: only a side's step may be the umpire's too")
        if self.umpire_page and not self.umpire_too:
            raise ValueError(f"step {self.name}: only a step the umpire may take too is on the umpire's page")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"step {self.name}: two parameters share a name")
        if sum(1 for p in self.params if p.positional and p.repeats) > 1:
            raise ValueError(f"step {self.name}: only one positional parameter may repeat")

    @property
    def machine_step(self) -> str:
        return self.step or self.name

    def help_text(self) -> str:
        """The whole help: summary, details, example."""
        several = "; bellica " in self.example  # examples are separated by "; "
        parts = [self.summary, self.details, f"Example{'s' if several else ''}: {self.example}" if self.example else ""]
        return "\n\n".join(p for p in parts if p)


def parse_input(action: Action, given: Mapping[str, Any], factions: Sequence[str] = (),
                word: str = "faction") -> dict[str, Any]:
    """The typed input of ``action`` from ``given`` (each parameter's text or value by name;
    a missing one is not given); :class:`ParamError` for the first parameter refused."""
    return {p.name: p.parse(given.get(p.name), factions, word) for p in action.params}


def run_action(action: Action, campaign: Any, actor: str | None, typed: Mapping[str, Any],
               signer: Signer | None = None) -> list:
    """Run ``action`` with its ``typed`` input as ``actor``; a ``signed`` action is told ``signer``."""
    extra = {"signer": signer} if action.signed else {}
    return action.run(campaign, actor, **typed, **extra)


def check_action(action: Action, campaign: Any, actor: str | None, typed: Mapping[str, Any],
                 signer: Signer | None = None) -> list[str]:
    """The warnings of ``action``'s declared ``check`` on its ``typed`` input (nothing stored);
    raises what the step would refuse.  A step that declares no check has none to give: []."""
    if action.check is None:
        return []
    extra = {"signer": signer} if action.signed else {}
    return list(action.check(campaign, actor, **typed, **extra))


def keyed_fields(action: Action, given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` (a page's fields by name) with each keyed parameter's fields ``NAME-KEY`` gathered
    into {KEY: value} under ``NAME`` (a value given as a whole, ``KEY=VALUE`` items, is kept as it is)."""
    out = dict(given)
    for p in action.params:
        if not p.keyed or out.get(p.name) not in (None, "", []):
            continue
        prefix = f"{p.name}-"
        found = {k[len(prefix):]: out.pop(k) for k in list(out) if k.startswith(prefix)}
        if found:
            out[p.name] = {k: (v[-1] if isinstance(v, list) else v) for k, v in found.items()}
    return out
