"""Every program the project runs is installed by the project's own files.

A fresh clone on a machine that has been used before is not a fresh machine: a test that
passes there because someone once ran ``apt-get install`` by hand fails on a new one.
So the code is read for the programs it starts or looks up (``subprocess``, ``asyncio``'s
subprocesses, ``os.exec*``, ``shutil.which``, and a helper's ``program`` argument), and
each must be in ``scripts/programs.py``: installed by a stage of the Makefile, or part
of the base system every supported machine has. ``tests/conftest.py`` records what the
test session really started and checks it against the same table at the end.
"""

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import local_servers, programs
from scripts.programs import PROGRAMS

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("agency_site", "scripts", "tests")
_STARTERS = {
    ("subprocess", name) for name in ("run", "Popen", "check_output", "check_call", "call")
} | {
    ("asyncio", "create_subprocess_exec"),
    ("shutil", "which"),
    *(("os", name) for name in ("execv", "execvp", "execve", "execvpe", "posix_spawnp")),
}


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module's string constants (``H2LOAD = "h2load"``)."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    found[target.id] = node.value.value
    return found


def _program_of(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The program an argument names: ``"caddy"``, ``["nginx", "-t"]``, ``H2LOAD``,
    ``bin_dir / "initdb"``; None when it is computed."""
    if isinstance(node, ast.List | ast.Tuple) and node.elts:
        node = node.elts[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        node = node.right
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        words = node.value.split()
        return Path(words[0]).name if words else None
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _program_helpers(tree: ast.Module) -> dict[str, int]:
    """Functions of the module that take the program to run as a ``program`` argument."""
    helpers = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            names = [arg.arg for arg in node.args.args]
            if "program" in names:
                helpers[node.name] = names.index("program")
    return helpers


def programs_in(path: Path) -> Iterator[tuple[str, int]]:
    """Each program ``path`` starts or looks up, with its line."""
    tree = ast.parse(path.read_text(), str(path))
    constants, helpers = _constants(tree), _program_helpers(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func, argument = node.func, None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if (func.value.id, func.attr) in _STARTERS:
                argument = node.args[0]
        elif isinstance(func, ast.Name) and func.id in helpers:
            position = helpers[func.id]
            argument = node.args[position] if len(node.args) > position else None
        name = _program_of(argument, constants) if argument is not None else None
        if name:
            yield name, node.lineno


def every_program() -> dict[str, list[str]]:
    """Each program the project's code names, with where."""
    found: dict[str, list[str]] = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name, line in programs_in(path):
                found.setdefault(name, []).append(f"{path.relative_to(ROOT)}:{line}")
    return found


def test_the_scanner_finds_every_way_a_program_is_named(tmp_path: Path) -> None:
    code = tmp_path / "code.py"
    code.write_text(
        'import shutil, subprocess, asyncio\nTOOL = "h2load"\n'
        "def pg(url, program, *args): ...\n"
        'subprocess.run(["caddy", "validate"])\nshutil.which(TOOL)\n'
        'asyncio.create_subprocess_exec(bin_dir / "initdb")\npg("u", "pg_dump")\n'
        'subprocess.run("nginx -t", shell=True)\nsubprocess.run(command)\n'
    )
    assert sorted(name for name, _ in programs_in(code)) == [
        "caddy",
        "h2load",
        "initdb",
        "nginx",
        "pg_dump",
    ]


def test_every_program_the_code_runs_is_installed_by_the_project() -> None:
    found = every_program()
    assert {"h2load", "caddy", "nginx", "chromium", "pg_restore"} <= set(found)
    unknown = {
        name: where
        for name, where in found.items()
        if name not in PROGRAMS and name not in programs.BASE_SYSTEM
    }
    assert not unknown, (
        "Programs the code runs that no project file installs (add each to "
        f"scripts/programs.py with the stage that installs it): {unknown}"
    )


def _makefile_recipe(target: str) -> str:
    """What `make target` runs: the recipes of its prerequisites that are targets of the
    Makefile (``test: setup-dev test-tools``), then its own."""
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}:(.*)\n((?:\t.*\n)*)", text, re.MULTILINE)
    assert match, f"no Makefile target {target}"
    targets = set(re.findall(r"^([\w.-]+):", text, re.MULTILINE))
    before = [_makefile_recipe(name) for name in match.group(1).split() if name in targets]
    return "".join(before) + match.group(2)


@pytest.mark.parametrize(
    "target, command",
    [
        ("test", "scripts/local_servers.py\n"),
        ("test-unit", "scripts/local_servers.py --optional"),
        ("loadtest", "scripts/local_servers.py --loadtest"),
        ("test", "scripts/ensure_chromium.sh"),
        ("test-e2e", "scripts/ensure_chromium.sh"),
        ("test-stack", "scripts/ensure_chromium.sh"),
        ("bench", "scripts/ensure_chromium.sh"),
    ],
)
def test_each_stage_runs_its_installer(target: str, command: str) -> None:
    assert command in _makefile_recipe(target)


def test_the_installers_install_the_table_s_packages() -> None:
    """local_servers installs each stage's packages; ensure_chromium.sh the browser's; the
    venv's come from the requirements."""
    assert set(local_servers.APT_PACKAGES) == set(programs.packages(programs.SERVERS))
    assert "nghttp2-client" in programs.packages(programs.LOADTEST)
    assert {"bubblewrap", "nftables", "systemd"} <= set(programs.packages(programs.TESTS))
    script = (ROOT / "scripts" / "ensure_chromium.sh").read_text()
    for package in programs.packages(programs.BROWSER):
        assert f"install -y -qq --no-install-recommends {package}" in script
    requirements = "".join(p.read_text() for p in ROOT.glob("requirements*.in"))
    for package in programs.packages(programs.VENV):
        assert re.search(rf"^{re.escape(package)}==", requirements, re.MULTILINE), package


def test_missing_programs_reads_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """What is missing follows from the table and PATH, whatever this machine has."""
    monkeypatch.setattr(local_servers.shutil, "which", lambda name: None)
    monkeypatch.setattr(local_servers, "postgres_bin", lambda: None)
    assert local_servers.missing_programs(programs.LOADTEST) == ["h2load"]
    assert set(local_servers.missing_programs(programs.TESTS)) == {
        "systemd-analyze",
        "nft",
        "bwrap",
        "certbot",
    }
    assert "postgresql" in local_servers.missing_programs()
    monkeypatch.setattr(local_servers.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(local_servers, "postgres_bin", lambda: Path("/usr/lib/postgresql/15/bin"))
    assert local_servers.missing_programs(programs.SERVERS, programs.TESTS) == []


def test_what_the_session_ran_is_checked_against_the_table() -> None:
    """The audit hook of tests/conftest.py names programs as the table does."""
    from tests.conftest import program_name, unknown_programs

    assert program_name("/usr/lib/postgresql/15/bin/initdb") == "initdb"
    assert program_name(str(Path(sys.executable).parent / "reflex")) is None  # the venv's own
    assert unknown_programs({"caddy", "git", "h2load"}) == set()
    assert unknown_programs({"caddy", "hand-installed-tool"}) == {"hand-installed-tool"}
