"""The workspace tests' fixtures (admin_support.py; a module of its own name, since every test
folder's conftest is imported as ``conftest``)."""

from admin_support import as_role  # noqa: F401 - the fixture
