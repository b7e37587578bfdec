"""The real database backends a DB test runs on (none is ever skipped:
MariaDB and PostgreSQL are started if down), with the ``facade`` fixture
of ``conftest``: a fresh, migrated database per test."""

import pytest

BACKENDS = ('sqlite', 'mysql', 'postgresql')

on_every_backend = pytest.mark.parametrize('facade', BACKENDS,
                                           indirect=True)
