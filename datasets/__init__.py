"""The embedded default data: small derivatives of registry packages, scenarios, terrain rules.

Everything here can be regenerated with ``bellica map sources`` (see SOURCES.md).
"""

from pathlib import Path

DATASETS_DIR = Path(__file__).resolve().parent
SCENARIOS_DIR = DATASETS_DIR / "scenarios"
