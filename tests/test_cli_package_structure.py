"""The command line's package (calpress/cli/): no import circle among its modules, and no module
importing a sibling's private (``_name``) names; read from the source as tests/test_layers.py does."""

from __future__ import annotations

import ast

from test_layers import MODULES, PACKAGE

CLI = {name: {imported for imported in found if imported.startswith("calpress.cli.")}
       for name, found in MODULES.items() if name.startswith("calpress.cli.")}


def _circle_from(start: str) -> list[str] | None:
    """A path of imports from ``start`` back to itself, if there is one."""
    stack = [(start, [start])]
    seen: set[str] = set()
    while stack:
        module, path = stack.pop()
        for imported in CLI.get(module, ()):
            if imported == start:
                return [*path, start]
            if imported not in seen:
                seen.add(imported)
                stack.append((imported, [*path, imported]))
    return None


def test_the_command_modules_import_one_another_without_a_circle() -> None:
    assert len(CLI) >= 10  # the families and their shared modules
    assert {name: path for name in CLI if (path := _circle_from(name))} == {}


def test_no_command_module_imports_a_siblings_private_name() -> None:
    private = []
    for path in (PACKAGE / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                private += [(path.name, node.module, alias.name) for alias in node.names if alias.name.startswith("_")]
    assert private == []
