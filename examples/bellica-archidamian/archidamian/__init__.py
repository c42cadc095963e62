"""The Archidamian War, a small two-side ruleset for bellica installed as its own distribution."""
