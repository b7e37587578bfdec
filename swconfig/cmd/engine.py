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

"""swconfig-engine: serve the engine RPC API."""

import sys

from swconfig.cmd import startup
from swconfig.common import process
from swconfig.conf import CONF

DESCRIPTION = (
    'An engine: serves the API\'s calls on the message bus of [DEFAULT] '
    'transport_url (topic [engine] topic), applies the agents\' signals '
    'and fails timed-out deployments, in the database of [database] '
    'connection. It listens on no port; run as many as you need.')


def _serve() -> None:
    process.init_process(sys.argv, description=DESCRIPTION)
    from oslo_service import service

    from swconfig.engine import service as engine_service

    # Here, not in the worker process the launcher would restart for ever.
    engine_service.check_config()
    launcher = service.launch(CONF, engine_service.EngineService(),
                              restart_method='mutate')
    sys.exit(launcher.wait())


def main() -> None:
    startup.run(_serve)
