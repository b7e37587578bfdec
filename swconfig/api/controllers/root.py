"""The root of the API: version documents and the /v1 tree."""

import pecan

from swconfig.api import versions
from swconfig.api.controllers.v1 import root as v1_root


class RootController:
    v1 = v1_root.V1Controller()

    @pecan.expose(generic=True, template='json')
    def index(self) -> dict:
        host_url = pecan.request.host_url
        return {'versions': [versions.version_document(host_url)]}
