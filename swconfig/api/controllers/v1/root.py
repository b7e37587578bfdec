"""/v1: the version document, and the per-project tree below it."""

from typing import Any

import pecan

from swconfig.api import versions
from swconfig.api.controllers.v1 import openapi
from swconfig.api.controllers.v1 import servers
from swconfig.api.controllers.v1 import software_configs
from swconfig.api.controllers.v1 import software_deployments
from swconfig.api.controllers.v1 import validate
from swconfig.common import exception


class ProjectController:
    """Everything under /v1/{tenant_id}."""

    software_configs = software_configs.SoftwareConfigsController()
    software_deployments = software_deployments.SoftwareDeploymentsController()
    validate = validate.ValidateController()
    servers = servers.ServersController()


def scope_to_project(context: Any, tenant_id: str) -> str:
    """Heat's tenant check: admins act in their own project whatever the
    path says; anybody else must name their own project (else 403)."""
    if context.is_admin and context.project_id:
        return context.project_id
    if tenant_id != context.project_id:
        raise exception.TenantMismatch()
    return tenant_id


class V1Controller:
    @pecan.expose(generic=True, template='json')
    def index(self) -> dict:
        return {'version': versions.version_document(pecan.request.host_url)}

    @pecan.expose()
    def _lookup(self, tenant_id: str, *remainder: str) -> tuple:
        request = pecan.request
        request.tenant_id = scope_to_project(request.context, tenant_id)
        return ProjectController(), remainder


# A path segment that is not a Python name; looked up before _lookup, so
# it never reaches the tenant check.
pecan.route(V1Controller, 'openapi.json', openapi.OpenAPIController())
