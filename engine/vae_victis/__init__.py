"""Vae Victis II (hex map, simultaneous orders, ZoC, logistics, sieges): the first ruleset on the core."""
