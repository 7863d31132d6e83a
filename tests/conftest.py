"""Shared fixtures for the test suite.

Database fixtures (``db_leg``, ``db_url``, ``empty_db_url``, ``engine``) and the per-leg
summary live in ``tests/dbfixtures.py``, loaded here as a plugin.
"""

import os
import tempfile
from pathlib import Path

# ---- database (owned by the storage layer; see tests/dbfixtures.py) -----------------------------
pytest_plugins = ["dbfixtures", "appfixtures", "clifixtures", "s3fixtures"]


# ---- child processes keep their bytecode --------------------------------------------------------


def pytest_configure(config):
    """Where the suite was told not to write bytecode (PYTHONDONTWRITEBYTECODE, as on the CI
    machine), every child process (``python -m calpress`` for the command-line tests, ``calpress
    serve``) would compile calpress and its libraries from source at each start: about 2 s a
    command instead of 1. The children keep their bytecode in a folder outside the tree instead,
    shared by the workers, as a normal run keeps it in ``__pycache__``. Only the environment
    children inherit changes: this process started with its own settings."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        del os.environ["PYTHONDONTWRITEBYTECODE"]
        os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / f"calpress-test-bytecode-{os.getuid()}")

# ---- application fixtures -----------------------------------------------------------------------


# ---- order: the slow tests first ----------------------------------------------------------------

# Tests that start processes (the real command line, servers, browsers, client libraries) take
# seconds each. Collected last (their files sort after the packages), they ended the run on one
# worker while the other sat idle; run first, the two workers share them (with --dist worksteal,
# which scripts/test uses, an idle worker takes tests queued for the busy one).
SLOW_FIRST = ("tests/test_cli_entry.py", "tests/e2e/", "tests/browser/", "tests/fuzz/", "tests/transfer/",
              "tests/test_cli", "tests/durability/")


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        path = item.nodeid.replace("\\", "/")
        path = path if path.startswith("tests/") else "tests/" + path
        return next((n for n, prefix in enumerate(SLOW_FIRST) if path.startswith(prefix)), len(SLOW_FIRST))

    items.sort(key=rank)  # stable: the order within each group is kept
