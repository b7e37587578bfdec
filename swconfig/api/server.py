"""Serving the WSGI application with cheroot (as Ironic does), for
swconfig-api and swconfig-all. Production may use uWSGI/gunicorn instead,
with swconfig.api.wsgi:application."""

import threading
from typing import Any

from cheroot import wsgi
from oslo_log import log
from oslo_service import service

from swconfig.conf import CONF

LOG = log.getLogger(__name__)


class WSGIService(service.ServiceBase):
    """One listening socket served by a pool of request threads.

    With several worker processes each binds the port with SO_REUSEPORT,
    so the kernel spreads connections over them.
    """

    def __init__(self, app: Any, host: str, port: int, threads: int,
                 reuse_port: bool = False) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.threads = threads
        self.reuse_port = reuse_port
        self.server: wsgi.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self.server = wsgi.Server((self.host, self.port), self.app,
                                  numthreads=self.threads,
                                  server_name='swconfig-api',
                                  request_queue_size=CONF.api.backlog,
                                  reuse_port=self.reuse_port)
        # cheroot keeps 10 idle keep-alive connections by default and
        # closes the others after each response: with more pollers than
        # that, every request paid a reconnect.
        self.server.keep_alive_conn_limit = CONF.api.max_keepalive_connections
        self.server.prepare()
        self.port = self.server.bind_addr[1]
        LOG.info('API listening on http://%s:%s/', self.host, self.port)
        self._thread = threading.Thread(target=self.server.serve,
                                        name='wsgi-server', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def reset(self) -> None:
        """Nothing to reload: options are read per request."""
