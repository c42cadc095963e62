"""A Vae Victis player's own administration choices on their page (issue 21, item 2), and who has
given them on the umpire's.

In the battles phase a player whose armies have something to choose (a navy at sea may debark, a
winner may advance, an army may start a siege, a besieged structure may surrender or a siege be
taken over: :func:`bellica.engine.vae_victis.order_aids.choice_options`) sees a form of lists, one
per army, each offering only what the map allows, hexes named as the map names them.  ``POST
/choices`` turns the lists into the administration choices' own text (TOML), read by the engine's
one parser (:func:`~bellica.engine.vae_victis.rounds.choices.parse_choices_text`) and stored by
:func:`~bellica.engine.vae_victis.rounds.player_choices.submit_choices`: checked as the umpire's
are, for the player's own armies only, sealed until administration, logged so re-adjudication
replays it.  A player commanding some of its faction's armies chooses for those only.

The umpire's page lists every faction with live armies: its choices given (by whom, never what)
or not yet; a faction's own choices stand for its armies in place of the umpire's box.
"""

from __future__ import annotations

from typing import Mapping

from bellica.app.pages import e

__all__ = ["choices_section", "post_choices", "choosers_section"]


def _options(c, r, ident):
    from bellica.engine.vae_victis.order_aids import choice_options
    from bellica.engine.vae_victis.rounds.player_choices import results_so_far

    beaten, lost = results_so_far(r)
    mine = [a.id for a in r.live_armies() if ident.commands(a)]
    return choice_options(c.board, r.state, ident.faction, beaten, mine, lost)


def _select(name: str, label: str, options: list[tuple[str, str]], chosen: str, none: str) -> str:
    opts = [f'<option value=""{"" if chosen else " selected"}>{e(none)}</option>']
    opts += [f'<option value="{e(v)}"{" selected" if v == chosen else ""}>{e(words)}</option>' for v, words in options]
    return (f'<p><label for="{name}">{e(label)}</label> '
            f'<select name="{name}" id="{name}">{"".join(opts)}</select></p>')


def _given(c, ident, typed: Mapping[str, str] | None) -> dict[str, str]:
    """The form's values: what a refused form held, else the faction's last choices (its own to read)."""
    from bellica.engine.vae_victis.rounds.player_choices import faction_choices

    if typed is not None:
        return dict(typed)
    own = faction_choices(c).get(ident.faction)
    if own is None:
        return {}
    ch = own[0]
    out = {f"debark-{a}": str(v) for a, v in ch.debarks.items()}
    out |= {f"advance-{a}": str(v) for a, v in ch.advances.items()}
    out |= {f"siege-{a}": str(v) for a, v in ch.siege_starts.items()}
    out |= {f"surrender-{s}": "on" for s in ch.surrenders} | {f"takeover-{s}": "on" for s in ch.take_overs}
    return out


def _side(c, cell: str, clock: int) -> str:
    from bellica.app.preview import hex_name

    return f"clock {clock}: {hex_name(c, c.board.sides[cell][clock])}"


def _boxes(kind: str, label: str, names, given: Mapping[str, str]) -> list[str]:
    return [f'<p><input type="checkbox" name="{kind}-{e(n)}" id="{kind}-{i}"'
            f'{" checked" if given.get(f"{kind}-{n}") else ""}> <label for="{kind}-{i}">{e(label.format(n))}</label></p>'
            for i, n in enumerate(names)]


def choices_section(c, ident, typed: Mapping[str, str] | None = None) -> str:
    """The player's choices form, or "" when the rules give them nothing to choose now."""
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.player_choices import choosers

    r = read_round(c)
    if r.phase != "battles" or ident.role != "player":
        return ""
    opts = _options(c, r, ident)
    if not opts:
        return ""
    given, cells = _given(c, ident, typed), {a.id: a.cell for a in r.live_armies()}
    by = choosers(c).get(ident.faction)
    rows = []
    for army, clocks in sorted(opts.debarks.items()):
        rows.append(_select(f"debark-{army}", f"navy {army} debarks (administration step 3)",
                            [(str(k), _side(c, cells[army], k)) for k in clocks], given.get(f"debark-{army}", ""),
                            "stays at sea"))
    for army, clocks in sorted(opts.advances.items()):
        rows.append(_select(f"advance-{army}", f"army {army}, a winner, advances",
                            [(str(k), _side(c, cells[army], k)) for k in clocks], given.get(f"advance-{army}", ""),
                            "stays where it is"))
    for army, names in sorted(opts.sieges.items()):
        rows.append(_select(f"siege-{army}", f"army {army} starts (or joins) a siege of",
                            [(n, n) for n in names], given.get(f"siege-{army}", ""), "no siege"))
    rows += _boxes("surrender", "surrender {} to its besieger", opts.surrenders, given)
    rows += _boxes("takeover", "take over the siege of {}", opts.take_overs, given)
    state = (f"given{f' by {by}' if by != ident.faction else ''} (sealed until administration); "
             "you may change them until the umpire runs administration") if by is not None else "not given yet"
    return ('<h2>Administration choices</h2><form method="post" action="/choices" id="choices-form" class="box">'
            f'<p id="choices-state">your choices: {e(state)}. Yours stand for your armies in place of the umpire\'s.</p>'
            + "".join(rows) + '<button id="submit-choices">give these choices</button></form>')


def _text(form: Mapping[str, str]) -> str:
    """The administration choices' own text (TOML, by tomli_w) from the form's lists."""
    import tomli_w

    def items(prefix: str) -> dict[str, str]:
        return {k[len(prefix):]: v.strip() for k, v in sorted(form.items()) if k.startswith(prefix) and v.strip()}

    def ticked(prefix: str) -> list[str]:
        return [k[len(prefix):] for k, v in sorted(form.items()) if k.startswith(prefix) and v]

    doc = {"advance": items("advance-"), "debark": items("debark-"),
           "siege": {"start": items("siege-"), "take_over": ticked("takeover-"), "surrender": ticked("surrender-")}}
    return tomli_w.dumps(doc)


def post_choices(c, ident, form: Mapping[str, str]):
    """``POST /choices``: the player's choices, for the armies they command only, stored sealed."""
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.geo.errors import InputError

    choices = rounds.parse_choices_text(_text(form), "the choices form")
    r = read_round(c)
    armies = {a.id: a for a in r.state.armies}
    named = sorted(set(choices.advances) | set(choices.debarks) | set(choices.siege_starts))
    theirs = [a for a in named if a in armies and armies[a].faction == ident.faction and not ident.commands(armies[a])]
    if theirs:
        raise InputError(f"the choices form: army {theirs[0]} is not one you command: choose for your own armies only")
    return rounds.submit_choices(c, ident.faction, _with_others(c, ident, armies, choices),
                                 submitted_by=ident.submitted_by, source="the choices form")


def _with_others(c, ident, armies, choices):
    """An army player's choices with what its faction chose before for the armies it does not
    command (a faction's choices are one submission: the last counts), so one player of a
    faction never drops another's."""
    from dataclasses import replace

    from bellica.engine.vae_victis.rounds.player_choices import faction_choices

    before = faction_choices(c).get(ident.faction)
    if ident.armies is None or before is None:
        return choices

    def field(name: str) -> dict:
        kept = {a: v for a, v in getattr(before[0], name).items() if a in armies and not ident.commands(armies[a])}
        return {**kept, **getattr(choices, name)}
    return replace(choices, advances=field("advances"), debarks=field("debarks"), siege_starts=field("siege_starts"))


def choosers_section(c) -> str:
    """The umpire's view of the players' choices in the battles phase: who has given theirs (never what)."""
    from bellica.app import pages
    from bellica.engine.vae_victis.rounds.machine import read_round
    from bellica.engine.vae_victis.rounds.player_choices import choosers

    r = read_round(c)
    if r.phase != "battles":
        return ""
    by = choosers(c)
    factions = sorted({a.faction for a in r.live_armies()})
    rows = [(f, f"given by {by[f]} (sealed until administration): they stand for its armies" if f in by
             else "not given: your choices below stand for its armies") for f in factions]
    return ('<h2>Players\' administration choices (who, never what)</h2><div id="choosers">'
            + str(pages.table(["faction", "choices"], rows)) + "</div>")
