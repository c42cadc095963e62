"""The Trossian Napoleonic campaign: provinces, towns and ports, couriers, navies, chance cards."""
