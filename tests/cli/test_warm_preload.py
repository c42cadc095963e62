"""What the warm server imports before it forks (bellica/commands/warm.py): every found ruleset's
modules, named by no list, and none whose import would start threads."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from bellica.commands import warm


def test_every_found_rulesets_modules_are_preloaded():
    """In a fresh interpreter, as the server starts: a test elsewhere in this process may have
    registered a ruleset of its own, which the server would never see."""
    code = ("import json\nfrom bellica.commands import warm\n"
            "from bellica.engine.core.ruleset import get_ruleset, ruleset_names\n"
            "skipped = []\nmodules = warm.preload_modules(skipped)\n"
            "packages = {n: type(get_ruleset(n)).__module__.rpartition('.')[0] for n in ruleset_names()}\n"
            "print(json.dumps({'modules': modules, 'skipped': skipped, 'packages': packages}))")
    got = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    modules = got["modules"]
    assert set(got["packages"]) >= {"vae-victis-ii", "rise-of-rome", "mare-nostrum", "magna-graecia", "trossian"}
    for name, package in got["packages"].items():
        assert f"{package}.ruleset" in modules, name
    assert "bellica.engine.vae_victis.rounds.machine" in modules  # sub-packages too
    assert got["skipped"] == []  # nothing of ours imports numpy and the like at its top level


def test_preloading_them_imports_no_library_that_starts_threads():
    code = ("import sys\nfrom bellica.commands import warm\nimport importlib\n"
            "for m in warm.PRELOAD + tuple(warm.preload_modules([])): importlib.import_module(m)\n"
            "print(sorted(n for n in warm.NEVER if n in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_module_that_imports_numpy_at_its_top_directly_or_through_its_package_is_left_out(tmp_path, monkeypatch):
    pkg = tmp_path / "warmtest_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "light.py").write_text("def f():\n    import numpy\n    return numpy\n")
    (pkg / "heavy.py").write_text("import numpy as np\n")
    (pkg / "through.py").write_text("from warmtest_pkg.heavy import np\n")
    (pkg / "guarded.py").write_text(textwrap.dedent("""
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            import pandas
        try:
            import warmtest_pkg.light
        except ImportError:
            pass
    """))
    (pkg / "plots.py").write_text("import matplotlib.pyplot as plt\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    follow = frozenset({"warmtest_pkg"})
    got = {m: warm.pulls_in_threads(f"warmtest_pkg.{m}", {}, follow) for m in ("light", "heavy", "through", "guarded", "plots")}
    assert got == {"light": False, "heavy": True, "through": True, "guarded": False, "plots": True}
