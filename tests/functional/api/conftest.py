"""The API scenario suite runs once per backend: in-process on SQLite, and
as separate API/engine processes over RabbitMQ on MariaDB and PostgreSQL.
"""

import pytest

from tests.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def api(request):
    if request.param == 'sqlite':
        return request.getfixturevalue('inprocess_stack')
    client, _api_process, _engine_process = request.getfixturevalue(
        f'{request.param}_stack')
    return client
