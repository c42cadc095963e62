"""Mare Nostrum: six nations around the Mediterranean, 290 BC (pure rules over plain state).

See README.md in this folder for the modules; ``docs/rules/mare-nostrum.md`` for the
choices made where the seed is silent or contradicts itself.
"""
