"""`import qagen` and `qagen --help` stay light: no torch, BERTopic, UMAP, pdfplumber or openai."""

from __future__ import annotations

import subprocess
import sys

HEAVY = [
    "torch",
    "bertopic",
    "umap",
    "hdbscan",
    "sentence_transformers",
    "pdfplumber",
    "openai",
    "langchain_core",
    "ray",
]


def _loaded_after(code: str) -> list[str]:
    probe = code + f"\nimport sys\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return [m for m in out.stdout.strip().split(",") if m]


def test_import_qagen_is_light():
    assert _loaded_after("import qagen, qagen.config, qagen.records, qagen.io") == []


def test_cli_help_is_light():
    code = (
        "from click.testing import CliRunner\nfrom qagen.cli import cli\n"
        "r = CliRunner().invoke(cli, ['--help'])\nassert r.exit_code == 0, r.output\n"
        "r = CliRunner().invoke(cli, ['build', '--help'])\nassert r.exit_code == 0, r.output"
    )
    assert _loaded_after(code) == []


def test_console_script_help_runs():
    out = subprocess.run([sys.executable, "-m", "qagen.cli", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "qagen build" in out.stdout


def _qagen_imports(path, modules: set[str]) -> set[str]:
    """The qagen modules ``path`` imports, lazily or not (imports under ``if TYPE_CHECKING:`` left out)."""
    import ast

    found: set[str] = set()

    class Visitor(ast.NodeVisitor):
        def visit_If(self, node: ast.If) -> None:
            if "TYPE_CHECKING" in ast.unparse(node.test):
                for child in node.orelse:
                    self.visit(child)
                return
            self.generic_visit(node)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            if node.module and node.module.split(".")[0] == "qagen":
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    found.add(full if full in modules else node.module)

        def visit_Import(self, node: ast.Import) -> None:
            found.update(a.name for a in node.names if a.name.split(".")[0] == "qagen")

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8")))
    return found & modules


def _import_graph() -> dict[str, set[str]]:
    """Each qagen module and the qagen modules it imports (lazy imports included)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    files = {}
    for path in (root / "qagen").rglob("*.py"):
        name = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        files[name] = path
    return {name: _qagen_imports(path, set(files)) - {name} for name, path in files.items()}


def test_layers_nothing_below_the_commands_imports_a_stage_a_command_or_the_cli():
    """CLI -> commands -> stages and runner -> domain packages; never upwards (the stage names list apart)."""
    graph = _import_graph()
    above = ("qagen.cli", "qagen.commands")
    upward = []
    for name, imported in graph.items():
        if name == "qagen" or name.startswith(above) or name.startswith("qagen.stages"):
            continue  # the package facade (qagen.build) and the upper layers themselves
        for target in imported:
            if target.startswith(above) or (target.startswith("qagen.stages.") and target != "qagen.stages"):
                upward.append((name, target))
    for name, imported in graph.items():
        if name.startswith("qagen.stages"):
            upward += [(name, t) for t in imported if t.startswith(above)]
    assert upward == []


def test_no_import_cycles_between_qagen_modules():
    """Not even through lazy imports: a cycle is a layering mistake waiting for an import-order bug."""
    graph = _import_graph()
    cycles, state = [], {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append([*trail[trail.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == [], cycles[:5]


def test_every_stage_module_is_a_listed_stage_and_every_list_of_stages_is_that_one():
    import pkgutil

    import qagen.stages
    from qagen.cli import build
    from qagen.commands.build import STAGES
    from qagen.report.summary import STAGE_ORDER
    from qagen.stages import STAGE_NAMES, load_stages

    assert {m.name for m in pkgutil.iter_modules(qagen.stages.__path__)} == set(STAGE_NAMES)
    assert tuple(stage.name for stage in load_stages()) == STAGE_NAMES
    assert tuple(stage.name for stage in STAGES) == STAGE_NAMES
    assert STAGE_ORDER == STAGE_NAMES
    choices = {p.name: tuple(p.type.choices) for p in build.params if hasattr(p.type, "choices")}
    assert choices["until"] == STAGE_NAMES
    assert choices["force"] == (*STAGE_NAMES, "all")
