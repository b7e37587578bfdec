"""swconfig-engine: serve the engine RPC API."""

import sys

from swconfig.common import process
from swconfig.conf import CONF


def main() -> None:
    process.init_process(sys.argv)
    from oslo_service import service

    from swconfig.engine import service as engine_service

    launcher = service.launch(CONF, engine_service.EngineService(),
                              restart_method='mutate')
    sys.exit(launcher.wait())
