# Copyright 2026 swconfig developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""swconfig-all: API and engine in one process, the embedded default.

With no configuration at all it serves http://127.0.0.1:8004 with noauth,
a SQLite database in ``state_path`` (schema created or upgraded at start)
and oslo.messaging's in-process transport: nothing else to install.
"""

import logging
import sys

from oslo_log import log

from swconfig.cmd import startup
from swconfig.common import process
from swconfig.conf import CONF

DESCRIPTION = (
    'The REST API and an engine in one process, the embedded default. It '
    'listens on http://127.0.0.1:8004 ([api] bind_host, bind_port), keeps '
    'its data in a SQLite file in [DEFAULT] state_path '
    '(~/.local/share/swconfig/swconfig.sqlite, schema created or upgraded '
    'at start; [database] connection for another database) and the '
    'generated signing key beside it, and uses an in-process message bus '
    'and noauth unless [DEFAULT] transport_url and auth_strategy say '
    'otherwise.')

LOG = log.getLogger(__name__)


def quiet_migrations() -> None:
    """Keep alembic to warnings while the schema is created or upgraded:
    its INFO lines (a dozen on a first start, one per migration) flooded
    the terminal of a first ``serve``, and the one line logged after the
    upgrade says where the database is. ``debug = True``, or alembic
    named in ``default_log_levels``, keeps them."""
    named = any(item.split('=', 1)[0].strip().startswith('alembic')
                for item in CONF.default_log_levels or [])
    if not (CONF.debug or named):
        logging.getLogger('alembic').setLevel(logging.WARNING)


def _serve() -> None:
    CONF.set_default('auth_strategy', 'noauth')
    CONF.set_default('generate_signing_key', True, group='agent')
    process.init_process(sys.argv, default_transport_url='fake://',
                         description=DESCRIPTION)
    # Before alembic is imported: it logs as it loads its plugins.
    quiet_migrations()
    from oslo_service import service

    from swconfig.api import app
    from swconfig.api import server
    from swconfig.common import config
    from swconfig.common import database_url
    from swconfig.common import service_group
    from swconfig.db import migration
    from swconfig.engine import service as engine_service

    config.ensure_state_path()
    database_url.ensure_sqlite_directory()
    migration.upgrade('head')
    LOG.info('Database %s at schema revision %s',
             CONF.database.connection, migration.version())
    # Here, not in the worker process the launcher would restart for ever.
    engine_service.check_config()
    wsgi_service = server.WSGIService(app.setup_app(), CONF.api.bind_host,
                                      CONF.api.bind_port, CONF.api.threads)
    wsgi_service.bind()
    services = service_group.ServiceGroup([
        engine_service.EngineService(), wsgi_service])
    launcher = service.launch(CONF, services, workers=1,
                              restart_method='mutate')
    sys.exit(launcher.wait())


def main() -> None:
    startup.run(_serve)
