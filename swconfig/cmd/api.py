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

"""swconfig-api: serve the REST API (granian, [api] workers processes)."""

import sys

from swconfig.cmd import startup
from swconfig.common import process
from swconfig.conf import CONF

DESCRIPTION = (
    'The REST API and the agents\' signed URLs, on http://127.0.0.1:8004 '
    'by default ([api] bind_host, bind_port), in [api] workers processes. '
    'It reads and writes the database of [database] connection and calls '
    'the engines over the message bus of [DEFAULT] transport_url.')


def _serve() -> None:
    process.init_process(sys.argv, description=DESCRIPTION)
    from oslo_service import service

    from swconfig import transports
    from swconfig.api import app
    from swconfig.api import server

    # The API answers for the transports too (health, client-derived
    # TempURLs): refuse a default whose option group is missing, as the
    # engines do.
    transports.check_defaults(CONF.default_deployment_signal_transport,
                              CONF.default_software_config_transport)
    workers = CONF.api.workers
    wsgi_service = server.WSGIService(
        app.setup_app(), CONF.api.bind_host, CONF.api.bind_port,
        CONF.api.threads, reuse_port=workers > 1)
    # In this process, before the workers: a port in use fails once.
    wsgi_service.bind()
    launcher = service.launch(CONF, wsgi_service, workers=workers,
                              restart_method='mutate')
    sys.exit(launcher.wait())


def main() -> None:
    startup.run(_serve)
