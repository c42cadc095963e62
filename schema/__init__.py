"""The one schema: map, campaign and state tables, defined once as SQL."""
