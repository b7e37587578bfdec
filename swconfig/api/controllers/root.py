"""The root of the API: version documents and the /v1 tree."""

import pecan

from swconfig.api.controllers.v1 import root as v1_root
from swconfig.api import versions


class RootController:
    v1 = v1_root.V1Controller()

    @pecan.expose(generic=True, template='json')
    def index(self) -> dict:
        return {'versions': [versions.version_document(pecan.request.host_url)]}
