"""Magna Graecia: node-map campaigns in Sicily, 397-212 BC (pure rules over plain state).

See README.md in this folder for the modules; ``docs/rules/magna-graecia.md`` for the
choices made where the seed is silent.
"""
