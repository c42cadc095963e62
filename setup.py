"""Install every source folder under the one ``bellica`` import namespace.

The design card fixes the repository's top-level folders (``geo/``, ``engine/``,
``etl/``, ``datasets/``, ``web_maps/``), but installing them as top-level
packages would shadow, or be shadowed by, unrelated distributions (HuggingFace
``datasets``, PyPI ``geo``).  So each folder is mapped onto a subpackage of
``bellica`` with setuptools' ``package_dir``: the built wheel holds
``bellica/geo/...``, and an editable install maps ``bellica.geo`` to ``geo/``
through setuptools' own import finder, so the same ``import bellica.geo`` works
in a wheel, an editable install and a test run from the repository root.
Everything else (metadata, dependencies) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

#: import name -> folder in this repository (the one place the mapping is written).
ROOTS = {
    "bellica": "bellica",
    "bellica.geo": "geo",
    "bellica.schema": "schema",
    "bellica.etl": "etl",
    "bellica.engine": "engine",
    "bellica.web_maps": "web_maps",
    "bellica.datasets": "datasets",
}


def _packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_namespace_packages(where=folder, exclude=["*__pycache__*"])]
    return sorted(set(found))


setup(package_dir=ROOTS, packages=_packages())
