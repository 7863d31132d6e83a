"""The layers of DESIGN.md hold: each package imports only from the layers below it.

Read from the source with ``ast`` (no import side effects). Imports inside ``if TYPE_CHECKING:``
blocks are type hints, not dependencies, and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "calpress"

WEB_FRAMEWORKS = ("falcon", "granian", "werkzeug", "starlette", "flask", "django")
DOMAIN = ("calendar", "content", "media", "embed", "health", "transfer")


def _layer(module: str) -> str:
    """``calpress.content.items`` -> ``content``; ``calpress.net`` -> ``net``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST, module: str, *, is_package: bool) -> set[str]:
    """Absolute names of everything a module imports at run time (relative imports resolved
    against the module's package, which for a package's ``__init__`` is the package itself)."""
    package = module if is_package else module.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    prefix = ".".join(base)
                    if child.module:
                        found.add(f"{prefix}.{child.module}")
                    else:
                        found.update(f"{prefix}.{alias.name}" for alias in child.names)
                else:
                    found.add(child.module or "")
            visit(child)

    visit(tree)
    return found


def _modules() -> dict[str, set[str]]:
    modules: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        modules[name] = _runtime_imports(ast.parse(path.read_text()), name, is_package=is_package)
    return modules


MODULES = _modules()


def _imports_of(layer: str) -> list[tuple[str, str]]:
    return [(module, imported) for module, found in MODULES.items() if _layer(module) == layer for imported in found]


def _calpress_layers(imports: list[tuple[str, str]]) -> set[tuple[str, str]]:
    return {(module, imported) for module, imported in imports if imported.startswith("calpress")}


def _calpress_graph() -> dict[str, set[str]]:
    """Each calpress module to the calpress modules it imports: ``from pkg import name`` counts as
    ``pkg.name`` when that is a module, else as ``pkg``."""
    graph: dict[str, set[str]] = {}
    for module, found in MODULES.items():
        targets = {name if name in MODULES else name.rsplit(".", 1)[0] for name in found}
        graph[module] = {target for target in targets if target in MODULES and target != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative):
    every import circle, each as its sorted modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_imports_are_read_as_python_resolves_them() -> None:
    # A relative import in a module and in a package's __init__, and a TYPE_CHECKING one left out.
    assert "calpress.rest.errors" in MODULES["calpress.rest.server"]
    assert "calpress.content.rendering.blocks" in MODULES["calpress.content.rendering"]
    assert "calpress.app" not in MODULES["calpress.pages.auth"]


@pytest.mark.parametrize(
    ("layer", "allowed"),
    [
        # lane.py (the write lane's turn, which slow work leaves) sits beside config.py at the
        # bottom: it imports nothing of calpress.
        ("lane", {"lane"}),
        ("compat", {"compat"}),
        ("store", {"store"}),
        ("net", {"net", "config", "lane"}),
        ("mail", {"mail", "config", "lane"}),
        ("rest", {"rest", "compat"}),
        ("auth", {"auth", "rest", "store", "compat", "config", "lane"}),
    ],
)
def test_the_lower_layers_import_nothing_above_them(layer: str, allowed: set[str]) -> None:
    wrong = sorted(
        (module, imported)
        for module, imported in _calpress_layers(_imports_of(layer))
        if _layer(imported) not in allowed
    )
    assert wrong == [], f"{layer}/ imports above itself"


@pytest.mark.parametrize("layer", DOMAIN)
def test_the_domain_imports_no_web_framework_and_nothing_above_it(layer: str) -> None:
    imports = _imports_of(layer)
    frameworks = sorted((m, i) for m, i in imports if i.split(".")[0] in WEB_FRAMEWORKS)
    assert frameworks == []
    # The command line (the cli package) sits with the app.
    above = sorted((m, i) for m, i in _calpress_layers(imports) if _layer(i) in ("api", "pages", "app", "cli"))
    assert above == []


def test_content_knows_nothing_of_the_calendar() -> None:
    assert sorted((m, i) for m, i in _calpress_layers(_imports_of("content")) if _layer(i) == "calendar") == []
    # Nor does it name the calendar's types, statuses or meta keys (the calendar registers them).
    for path in (PACKAGE / "content").rglob("*.py"):
        code = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        for name in ("cal_events", "cal_venue", "cal_organizer", "cal-ea-", "_EventStartDate", "_VenueAddress"):
            assert f'"{name}' not in code, (path, name)


@pytest.mark.parametrize("layer", ["api", "pages"])
def test_handlers_and_pages_build_no_sql(layer: str) -> None:
    wrong = sorted(
        (module, imported)
        for module, imported in _imports_of(layer)
        if imported.split(".")[0] == "sqlalchemy" or imported.startswith("calpress.store")
    )
    assert wrong == []


def test_only_net_sends_outbound_requests() -> None:
    senders = ("urllib.request", "http.client", "httpx", "httpcore", "requests", "aiohttp", "socket", "smtplib")
    wrong = sorted(
        (module, imported)
        for module, found in MODULES.items()
        for imported in found
        if module not in ("calpress.net", "calpress.net.transport") and imported in senders
        # serve binds (never connects) a socket to see whether its port is taken
        and (module, imported) != ("calpress.cli.site", "socket")
        # mail goes to the operator's SMTP server (CALPRESS_SMTP_URL), from mail.py alone
        and (module, imported) != ("calpress.mail", "smtplib")
    )
    assert wrong == []


def test_the_http_machinery_loads_on_first_use() -> None:
    """httpx and TLS cost every worker about 75 ms and 10 MB to import; a site that never fetches
    a URL does not load them, nor smtplib before a mail is sent (a fresh interpreter: this one has
    them from other tests)."""
    import subprocess
    import sys

    code = (
        "import sys, calpress.app, calpress.cli, calpress.net;"
        "print(sorted(m for m in ('httpx', 'httpcore', 'calpress.net.transport', 'smtplib') if m in sys.modules))"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert found == "[]"


def test_the_cycle_finder_finds_circles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": set(), "g": {"g"}}
    assert sorted(_cycles(graph)) == [["a", "b", "c"], ["d", "e"]]


def test_no_module_imports_itself_in_a_circle() -> None:
    """No import circle among calpress modules, counting imports anywhere in a module (a late import
    inside a function is still a dependency) but not type hints under TYPE_CHECKING. A circle is
    broken by moving the shared piece down, or by a hook the lower module calls up through."""
    circles = _cycles(_calpress_graph())
    assert circles == [], "import circles among: " + "; ".join(", ".join(cycle) for cycle in circles)


@pytest.mark.parametrize(
    "package", ["calpress.api", "calpress.pages", "calpress.calendar", "calpress.content", "calpress.media", "calpress.cli"]
)
def test_the_packages_have_no_import_circle(package: str) -> None:
    def within(module: str) -> bool:
        return module == package or module.startswith(package + ".")

    inside = {m: {i for i in deps if within(i)} for m, deps in _calpress_graph().items() if within(m)}
    circles = _cycles(inside)
    assert circles == [], f"import circles in {package} among: " + "; ".join(", ".join(cycle) for cycle in circles)
