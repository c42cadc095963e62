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


def post_choices(c, ident, form: Mapping[str, str]):
    """``POST /choices``: the player's choices, for the armies they command only, stored sealed
    (read and checked by :mod:`bellica.engine.vae_victis.order_form`)."""
    from bellica.engine.vae_victis import rounds
    from bellica.engine.vae_victis.order_form import choices_text, own_choices

    choices = rounds.parse_choices_text(choices_text(form), "the choices form")
    choices = own_choices(c, ident.faction, ident.commands, ident.armies is None, choices)
    return rounds.submit_choices(c, ident.faction, choices, submitted_by=ident.submitted_by, source="the choices form")


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
