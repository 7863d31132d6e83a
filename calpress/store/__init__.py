"""Storage: the tables (SQLAlchemy Core), their Alembic migrations, engines and transactions.

``tables`` declares the schema, ``db`` builds engines and runs migrations, ``options`` reads and
writes site options. Everything above this package talks to the database through these modules.
"""
