# Copyright 2026 swconfig developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""A running Heat's software configs and deployments, read from its
database (read only), as projects of an export document
(``project_transfer``): ``swconfig-manage heat-import`` and
``heat-verify``.

Heat keeps configs (derived ones too: their inputs carry the signal
settings) and deployments in its ``software_config`` and
``software_deployment`` tables; what a server's agent polls is built
from them, ordered by config name. Ids are kept, so an agent that
switches to swconfig finds the config ids it has already run and runs
none of them again.

Heat writes a stack user's password (``deploy_password``, for the
HEAT_SIGNAL and ZAQAR_SIGNAL transports) into derived configs in clear.
swconfig never stores it: a deployment that has finished no longer
needs it (its agent never runs it again), so it is dropped; a
deployment still IN_PROGRESS with one is left for a later run, once it
has finished, and listed.
"""

import dataclasses
import json
from typing import Any

import sqlalchemy as sa

from swconfig.common import context as swconfig_context
from swconfig.common import states
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import project_transfer

HEAT_TABLES = sa.MetaData()
# The columns of Heat's tables that the import reads (Heat 2015.1 and
# later: none of them has changed since).
CONFIG_TABLE = sa.Table(
    'software_config', HEAT_TABLES, sa.Column('id', sa.String(36)),
    sa.Column('name', sa.String(255)), sa.Column('group', sa.String(255)),
    sa.Column('config', sa.Text), sa.Column('tenant', sa.String(64)),
    sa.Column('created_at', sa.DateTime))
DEPLOYMENT_TABLE = sa.Table(
    'software_deployment', HEAT_TABLES, sa.Column('id', sa.String(36)),
    sa.Column('config_id', sa.String(36)),
    sa.Column('server_id', sa.String(36)),
    sa.Column('input_values', sa.Text), sa.Column('output_values', sa.Text),
    sa.Column('action', sa.String(255)), sa.Column('status', sa.String(255)),
    sa.Column('status_reason', sa.Text), sa.Column('tenant', sa.String(64)),
    sa.Column('stack_user_project_id', sa.String(64)),
    sa.Column('created_at', sa.DateTime),
    sa.Column('updated_at', sa.DateTime))
RESOURCE_TABLE = sa.Table(
    'resource', HEAT_TABLES, sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('nova_instance', sa.String(255)),
    sa.Column('rsrc_metadata', sa.Text), sa.Column('action', sa.String(255)),
    sa.Column('atomic_key', sa.Integer),
    sa.Column('rsrc_prop_data_id', sa.Integer))
RESOURCE_DATA_TABLE = sa.Table(
    'resource_data', HEAT_TABLES,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('key', sa.String(255)), sa.Column('value', sa.Text),
    sa.Column('redact', sa.Boolean), sa.Column('resource_id', sa.Integer))
PROPERTIES_TABLE = sa.Table(
    'resource_properties_data', HEAT_TABLES,
    sa.Column('id', sa.Integer, primary_key=True),
    sa.Column('data', sa.Text), sa.Column('encrypted', sa.Boolean))

#: Where ``heat-cutover`` keeps, in a server resource's metadata in
#: Heat, the os-collect-config block Heat gave the server (for
#: ``--revert``) while the block itself points the agent at swconfig.
SAVED_BLOCK = 'swconfig-cutover'
#: Inputs of a derived config that hold a stack user's password.
SECRET_INPUTS = frozenset({'deploy_password'})
#: Heat's signal transports that swconfig has under the same name.
SIGNAL_TRANSPORTS = frozenset({'HEAT_SIGNAL', 'TEMP_URL_SIGNAL',
                               'ZAQAR_SIGNAL', 'NO_SIGNAL'})
#: os-collect-config collector -> Heat's software_config_transport.
_TRANSPORTS = {'heat': 'POLL_SERVER_HEAT', 'cfn': 'POLL_SERVER_CFN',
               'request': 'POLL_TEMP_URL', 'zaqar': 'ZAQAR_MESSAGE'}


@dataclasses.dataclass
class Inventory:
    """What Heat holds, per project: ``projects`` as an export document
    has them; ``deferred`` (project -> [(deployment id, status)]) the
    deployments left for a later run; ``transports`` (project ->
    transport -> server ids) how each server's agent polls Heat today;
    ``heat_order`` (server id -> config ids) the deployments each
    server's agent reads from Heat, in Heat's order."""

    projects: list[dict]
    deferred: dict[str, list[tuple[str, str]]]
    transports: dict[str, dict[str, list[str]]]
    heat_order: dict[str, list[str]]


def json_value(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _secret_inputs(config: dict) -> bool:
    """Whether a config's inputs hold a stack user's password."""
    return any(item.get('name') in SECRET_INPUTS and item.get('value')
               for item in config.get('inputs') or [])


def _without_secrets(inputs: list[dict]) -> list[dict]:
    return [{**item, 'value': None} if item.get('name') in SECRET_INPUTS
            else item for item in inputs]


def transport_of(metadata: dict | None) -> str:
    """The metadata transport of a server's agent, from the
    os-collect-config block Heat gave it (kept aside once the server is
    cut over to swconfig)."""
    metadata = metadata or {}
    block = metadata.get(SAVED_BLOCK) or metadata.get(
        'os-collect-config') or {}
    for collector in block.get('collectors') or sorted(block):
        if collector in _TRANSPORTS:
            return _TRANSPORTS[collector]
    return 'unknown'


def read(heat_url: str, projects: list[str] | None = None) -> Inventory:
    """Read Heat's database at ``heat_url`` (an SQLAlchemy URL); only the
    projects named, when given."""
    engine = sa.create_engine(heat_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            config_query = sa.select(CONFIG_TABLE)
            deployment_query = sa.select(DEPLOYMENT_TABLE).order_by(
                DEPLOYMENT_TABLE.c.created_at, DEPLOYMENT_TABLE.c.id)
            if projects is not None:
                # Only their rows: a big Heat need not be read whole.
                config_query = config_query.where(
                    CONFIG_TABLE.c.tenant.in_(projects))
                deployment_query = deployment_query.where(
                    DEPLOYMENT_TABLE.c.tenant.in_(projects))
            configs = {row.id: row for row in connection.execute(
                config_query)}
            deployments = list(connection.execute(deployment_query))
            resources = RESOURCE_TABLE
            metadata = {row.nova_instance: json_value(row.rsrc_metadata)
                        for row in connection.execute(sa.select(
                            resources).where(
                                resources.c.nova_instance.is_not(None)))}
            sources = _sources(connection)
    finally:
        engine.dispose()
    return _inventory(configs, deployments, metadata, sources, projects)


def _sources(connection: sa.Connection) -> dict[str, str]:
    """Deployment id -> the config its Heat resource deploys (the
    ``config`` property), for deployments a stack made. Heat derives the
    deployment's config from it on the client side and keeps no link in
    the deployment; swconfig needs it to derive the config again when
    the stack, managed through the ``OS::Swconfig::`` types, changes.
    Properties Heat stores encrypted (heat.conf
    ``encrypt_parameters_and_properties``) are not read."""
    resources, properties = RESOURCE_TABLE, PROPERTIES_TABLE
    found = {}
    for deployment_id, data in connection.execute(
            sa.select(resources.c.nova_instance, properties.c.data).join(
                properties, properties.c.id == resources.c.rsrc_prop_data_id)
            .where(resources.c.nova_instance.is_not(None),
                   sa.or_(properties.c.encrypted.is_(None),
                          properties.c.encrypted.is_(False)))):
        config = (json_value(data) or {}).get('config')
        if isinstance(config, str):
            found[deployment_id] = config
    return found


def _inventory(configs: dict, deployments: list, metadata: dict,
               sources: dict[str, str],
               projects: list[str] | None) -> Inventory:
    bodies = {config_id: json_value(row.config) or {}
              for config_id, row in configs.items()}
    heat_order: dict[str, list] = {}
    for row in deployments:
        if row.config_id in configs:
            heat_order.setdefault(row.server_id, []).append(row)
    # Heat: the server's deployments (oldest first), sorted by the name
    # of their config (a stable sort).
    order = {server_id: [row.config_id for row in sorted(
        rows, key=lambda row: configs[row.config_id].name or '')]
        for server_id, rows in heat_order.items()}
    if projects is None:
        tenants = sorted({row.tenant for row in configs.values()}
                         | {row.tenant for row in deployments})
    else:
        tenants = sorted(projects)
    inventory = Inventory([], {}, {}, order)
    for tenant in tenants:
        mine = [row for row in deployments if row.tenant == tenant]
        deferred = [row for row in mine if row.status == states.IN_PROGRESS
                    and _secret_inputs(bodies.get(row.config_id, {}))]
        later = {row.id for row in deferred}
        taken = [row for row in mine if row.id not in later]
        held_back = {row.config_id for row in deferred} - {
            row.config_id for row in taken}
        project_configs = [
            _config_row(row, bodies[row.id]) for row in configs.values()
            if row.tenant == tenant and row.id not in held_back]
        servers = {}
        for row in taken:
            servers.setdefault(row.server_id, row.created_at)
        inventory.projects.append({
            'project_id': tenant,
            'software_configs': project_configs,
            'software_deployments': [
                _deployment_row(row, bodies, sources.get(row.id))
                for row in taken],
            'servers': [_server_row(server_id, created)
                        for server_id, created in servers.items()]})
        inventory.deferred[tenant] = [(row.id, row.status)
                                      for row in deferred]
        by_transport: dict[str, list[str]] = {}
        for server_id in {row.server_id for row in mine}:
            by_transport.setdefault(transport_of(metadata.get(server_id)),
                                    []).append(server_id)
        inventory.transports[tenant] = {
            name: sorted(ids) for name, ids in sorted(by_transport.items())}
    return inventory


def _config_row(row: Any, body: dict) -> dict:
    return {'id': row.id, 'name': row.name, 'group': row.group,
            'config': body.get('config'),
            'inputs': _without_secrets(body.get('inputs') or []),
            'outputs': body.get('outputs') or [],
            'options': body.get('options'),
            'created_at': project_transfer.time_text(row.created_at)}


def _deployment_row(row: Any, bodies: dict, source: str | None) -> dict:
    """A deployment as swconfig keeps it; one a stack made (its source
    config known) as one swconfig derives, with the signal transport its
    derived config names (swconfig's default for CFN_SIGNAL, which it has
    not), so that an update through swconfig derives the config again as
    Heat would have.

    Except a TEMP_URL_SIGNAL deployment still running: its agent signals
    to an object Heat made in the user's Swift account, which swconfig's
    engines do not watch. Kept as one the client derived, it is read when
    the user shows it, as heatclient's are (``transports.poll_on_show``),
    so its signal reaches swconfig too; a run after it finished makes it
    derivable again."""
    inputs = {item.get('name'): item.get('value') for item in
              bodies.get(row.config_id, {}).get('inputs') or []}
    transport = inputs.get('deploy_signal_transport')
    signals_to_heats_object = (row.status == states.IN_PROGRESS
                               and transport == 'TEMP_URL_SIGNAL')
    derived = (source is not None and source in bodies
               and not signals_to_heats_object)
    return {'id': row.id, 'config_id': row.config_id,
            'source_config_id': source if derived else None,
            'signal_transport': None if not derived else (
                transport if transport in SIGNAL_TRANSPORTS
                else CONF.default_deployment_signal_transport),
            'server_id': row.server_id,
            'input_values': json_value(row.input_values),
            'output_values': json_value(row.output_values),
            'stack_user_project_id': row.stack_user_project_id,
            'action': row.action, 'status': row.status,
            'status_reason': row.status_reason,
            'created_at': project_transfer.time_text(row.created_at),
            'updated_at': project_transfer.time_text(row.updated_at)}


def _server_row(server_id: str, created: Any) -> dict:
    """A server as its agent's first deployment made it; swconfig's
    signed URL serves it once the server is cut over."""
    return {'id': server_id, 'document_revision': 0, 'token_revision': 1,
            'created_at': project_transfer.time_text(created),
            'updated_at': project_transfer.time_text(created)}


def document(inventory: Inventory) -> dict:
    """The inventory's projects as an export document."""
    return {'format': project_transfer.FORMAT,
            'version': project_transfer.VERSION,
            'projects': inventory.projects}


@dataclasses.dataclass
class Comparison:
    """One server: the config ids its agent reads from Heat and from
    swconfig (None: swconfig does not have the server), in order."""

    server_id: str
    heat: list[str]
    swconfig: list[str] | None

    @property
    def equal(self) -> bool:
        return self.heat == self.swconfig


def verify(inventory: Inventory) -> list[Comparison]:
    """Every server of the inventory's projects, Heat's document against
    swconfig's: the same deployments, by config id, in the same order."""
    admin = swconfig_context.get_admin_context()
    servers = sorted({server_id
                      for by_transport in inventory.transports.values()
                      for server_ids in by_transport.values()
                      for server_id in server_ids})
    found = []
    for server_id in servers:
        text = db_api.server_document_get(admin, server_id)
        ids = None if text is None else [
            entry['id'] for entry in json.loads(text)['deployments']]
        found.append(Comparison(server_id,
                                inventory.heat_order.get(server_id, []), ids))
    return found
