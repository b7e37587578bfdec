"""What every swconfig process does first: options, backend, logging, RPC.

Used by the console scripts (``swconfig.cmd``) and by the WSGI entry point
(``swconfig.api.wsgi``). The concurrency backend must be chosen before
oslo.service's service module is loaded (and, for eventlet, before
anything creates threads), so ``init_process`` runs before the service
modules are imported.
"""

from oslo_log import log

from swconfig.common import config
from swconfig.conf import CONF

LOG = log.getLogger(__name__)


def _init_backend() -> None:
    from oslo_service import backend

    if CONF.service_backend == 'eventlet':
        import eventlet
        eventlet.monkey_patch()
        backend.init_backend(backend.BackendType.EVENTLET)
    else:
        backend.init_backend(backend.BackendType.THREADING)


def init_process(argv: list[str],
                 default_config_files: list[str] | None = None,
                 default_transport_url: str | None = None) -> None:
    """Parse options, choose the backend, set up logging and messaging."""
    config.parse_args(argv, default_config_files)
    _init_backend()
    log.setup(CONF, 'swconfig')
    # oslo.messaging is imported only now, after the backend is chosen.
    from swconfig.common import rpc
    rpc.init(CONF, default_url=default_transport_url)
    CONF.log_opt_values(LOG, log.DEBUG)
