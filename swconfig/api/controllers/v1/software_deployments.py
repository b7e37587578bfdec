"""/v1/{tenant_id}/software_deployments, its metadata and events."""

import pecan

from swconfig.api import body
from swconfig.api import views
from swconfig.api.controllers import base
from swconfig.api.controllers.v1 import access
from swconfig.api.controllers.v1 import params
from swconfig.api.schemas.v1 import software_deployments as schemas
from swconfig.common import exception
from swconfig.db import api as db_api


class ServerMetadataController(base.RestController):
    """GET .../software_deployments/metadata/{server_id}."""

    @pecan.expose('json')
    def get_one(self, server_id: str) -> dict:
        context = access.authorize('software_deployments:metadata')
        rows = db_api.server_metadata_get(context, server_id)
        if not rows:
            access.check_server_not_foreign(context, server_id)
        return {'metadata': views.metadata(rows)}

    @pecan.expose('json')
    def get_all(self, **_query: str) -> dict:
        # As in Heat, ".../metadata" alone is a deployment named metadata.
        access.authorize('software_deployments:show')
        raise exception.DeploymentNotFound(deployment_id='metadata')


class DeploymentEventsController(base.RestController):
    """GET .../software_deployments/{deployment_id}/events."""

    @pecan.expose('json')
    def get_all(self, deployment_id: str, **_query: str) -> dict:
        context = access.authorize('software_deployments:show')
        rows = db_api.software_deployment_event_get_all(context,
                                                        deployment_id)
        return {'events': [views.event(row) for row in rows]}


class SoftwareDeploymentsController(base.RestController):
    metadata = ServerMetadataController()
    events = DeploymentEventsController()
    _custom_actions = {'signal': ['POST']}

    @pecan.expose('json')
    def get_all(self, **_query: str) -> dict:
        context = access.authorize('software_deployments:index')
        server_id = params.get('server_id') or None
        rows = db_api.software_deployment_get_all(context,
                                                  server_id=server_id)
        if server_id and not rows:
            access.check_server_not_foreign(context, server_id)
        return {'software_deployments': [views.deployment(row)
                                         for row in rows]}

    @pecan.expose('json')
    def get_one(self, deployment_id: str) -> dict:
        context = access.authorize('software_deployments:show')
        row = db_api.software_deployment_get(context, deployment_id)
        return {'software_deployment': views.deployment(row)}

    @pecan.expose('json')
    def post(self) -> dict:
        context = access.authorize('software_deployments:create')
        document = body.load(pecan.request, schemas.CREATE)
        row = pecan.request.engine.create_software_deployment(
            context, server_id=document['server_id'],
            config_id=document.get('config_id'),
            input_values=document.get('input_values'),
            action=document.get('action'), status=document.get('status'),
            status_reason=document.get('status_reason'),
            stack_user_project_id=document.get('stack_user_project_id'),
            signal_transport=document.get('signal_transport'),
            name=document.get('name'), timeout=document.get('timeout'),
            base_url=pecan.request.application_url)
        return {'software_deployment': views.deployment(row)}

    @pecan.expose('json')
    def post_signal(self, deployment_id: str) -> dict:
        """An API user signals the current action of a deployment, with
        the same semantics as the agent's signed URL."""
        context = access.authorize('software_deployments:signal')
        payload = body.read_json(pecan.request)
        deployment = db_api.software_deployment_get(context, deployment_id)
        inbox_id = db_api.signal_inbox_add(context, deployment_id,
                                           deployment['action_revision'],
                                           payload)
        pecan.request.engine.process_signal(context, inbox_id)
        return {'signal': inbox_id}

    @pecan.expose('json')
    def put(self, deployment_id: str) -> dict:
        context = access.authorize('software_deployments:update')
        document = body.load(pecan.request, schemas.UPDATE)
        values = {key: document.get(key) for key in schemas.UPDATE[
            'properties']}
        row = pecan.request.engine.update_software_deployment(
            context, deployment_id, values)
        return {'software_deployment': views.deployment(row)}

    @pecan.expose(content_type='application/json')
    def delete(self, deployment_id: str) -> None:
        context = access.authorize('software_deployments:delete')
        pecan.request.engine.delete_software_deployment(context,
                                                        deployment_id)
        pecan.response.status = 204
