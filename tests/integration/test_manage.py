"""swconfig-manage db sync / db version, run as the real console script on
SQLite (the embedded default, inside state_path), MariaDB and PostgreSQL."""

import contextlib
import subprocess

import pytest

from swconfig.common import config
from swconfig.db import migration
from tests.fixtures import processes
from tests.fixtures import services

BACKENDS = ('sqlite', 'mysql', 'postgresql')


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def state_path(tmp_path):
    return tmp_path / 'state'  # not there yet: swconfig-manage creates it


@pytest.fixture
def config_file(backend, state_path, tmp_path):
    """A config file per backend; SQLite is left to the default."""
    sections = {'DEFAULT': {'state_path': state_path}}
    with contextlib.ExitStack() as stack:
        if backend != 'sqlite':
            url = stack.enter_context(services.scratch_database(backend))
            sections['database'] = {'connection': url}
        yield processes.write_config(str(tmp_path / 'swconfig.conf'),
                                     sections)


def manage(config_file: str, *args: str) -> str:
    result = subprocess.run(
        [processes.script('swconfig-manage'), '--config-file', config_file,
         *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


def test_db_sync_then_version_prints_head(backend, state_path, config_file):
    head = migration.heads()[0]
    assert manage(config_file, 'db', 'version') == 'None (empty database)'
    assert manage(config_file, 'db', 'sync') == (
        f'Database is at revision {head}')
    assert manage(config_file, 'db', 'version') == head
    sqlite_file = state_path / config.SQLITE_FILE
    assert sqlite_file.is_file() == (backend == 'sqlite')
