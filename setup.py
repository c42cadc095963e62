"""Install every source folder under the one ``tabula`` import namespace.

The design card fixes the repository's top-level folders (``geo/``, ``engine/``,
``etl/``, ``datasets/``, ``web_maps/``), but installing them as top-level
packages would shadow, or be shadowed by, unrelated distributions (HuggingFace
``datasets``, PyPI ``geo``).  So each folder is mapped onto a subpackage of
``tabula`` with setuptools' ``package_dir``: the built wheel holds
``tabula/geo/...``, and an editable install maps ``tabula.geo`` to ``geo/``
through setuptools' own import finder, so the same ``import tabula.geo`` works
in a wheel, an editable install and a test run from the repository root.
Everything else (metadata, dependencies) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, setup

#: import name -> folder in this repository (the one place the mapping is written).
ROOTS = {
    "tabula": "tabula",
    "tabula.geo": "geo",
    "tabula.schema": "schema",
    "tabula.etl": "etl",
    "tabula.engine": "engine",
    "tabula.web_maps": "web_maps",
    "tabula.datasets": "datasets",
}


def _packages() -> list[str]:
    found = []
    for name, folder in ROOTS.items():
        found.append(name)
        found += [f"{name}.{sub}" for sub in find_namespace_packages(where=folder, exclude=["*__pycache__*"])]
    return sorted(set(found))


setup(package_dir=ROOTS, packages=_packages())
