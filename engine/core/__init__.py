"""The ruleset-neutral core: the campaign file, its state tables and event log, seeded randomness, the round machine."""
