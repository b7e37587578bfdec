"""/v1/{tenant_id}/servers/{server_id}/agent-config: agent bootstrap."""

import pecan

from swconfig.api.controllers.v1 import access


class ServerController:
    def __init__(self, server_id: str) -> None:
        self.server_id = server_id

    @pecan.expose(generic=True, template='json')
    def agent_config(self) -> dict:
        """The os-collect-config settings and a ready os-collect-config.conf
        for cloud-init user data. The first call claims the server for the
        caller's project (its signed URL is a credential)."""
        context = access.authorize('servers:agent_config')
        return pecan.request.engine.get_agent_config(
            context, self.server_id, base_url=pecan.request.application_url)


pecan.route(ServerController, 'agent-config', ServerController.agent_config)


class ServersController:
    @pecan.expose()
    def _lookup(self, server_id: str, *remainder: str) -> tuple:
        return ServerController(server_id), remainder
