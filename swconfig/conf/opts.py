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

"""The single oslo.config.opts entry point: every option swconfig reads."""

from swconfig.conf import agent
from swconfig.conf import api
from swconfig.conf import coordination
from swconfig.conf import database
from swconfig.conf import default
from swconfig.conf import engine
from swconfig.conf import middleware
from swconfig.conf import upgrade_levels

#: The libraries whose options go into swconfig's sample configuration
#: (etc/swconfig/swconfig-config-generator.conf): they are read from the
#: same files, so start-up knows their names too.
#: The namespace each installed transport lists its own options under
#: (``swconfig.transports.list_opts``); read like the libraries'.
TRANSPORT_NAMESPACE = 'swconfig.transports'
LIBRARY_NAMESPACES = (
    'oslo.log',
    'oslo.messaging',
    'oslo.policy',
    'oslo.service.service',
    'keystonemiddleware.auth_token',
)


def list_opts() -> list:
    """Return [(group, [opts])] for oslo-config-generator."""
    return [
        ('DEFAULT', default.opts + agent.default_opts),
        (agent.group, agent.agent_opts),
        (api.group, api.opts),
        (engine.group, engine.opts),
        (coordination.group, coordination.opts),
        *database.list_opts(),
        *middleware.list_opts(),
        (upgrade_levels.group, upgrade_levels.opts),
    ]
