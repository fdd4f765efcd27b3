"""The installed package: imports as `promptc` (never `compiler`), ships its types and
templates, has a version, and no module imports one that imports it back."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from support.paths import REPO

PACKAGE_DIR = REPO / "compiler"
TOP = "promptc"


# --------------------------------------------------------------------------- import graph


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([TOP, *parts])


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every promptc module `path` imports, at any depth of the file (deferred imports count)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == TOP)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            if base is None:
                continue
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in known else base)
    return found & known


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    if node.level == 0:
        return node.module if node.module and node.module.split(".")[0] == TOP else None
    parts = package.split(".")
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module, or a module importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_a_module_that_imports_it_back():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) - {name} for name, path in modules.items()}
    assert len(graph) > 40  # the walk really saw the package
    assert "promptc.pipeline" in graph["promptc.commands.common"]  # and really resolved imports
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_command_module_imports_the_front_end():
    """Commands share `commands.common`; only the front end knows every command."""
    modules = _modules()
    for name, path in modules.items():
        if name.startswith("promptc.commands.") and name != "promptc.commands.cli":
            assert "promptc.commands.cli" not in _imports(name, path, set(modules)), name


LAYERS: tuple[tuple[str, ...], ...] = (
    ("_lib",),
    ("model", "transcript"),
    ("inputs",),
    ("workspace",),
    ("skills",),
    ("sections",),
    ("tiers",),
    ("emit",),
    ("pipeline",),
    ("warm",),
    ("features",),
    ("commands",),
    ("__init__", "__main__"),
)
"""The package's layers, lowest first (docs/design.md gives the same order and why). A module may
import its own layer and those below it; two packages of one layer may not import each other."""


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _upward(graph: dict[str, set[str]], layers: tuple[tuple[str, ...], ...] = LAYERS) -> list[str]:
    """Every import that points up the layers, or sideways into another package of the same layer."""
    rank = {name: index for index, group in enumerate(layers) for name in group}
    found = []
    for importer, targets in sorted(graph.items()):
        for target in sorted(targets):
            low, high = _layer(importer), _layer(target)
            if low != high and rank[high] >= rank[low]:
                found.append(f"{importer} -> {target}")
    return found


def _package_graph(graph: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    """The imports between the direct children (modules and subpackages) of one package."""
    prefix = package + "."

    def child(module: str) -> str | None:
        return prefix + module[len(prefix) :].split(".")[0] if module.startswith(prefix) else None

    children: dict[str, set[str]] = {}
    for importer, targets in graph.items():
        source = child(importer)
        if source is None:
            continue
        children.setdefault(source, set())
        children[source] |= {t for t in map(child, targets) if t is not None and t != source}
    return children


def test_every_module_is_in_a_layer_and_every_import_points_down():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) - {name} for name, path in modules.items()}
    layered = {name for group in LAYERS for name in group}
    assert {_layer(name) for name in modules} == layered
    assert _upward(graph) == []


def test_no_two_packages_import_each_other_at_any_depth():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) - {name} for name, path in modules.items()}
    packages = sorted({name for name, path in modules.items() if path.name == "__init__.py"})
    assert len(packages) >= 10
    for package in packages:
        assert _cycles(_package_graph(graph, package)) == [], package


def test_the_layer_checks_catch_an_upward_import_and_a_cycle_between_packages():
    graph = {"promptc.model.a": {"promptc.warm.b"}, "promptc.warm.b": set(), "promptc.inputs.c": {"promptc.model.a"}}
    assert _upward(graph) == ["promptc.model.a -> promptc.warm.b"]
    assert _upward({"promptc.model.x": {"promptc.transcript.y"}}) == ["promptc.model.x -> promptc.transcript.y"]
    packages = {
        "promptc.warm.a.x": {"promptc.warm.b.y"},
        "promptc.warm.b.y": {"promptc.warm.a.z"},
        "promptc.warm.a.z": set(),
    }
    assert _cycles(_package_graph(packages, "promptc.warm")) == [["promptc.warm.a", "promptc.warm.b"]]


def test_the_design_documents_tree_names_every_module_and_folder():
    design = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    tree = design[design.index("## The tree") :].split("```")[1]
    modules = {name.rpartition(".")[2] for name in _modules()} - {"promptc", "__main__"}
    missing = sorted(m for m in modules if not re.search(rf"\b{m}\b", tree))
    assert missing == []
    for folder in (p for p in PACKAGE_DIR.rglob("*") if (p / "__init__.py").exists()):
        assert f"{folder.name}/" in tree, folder.name


def test_the_design_document_gives_the_same_layer_order():
    design = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    table = design[design.index("## Layers") :].split("\n## ")[0]
    named = re.findall(r"^\| (\d+) \| ([^|]+) \|", table, flags=re.MULTILINE)
    written = tuple(tuple(re.findall(r"`([^`]+)`", cell)) for _, cell in named)
    assert written == LAYERS


# --------------------------------------------------------------------------- the wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """The project built as a wheel (as `pip install .` would) and installed into a target dir."""
    root = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(REPO)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    wheel = next((root / "dist").glob("promptc-*.whl"))
    target = root / "site"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stderr
    return wheel, target


def _run(target: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True)


def test_the_wheel_ships_the_types_marker_every_module_and_no_compiler_package(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "promptc/py.typed" in names
    assert not any(name.startswith("compiler/") for name in names)
    sources = {f"promptc/{p.relative_to(PACKAGE_DIR).as_posix()}" for p in PACKAGE_DIR.rglob("*.py")}
    assert sources <= names, sorted(sources - names)
    assert any(name.startswith("promptc_templates/sections/") for name in names)


def test_installed_package_imports_as_promptc_with_its_version_and_never_as_compiler(installed, tmp_path):
    _, target = installed
    expected = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    version = _run(target, tmp_path, "-c", "import promptc; print(promptc.__version__)")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == expected
    legacy = _run(target, tmp_path, "-c", "import compiler")
    assert legacy.returncode != 0 and "No module named 'compiler'" in legacy.stderr
    cli = _run(target, tmp_path, "-m", "promptc", "--version")
    assert cli.stdout.strip() == f"promptc {expected}"


def test_a_users_type_checker_sees_the_real_names_of_the_installed_package(installed, tmp_path):
    """Through the wheel's py.typed: real signatures, and a misspelt name is an error (the lazy
    facade's module __getattr__ is hidden from type checkers)."""
    _, target = installed
    (tmp_path / "user.py").write_text(
        "import promptc\n"
        "from promptc import Compiler, RunFacts, to_anthropic\n"
        "version: str = promptc.__version__\n"
        "payload: dict = to_anthropic(Compiler().compile(RunFacts()))\n"
        "reveal_type(to_anthropic)\n"
        "promptc.compile_promt\n"
    )
    env = {**os.environ, "MYPYPATH": str(target)}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "user.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    lines = done.stdout.splitlines()
    assert any(
        "user.py:5: note: Revealed type is" in line and "Prompt" in line and "dict[" in line for line in lines
    ), done.stdout
    assert [line for line in lines if ": error:" in line] == [
        'user.py:6: error: Module has no attribute "compile_promt"  [attr-defined]'
    ], done.stdout


def test_python_dash_m_promptc_renders_the_example_from_the_checkout(installed):
    _, target = installed
    done = _run(
        target, REPO, "-m", "promptc", "render", "--config", "examples/config.yaml", "--run", "examples/run.yaml"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("<!-- PROMPT_CACHE_BOUNDARY -->") == 1
    assert "## Tooling" in done.stdout


def test_version_from_the_console_entry_point(run_cli, capsys):
    code, out, _ = run_cli("--version")
    expected = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert code == 0 and out.strip() == f"promptc {expected}"


IMPORT_NAMES = {
    "jinja2": "jinja2",
    "pyyaml": "yaml",
    "markdown-it-py": "markdown_it",
    "python-frontmatter": "frontmatter",
}
"""Runtime distribution -> the top-level module it provides."""
DECLARED_NOT_IMPORTED = {"python-frontmatter"}
"""Declared, but not imported: every frontmatter block is found by the package's own splitter
(compiler/_lib/frontmatter.py)."""


def test_every_runtime_dependency_is_imported_by_the_package():
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~ \[]", spec, maxsplit=1)[0].lower() for spec in declared}
    assert names == set(IMPORT_NAMES)
    imported: set[str] = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    assert {IMPORT_NAMES[name] for name in names - DECLARED_NOT_IMPORTED} <= imported
    assert not {IMPORT_NAMES[name] for name in DECLARED_NOT_IMPORTED} & imported
