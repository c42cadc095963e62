"""What the bots' game tests share: the umpire's steps taken as the web form and the command line
take them (the declared step's parser fills every parameter not given with its default, so a step
that gains a parameter does not break the tests' umpire)."""

from __future__ import annotations


def umpire(c, name: str, **given):
    """Take the declared step ``name`` as the umpire with ``given`` (parameter -> value as typed)."""
    from bellica.engine.core.steps import parse_input

    action = c.ruleset.action(name)
    typed = {k: (v if isinstance(v, (list, tuple)) or v is None else str(v)) for k, v in given.items()}
    return action.run(c, None, **parse_input(action, typed, c.ruleset.factions(c), c.ruleset.faction_flag.lstrip("-")))
