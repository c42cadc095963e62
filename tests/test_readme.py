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
rounds).  A plain `bellica` line (no pipe, redirection or expansion for the shell) runs in the test's
process through the entry point's own function, :func:`bellica.launch.main`, in the work folder with
the same environment, as the installed script would run it: a fresh process per line cost half a
minute of CPU in imports alone (0.5 s a line).  The lines a shell must read (the pipes into `jq`),
the venv's other programs, the web app and the warm server still run as real processes through
`bash`, so the installed `bellica` script is run too (:func:`in_process` says which).
"""

from __future__ import annotations

import os
import re
import shlex
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
#: What only a shell reads: a line holding one of these runs in bash.
SHELL = set("|&;<>()$`*?[]{}~!")
#: Commands that run as real processes whatever their line: the warm server forks (a copy of the
#: test process would be its server); the web app's lines (:data:`SERVER`) run until stopped.
OWN_PROCESS = ("warm",)


def _for_the_shell(command: str) -> str:
    """What bash would read in ``command`` outside quotes, its comment left out (and ``$`` and
    backquotes inside double quotes, which it expands there too)."""
    out, quote, prev, i = [], None, " ", 0
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == quote:
                quote = None
            elif quote == '"' and ch in "$`\\":
                out.append(ch)
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and prev.isspace():
            break
        else:
            out.append(ch)
        prev, i = ch, i + 1
    return "".join(out)


def in_process(command: str) -> list[str] | None:
    """The arguments of a README line this test runs in its own process, or None when the line is
    run by bash: a line that needs a shell (a pipe, a redirection, an expansion: :data:`SHELL`, or a
    backslash), a program other than `bellica`, an :data:`OWN_PROCESS` command or the web app."""
    if SERVER.match(command):
        return None
    lexer = shlex.shlex(command, posix=True)
    lexer.whitespace_split, lexer.commenters = True, "#"
    try:
        words = list(lexer)
    except ValueError:  # an unbalanced quote: the shell says what is wrong
        return None
    bare = _for_the_shell(command)
    if not words or words[0] != "bellica" or SHELL & set(bare) or "\\" in bare:
        return None
    if next((w for w in words[1:] if not w.startswith("-")), None) in OWN_PROCESS:
        return None
    return words[1:]


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


def _run_here(args: list[str], capsys) -> tuple[int, str]:
    """``bellica ARGS`` through the console script's function in this process: (exit status, the
    last line it wrote, stderr first)."""
    from bellica.launch import main

    capsys.readouterr()
    try:
        main(args)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception as e:  # noqa: BLE001  (a bug: the script would print a traceback and exit 1)
        code, out = 1, f"{type(e).__name__}: {e}"
        capsys.readouterr()
        return code, out
    out, err = capsys.readouterr()
    said = (err.strip() or out.strip()).splitlines()[-1:] or [""]
    return code, said[0]


def test_readme_in_process_lines():
    assert in_process("bellica round start build/fpw.duckdb") == ["round", "start", "build/fpw.duckdb"]
    assert in_process('bellica sql b.duckdb "SELECT * FROM x WHERE k LIKE \'a.%\'"  # c') == [
        "sql", "b.duckdb", "SELECT * FROM x WHERE k LIKE 'a.%'"]
    assert in_process("bellica magna-graecia result b Gela --loss '42:LH(O)=1'   # the (table)") == [
        "magna-graecia", "result", "b", "Gela", "--loss", "42:LH(O)=1"]
    for shell in ("bellica sql b x --json | jq .", "bellica map info m > out", "bellica log $F", "bellica log *.duckdb",
                  ".venv/bin/duckdb -readonly b", "bellica warm start", "bellica serve b --port 8000",
                  "bellica map info 'm"):
        assert in_process(shell) is None, shell
    assert in_process("bellica serve tokens b --url http://h:8000") == ["serve", "tokens", "b", "--url", "http://h:8000"]


def test_readme_runs_as_written(tmp_path, capsys, monkeypatch):
    work = _workdir(tmp_path)
    env = dict(os.environ, PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
               BELLICA_WARM_DIR=str(tmp_path / "warm"), COLUMNS="200")
    for name, value in env.items():  # the lines run here see what the processes see
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(work)
    failed, processes = [], 0
    try:
        for number, command in readme_commands(README.read_text(encoding="utf-8")):
            if PLACEHOLDER.search(command):
                continue
            if SERVER.match(command):
                processes += 1
                why = _serves(command, work, env)
                if why:
                    failed.append(f"README.md:{number}: {command}\n    {why}")
                continue
            args = in_process(command)
            if args is not None:
                code, said = _run_here(args, capsys)
            else:
                processes += 1
                run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env,
                                     stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
                code = run.returncode
                said = ((run.stderr.strip() or run.stdout.strip()).splitlines()[-1:] or [""])[0]
            if code != 0:
                failed.append(f"README.md:{number}: exit {code}: {command}\n    {said[:300]}")
    finally:
        subprocess.run(["bash", "-c", "bellica warm stop"], cwd=work, env=env, capture_output=True)
    assert not failed, "\n".join(failed)
    assert processes >= 5  # the installed script, through bash, is among what ran
