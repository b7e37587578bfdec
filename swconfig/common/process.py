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

"""What every swconfig process does first: options, backend, logging, RPC.

Used by the console scripts (``swconfig.cmd``) and by the WSGI entry point
(``swconfig.api.wsgi``). The concurrency backend must be chosen before
oslo.service's service module is loaded (and, for eventlet, before
anything creates threads), so ``init_process`` runs before the service
modules are imported.
"""

import os
import warnings

from oslo_log import log

from swconfig.common import config
from swconfig.common import database_url
from swconfig.conf import CONF

LOG = log.getLogger(__name__)


def _init_backend() -> None:
    from oslo_service import backend

    if CONF.service_backend == 'eventlet':
        import eventlet
        eventlet.monkey_patch()
        backend.init_backend(backend.BackendType.EVENTLET)
    else:
        # The libraries import eventlet only to see whether it is there;
        # its deprecation notice (eight lines on stderr) is not for us,
        # nor its green DNS resolver, whose loading (dnspython) took a
        # tenth of every process's start-up.
        warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
        os.environ.setdefault('EVENTLET_NO_GREENDNS', 'yes')
        backend.init_backend(backend.BackendType.THREADING)


def init_process(argv: list[str],
                 default_config_files: list[str] | None = None,
                 default_transport_url: str | None = None,
                 description: str | None = None) -> None:
    """Parse options, choose the backend, set up logging and messaging.

    A bad value of any option registered by then, or a ``[database]
    connection`` with an unknown dialect or driver, raises here, not at
    the first request that reads it; options nothing reads are logged as
    warnings.
    """
    config.parse_args(argv, default_config_files, description=description)
    _init_backend()
    log.setup(CONF, 'swconfig')
    # oslo.messaging is imported only now, after the backend is chosen.
    from swconfig.common import rpc
    rpc.init(CONF, default_url=default_transport_url)
    config.check_values(CONF)
    database_url.check(CONF)
    config.warn_unknown_options(CONF)
    CONF.log_opt_values(LOG, log.DEBUG)
