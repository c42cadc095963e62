"""The README runs as written: its commands, in order, on a fresh build folder.

Every command line of the README's code blocks (indented by four spaces, or in a ```sh fence)
that calls `bellica` or a program in `.venv/bin` is run in the order it stands, each in a new
shell, from a folder that holds what the repository holds beside the README (`datasets`,
`docs`, `.venv`) and an empty `build/`; each must exit 0.  A line with a word in angle brackets
(`<my_dem.tif>`) is a placeholder for a user's own file or address: the README says so, and
only those are skipped.  `make demo` and `make test` are not run here: `make test` is what runs
this test, and the demo runs the engine through the same commands' code (tests/cli/test_map_cli.py
reads its Makefile lines).

A line that starts the web app (`bellica serve CAMPAIGN ...`) runs until stopped: it passes when
the app answers `/` on the line's port with its sign-in page within a minute; it is then stopped.

One test, because the commands build on each other (the map, then the campaign on it, then its
rounds).  It costs a minute or two of CPU on two cores, mostly the two map builds.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: What a README command may read beside the README itself (the repository's folders).
BESIDE = ("datasets", "docs", ".venv")
PLACEHOLDER = re.compile(r"<[^<>\s]+>")
COMMAND = re.compile(r"^(bellica|\.venv/bin/)")
SERVER = re.compile(r"^bellica serve (?!tokens\b)")


def readme_commands(text: str) -> list[tuple[int, str]]:
    """(line number, command) of every command line in the README's code blocks, continuations
    (a line ending in a backslash) joined."""
    lines = text.splitlines()
    out: list[tuple[int, str]] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced and line.strip() != "```"
            i += 1
            continue
        body = line if fenced else (line[4:] if line.startswith("    ") else None)
        if body is not None and COMMAND.match(body):
            start = i + 1
            while body.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                body = body.rstrip()[:-1] + " " + lines[i].strip()
            out.append((start, body))
        i += 1
    return out


def test_readme_commands_are_found():
    found = readme_commands(README.read_text(encoding="utf-8"))
    assert len(found) > 60, found
    assert any(c.startswith("bellica round verify build/fpw.duckdb") for _, c in found)
    assert readme_commands("text\n    bellica a \\\n        b  # c\n```sh\nbellica d\n```\n    make x\n") == [
        (2, "bellica a  b  # c"), (5, "bellica d")]


def _workdir(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    (work / "build").mkdir(parents=True)
    for name in BESIDE:
        if (ROOT / name).exists():
            os.symlink(ROOT / name, work / name)
    return work


def _serves(command: str, work: Path, env: dict) -> str | None:
    """Start a README line that runs the web app; None when it answers on its port, else why not."""
    port = re.search(r"--port (\d+)", command)
    url = f"http://127.0.0.1:{port.group(1) if port else 8000}/"
    app = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=work, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and app.poll() is None:
            try:
                urllib.request.urlopen(url, timeout=5).close()
                return f"{url} answered without a sign-in"
            except urllib.error.HTTPError as answer:  # no token yet: the sign-in page, 401
                return None if answer.code == 401 and "token" in answer.read().decode() else f"{url}: {answer.code}"
            except OSError:
                time.sleep(0.5)
        return f"no answer from {url}: " + (app.stderr.read()[-300:] if app.poll() is not None else "timed out")
    finally:
        app.terminate()
        app.wait(timeout=30)


def test_readme_runs_as_written(tmp_path):
    work = _workdir(tmp_path)
    env = dict(os.environ, PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
               BELLICA_WARM_DIR=str(tmp_path / "warm"), COLUMNS="200")
    failed = []
    try:
        for number, command in readme_commands(README.read_text(encoding="utf-8")):
            if PLACEHOLDER.search(command):
                continue
            if SERVER.match(command):
                why = _serves(command, work, env)
                if why:
                    failed.append(f"README.md:{number}: {command}\n    {why}")
                continue
            run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                said = (run.stderr.strip() or run.stdout.strip()).splitlines()[-1:] or [""]
                failed.append(f"README.md:{number}: exit {run.returncode}: {command}\n    {said[0][:300]}")
    finally:
        subprocess.run(["bash", "-c", "bellica warm stop"], cwd=work, env=env, capture_output=True)
    assert not failed, "\n".join(failed)
