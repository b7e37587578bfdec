"""swconfig-engine: serve the engine RPC API."""

import sys

from swconfig.cmd import bootstrap
from swconfig.conf import CONF


def main() -> None:
    bootstrap.init_process(sys.argv)
    from oslo_service import service

    from swconfig.engine import service as engine_service

    launcher = service.launch(CONF, engine_service.EngineService(),
                              restart_method='mutate')
    sys.exit(launcher.wait())
