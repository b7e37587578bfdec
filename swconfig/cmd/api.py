"""swconfig-api: serve the REST API (cheroot, [api] workers processes)."""

import sys

from swconfig.common import process
from swconfig.conf import CONF


def main() -> None:
    process.init_process(sys.argv)
    from oslo_service import service

    from swconfig.api import app
    from swconfig.api import server

    workers = CONF.api.workers
    wsgi_service = server.WSGIService(
        app.setup_app(), CONF.api.bind_host, CONF.api.bind_port,
        CONF.api.threads, reuse_port=workers > 1)
    launcher = service.launch(CONF, wsgi_service, workers=workers,
                              restart_method='mutate')
    sys.exit(launcher.wait())
