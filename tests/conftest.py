"""Shared fixtures for the test suite.

Database fixtures (``db_leg``, ``db_url``, ``empty_db_url``, ``engine``) and the per-leg
summary live in ``tests/dbfixtures.py``, loaded here as a plugin.
"""

# ---- database (owned by the storage layer; see tests/dbfixtures.py) -----------------------------
pytest_plugins = ["dbfixtures", "appfixtures", "clifixtures", "s3fixtures"]

# ---- application fixtures -----------------------------------------------------------------------
