"""The layer contract: every import in `tokenlab/` runs down the layers, and none closes a circle.

Layers, top to bottom (README, "Where things are"): a module may import modules of its
own layer and of any layer below it, never above. The walk reads the source with `ast`
and sees every import: at module level, inside functions (many are there to keep start-up
fast, and they are dependencies all the same) and under `if TYPE_CHECKING:`. A circle is
any loop of such imports, whatever their placement: a lazy import does not make a loop
acceptable, it only hides it until the code runs.

Optimizer families (`optimizers/<family>/`) import the contract (`optimizers/__init__.py`),
the shared line machinery (`optimizers/lines/`), their own modules, the foundation layer,
and another family only where `FAMILY_USES` declares it.

`TOKENLAB_LAYERS_ROOT=/path/to/checkout pytest tests/test_layers.py` runs the contract
against another checkout: the layout before the move (b58e4ab) fails all four checks
(four circles, imports up into entry.py and cli/, families importing each other freely).
`test_the_contract_fails_on_a_tree_that_breaks_it` keeps that proof in the suite.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(os.environ.get("TOKENLAB_LAYERS_ROOT") or Path(__file__).resolve().parent.parent)

# Top to bottom. A module belongs to the layer of the longest prefix that names it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("front door", ("tokenlab.entry", "tokenlab.__main__", "tokenlab.native_finish")),
    ("cli", ("tokenlab.cli",)),
    ("serve", ("tokenlab.serve",)),
    ("agent", ("tokenlab.agent",)),
    (
        "commands",
        ("tokenlab.commands", "tokenlab.ledger", "tokenlab.tallies", "tokenlab.benchmark", "tokenlab.render"),
    ),
    ("refs/pack", ("tokenlab.refs", "tokenlab.pack")),
    ("reads", ("tokenlab.reads",)),
    (
        "pipeline",
        (
            "tokenlab.pipeline",
            "tokenlab.packet",
            "tokenlab.classify",
            "tokenlab.redact",
            "tokenlab.restore",
            "tokenlab.run_settings",
            "tokenlab.sources",
            "tokenlab.visible_writer",
        ),
    ),
    ("optimizers", ("tokenlab.optimizers",)),
    (
        "foundation",
        (
            "tokenlab",  # the package's own __init__: its version
            "tokenlab.counting",
            "tokenlab.tokens",  # the tokenizer's import path before the layers: counting.tokens
            "tokenlab.spool",
            "tokenlab.spooled_text",
            "tokenlab.store",
            "tokenlab.syntax",
            "tokenlab.markers",
            "tokenlab.errors",
            "tokenlab.mapped",
            "tokenlab.patterns",
            "tokenlab.heap",
        ),
    ),
)
FAMILIES = "tokenlab.optimizers."
SHARED_BY_FAMILIES = ("tokenlab.optimizers", "tokenlab.optimizers.lines")
# A family's imports of another family: each a real use, named here.
FAMILY_USES: dict[str, frozenset[str]] = {
    "git_log": frozenset({"diff"}),  # a commit's patch goes through the diff optimizer
    "table": frozenset({"json_doc"}),  # a JSON document in a cell laid out as JSON
    "text": frozenset({"file_list"}),  # `find -ls` rows read as a long listing
    "xml_report": frozenset({"json_doc", "log"}),  # records' key roles; checkstyle groups as a log does
    "yaml_doc": frozenset({"json_doc", "table"}),  # records' key roles; aligned tables inside YAML
}

Import = tuple[str, str, int]  # (importing module, imported module, line)


@cache
def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((root / "tokenlab").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported(
    node: ast.Import | ast.ImportFrom, module: str, path: Path, known: dict[str, Path]
) -> Iterator[str]:
    """The tokenlab modules an import statement names (a name imported from a package
    counts as the package, unless it is a module of that package)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join(package + ([base] if base else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    for name in names:
        parts = name.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts and parts[0] == "tokenlab" and ".".join(parts) != module:
            yield ".".join(parts)


@cache
def imports(root: Path = ROOT) -> tuple[Import, ...]:
    """Every import between tokenlab's modules, wherever it stands in the module."""
    known = modules(root)
    found = []
    for module, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found += [(module, target, node.lineno) for target in _imported(node, module, path, known)]
    return tuple(dict.fromkeys(found))


def layer_of(module: str) -> int | None:
    """The index of the module's layer (0 is the top), or None if no layer names it."""
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            owns = module == prefix or (prefix != "tokenlab" and module.startswith(prefix + "."))
            if owns and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index)
    return None if best is None else best[1]


def circles(root: Path = ROOT) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {module: set() for module in modules(root)}
    for source, target, _ in imports(root):
        graph[source].add(target)
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
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def upward_imports(root: Path = ROOT) -> list[str]:
    """Each import from a module into a module of a higher layer, as a readable line."""
    found = []
    for source, target, line in imports(root):
        low, high = layer_of(source), layer_of(target)
        if low is not None and high is not None and high < low:
            found.append(f"{source}:{line} imports {target} ({LAYERS[low][0]} -> {LAYERS[high][0]})")
    return found


def family_of(module: str) -> str | None:
    """The optimizer family a module belongs to (`optimizers/<family>/…`), if any."""
    if not module.startswith(FAMILIES):
        return None
    family = module[len(FAMILIES) :].split(".")[0]
    return None if family == "lines" else family


def family_breaches(root: Path = ROOT) -> list[str]:
    """Imports by an optimizer family of anything but what families may use."""
    found = []
    for source, target, line in imports(root):
        family = family_of(source)
        if family is None:
            continue
        other = family_of(target)
        if other == family or other in FAMILY_USES.get(family, ()):
            continue
        shared = target in SHARED_BY_FAMILIES or target.startswith("tokenlab.optimizers.lines.")
        if other is None and (shared or layer_of(target) == len(LAYERS) - 1):
            continue
        found.append(f"{source}:{line} imports {target}")
    return found


def unplaced(root: Path = ROOT) -> list[str]:
    return [module for module in modules(root) if layer_of(module) is None]


def test_every_module_has_a_layer() -> None:
    assert unplaced() == []


def test_no_import_runs_up_a_layer() -> None:
    assert upward_imports() == []


def test_no_circles_even_through_imports_inside_functions() -> None:
    assert circles() == []


def test_optimizer_families_import_only_what_families_may_use() -> None:
    assert family_breaches() == []


def test_the_contract_sees_imports_inside_functions_and_type_checking_blocks() -> None:
    """The walk is not fooled by lazy imports: entry.py imports the CLI only inside `run`."""
    found = {(source, target) for source, target, _ in imports()}
    assert ("tokenlab.entry", "tokenlab.cli") in found
    assert ("tokenlab.__main__", "tokenlab.entry") in found


def test_the_contract_fails_on_a_tree_that_breaks_it(tmp_path: Path) -> None:
    """A tree with each kind of breach, lazy and type-only imports among them."""
    files = {
        "__init__.py": "",
        "entry.py": "def run():\n    from tokenlab.cli import app\n",
        "cli/__init__.py": "def analyze():\n    from tokenlab.entry import run\n",
        "optimizers/__init__.py": "",
        "optimizers/log/__init__.py": "from tokenlab.optimizers.text import detect\n",
        "optimizers/text/__init__.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tokenlab.serve import shapes\n"
        ),
        "serve/__init__.py": "",
        "serve/shapes.py": "",
        "stray.py": "",
    }
    for name, text in files.items():
        (tmp_path / "tokenlab" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tokenlab" / name).write_text(text)
    assert unplaced(tmp_path) == ["tokenlab.stray"]
    assert upward_imports(tmp_path) == [
        "tokenlab.cli:2 imports tokenlab.entry (cli -> front door)",
        "tokenlab.optimizers.text:3 imports tokenlab.serve.shapes (optimizers -> serve)",
    ]
    assert circles(tmp_path) == [["tokenlab.cli", "tokenlab.entry"]]
    assert family_breaches(tmp_path) == [
        "tokenlab.optimizers.log:1 imports tokenlab.optimizers.text",
        "tokenlab.optimizers.text:3 imports tokenlab.serve.shapes",
    ]
