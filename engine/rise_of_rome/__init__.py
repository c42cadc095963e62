"""The Rise of Rome: a solo campaign for Italy, 348-264 BC (pure rules over plain state).

See README.md in this folder for the modules; ``docs/rules/rise-of-rome.md`` for the
choices made where the seed is silent.
"""
