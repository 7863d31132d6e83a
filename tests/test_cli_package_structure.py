"""The command line's package (calpress/cli/): no module imports a sibling's private (``_name``)
names; read from the source as tests/test_layers.py does, which also finds any import circle among
its modules (``test_the_packages_have_no_import_circle``)."""

from __future__ import annotations

import ast

from test_layers import MODULES, PACKAGE


def test_no_command_module_imports_a_siblings_private_name() -> None:
    assert len([name for name in MODULES if name.startswith("calpress.cli.")]) >= 10  # the families and their shared modules
    private = []
    for path in (PACKAGE / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                private += [(path.name, node.module, alias.name) for alias in node.names if alias.name.startswith("_")]
    assert private == []
