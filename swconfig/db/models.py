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

"""SQLAlchemy models. The alembic migrations must build exactly this schema
(tests/unit/db/test_migrations.py checks it on every backend)."""

from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm

from swconfig.db import types

NAMING_CONVENTION = {
    'ix': 'ix_%(table_name)s_%(column_0_N_name)s',
    'uq': 'uq_%(table_name)s_%(column_0_N_name)s',
    'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s',
    'pk': 'pk_%(table_name)s',
}


class Base(orm.DeclarativeBase):
    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)

    def to_dict(self) -> dict[str, Any]:
        return {c.key: getattr(self, c.key)
                for c in sa.inspect(type(self)).column_attrs}


class SoftwareConfig(Base):
    """An immutable software config, owned by one project (``tenant``)."""

    __tablename__ = 'software_config'
    __table_args__ = (
        sa.Index(None, 'tenant', 'created_at'),
        sa.Index(None, 'created_at'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    name = sa.Column(sa.String(255), nullable=True)
    group = sa.Column(sa.String(255), nullable=True)
    config = sa.Column(types.Json, nullable=True)
    inputs = sa.Column(types.Json, nullable=False)
    outputs = sa.Column(types.Json, nullable=False)
    options = sa.Column(types.Json, nullable=True)
    tenant = sa.Column(sa.String(64), nullable=False)
    created_at = sa.Column(types.timestamp(), nullable=False)


class SoftwareDeployment(Base):
    """A config applied to one server; ``version`` guards every update."""

    __tablename__ = 'software_deployment'
    __table_args__ = (
        sa.Index(None, 'server_id', 'created_at'),
        sa.Index(None, 'tenant', 'created_at'),
        sa.Index(None, 'stack_user_project_id'),
        sa.Index(None, 'config_id'),
        sa.Index(None, 'source_config_id'),
        sa.Index(None, 'status', 'timeout_at'),
        sa.Index(None, 'triggered_from'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    config_id = sa.Column(sa.String(36),
                          sa.ForeignKey('software_config.id'),
                          nullable=False)
    server_id = sa.Column(sa.String(255), nullable=False)
    input_values = sa.Column(types.Json, nullable=True)
    output_values = sa.Column(types.Json, nullable=True)
    tenant = sa.Column(sa.String(64), nullable=False)
    stack_user_project_id = sa.Column(sa.String(64), nullable=True)
    action = sa.Column(sa.String(255), nullable=True)
    status = sa.Column(sa.String(255), nullable=True)
    status_reason = sa.Column(sa.Text, nullable=True)
    version = sa.Column(sa.Integer, nullable=False, default=1)
    created_at = sa.Column(types.timestamp(), nullable=False)
    updated_at = sa.Column(types.timestamp(), nullable=True)
    # Server-side derivation (NULL for Heat's client-derived deployments):
    source_config_id = sa.Column(sa.String(36),
                                 sa.ForeignKey('software_config.id'),
                                 nullable=True)
    signal_transport = sa.Column(sa.String(32), nullable=True)
    # Bumped for every action triggered; signal URLs are signed over it.
    action_revision = sa.Column(sa.Integer, nullable=False, default=0,
                                server_default='0')
    timeout_at = sa.Column(types.timestamp(), nullable=True)
    #: A trigger deployment: the deployment it was triggered from (for a
    #: trigger of a trigger, the first deployment's), shown as "triggered
    #: from" and used to refuse a second trigger of an action still
    #: running. NULL otherwise. No foreign key: the trigger outlives the
    #: deployment it ran from.
    triggered_from = sa.Column(sa.String(36), nullable=True)
    #: Structured-config input substitution of a server-side deployment:
    #: every derivation replaces ``{input_key: "<name>"}`` maps in the
    #: config by input values; ``input_values_validate`` (LAX or STRICT)
    #: says whether a missing input is null or refused. Both NULL: none.
    input_key = sa.Column(sa.String(255), nullable=True)
    input_values_validate = sa.Column(sa.String(16), nullable=True)


class DeploymentEvent(Base):
    """One status change of a deployment: the audit trail users can read."""

    __tablename__ = 'deployment_event'
    __table_args__ = (
        sa.Index(None, 'deployment_id', 'id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    deployment_id = sa.Column(
        sa.String(36),
        sa.ForeignKey('software_deployment.id', ondelete='CASCADE'),
        nullable=False)
    created_at = sa.Column(types.timestamp(), nullable=False)
    action = sa.Column(sa.String(255), nullable=True)
    old_status = sa.Column(sa.String(255), nullable=True)
    new_status = sa.Column(sa.String(255), nullable=True)
    reason = sa.Column(sa.Text, nullable=True)


class Server(Base):
    """A server agents poll for; owned by one project.

    ``document`` is the pre-rendered metadata document (JSON text) the
    agent's signed URL serves as-is; ``etag`` and ``updated_at`` change only
    when its content does.
    """

    __tablename__ = 'server'
    __table_args__ = (
        sa.Index(None, 'push_pending'),
    )

    id = sa.Column(sa.String(255), primary_key=True)
    tenant = sa.Column(sa.String(64), nullable=False)
    # The agent base URL when the server was claimed. Nothing reads it
    # (URLs come from configuration); kept for engines of the previous
    # release during a rolling upgrade.
    base_url = sa.Column(sa.String(255), nullable=True)
    token_revision = sa.Column(sa.Integer, nullable=False, default=1)
    document = sa.Column(types.long_text(), nullable=True)
    etag = sa.Column(sa.String(64), nullable=True)
    document_revision = sa.Column(sa.Integer, nullable=False, default=0)
    created_at = sa.Column(types.timestamp(), nullable=False)
    updated_at = sa.Column(types.timestamp(), nullable=False)
    #: How the agent gets its document (``POLL_SERVER_URL`` when NULL),
    #: fixed when the server is first claimed: agents configured for it
    #: keep working when the operator changes the default.
    config_transport = sa.Column(sa.String(32), nullable=True)
    #: The document changed and an engine must push it to the server's
    #: Swift object or Zaqar queue (POLL_TEMP_URL, ZAQAR_MESSAGE).
    push_pending = sa.Column(sa.Boolean, nullable=False, default=False,
                             server_default=sa.false())
    #: When the agent last fetched the document with a valid token (NULL:
    #: never). Written late, in batches, by the API workers
    #: (``swconfig.api.agent.poll_times``); only ever moves forward.
    last_poll_at = sa.Column(types.timestamp(), nullable=True)
    #: The os-collect-config block the document gives instead of
    #: swconfig's own (NULL: swconfig's), sealed (``common.sealing``): a
    #: server handed back to Heat is told Heat's settings, which hold a
    #: stack user's password.
    collect_config_override = sa.Column(types.long_text(), nullable=True)
    #: Where the document goes for a server whose agent still reads the
    #: Swift object or Zaqar queue Heat set up for it (NULL: swconfig's
    #: own transport), sealed: the TempURL lets anyone write the
    #: document, the queue's settings hold a stack user's password.
    heat_channel = sa.Column(types.long_text(), nullable=True)


class ServerLabel(Base):
    """One ``key=value`` label of a server: what a server group's selector
    matches. A key appears once per server; ``tenant`` is the server's
    project, kept here so a selector is one index range of the project's
    labels, without reading the servers. Removed with the server."""

    __tablename__ = 'server_label'
    __table_args__ = (
        sa.Index(None, 'tenant', 'key', 'value'),
    )

    server_id = sa.Column(
        sa.String(255), sa.ForeignKey('server.id', ondelete='CASCADE'),
        primary_key=True)
    key = sa.Column(types.exact_string(63), primary_key=True)
    value = sa.Column(types.exact_string(255), nullable=False)
    tenant = sa.Column(sa.String(64), nullable=False)


class ServerGroup(Base):
    """A named set of a project's servers: explicit members
    (``ServerGroupMember``) and/or every server whose labels match
    ``selector`` (a JSON object of key: value, all of which must match;
    NULL for none). Its members are resolved when asked, so a server
    labelled later joins it."""

    __tablename__ = 'server_group'
    __table_args__ = (
        sa.UniqueConstraint('tenant', 'name'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    tenant = sa.Column(sa.String(64), nullable=False)
    name = sa.Column(types.exact_string(255), nullable=False)
    selector = sa.Column(types.Json, nullable=True)
    created_at = sa.Column(types.timestamp(), nullable=False)
    updated_at = sa.Column(types.timestamp(), nullable=True)


class ServerGroupMember(Base):
    """A server named explicitly as a member of a group; removed with the
    group or the server."""

    __tablename__ = 'server_group_member'
    __table_args__ = (
        sa.Index(None, 'server_id'),
    )

    group_id = sa.Column(
        sa.String(36), sa.ForeignKey('server_group.id', ondelete='CASCADE'),
        primary_key=True)
    server_id = sa.Column(
        sa.String(255), sa.ForeignKey('server.id', ondelete='CASCADE'),
        primary_key=True)


class Rollout(Base):
    """One request's work over many servers: a config to deploy on each
    (``work``: config_id, input_values, ...) or an action to run on each
    one's deployment of a component (``work``: deployment_name, action),
    started in waves of at most ``max_concurrency`` targets and stopped
    once more than ``max_errors`` failed (each a number or ``"N%"`` of
    the targets). ``target`` says how the servers were chosen; the
    servers themselves are its ``RolloutTarget`` rows, recorded when it
    was created. ``version`` guards every update."""

    __tablename__ = 'rollout'
    __table_args__ = (
        sa.Index(None, 'tenant', 'created_at'),
        sa.Index(None, 'status'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    tenant = sa.Column(sa.String(64), nullable=False)
    status = sa.Column(sa.String(32), nullable=False)
    status_reason = sa.Column(sa.Text, nullable=True)
    target = sa.Column(types.Json, nullable=False)
    work = sa.Column(types.Json, nullable=False)
    max_concurrency = sa.Column(sa.String(16), nullable=False)
    max_errors = sa.Column(sa.String(16), nullable=False)
    created_at = sa.Column(types.timestamp(), nullable=False)
    started_at = sa.Column(types.timestamp(), nullable=True)
    finished_at = sa.Column(types.timestamp(), nullable=True)
    version = sa.Column(sa.Integer, nullable=False)


class RolloutTarget(Base):
    """One server of a rollout, at its ``position`` in the start order;
    ``deployment_id`` is the deployment that runs its work, set in the
    transaction that creates it (so no target starts twice)."""

    __tablename__ = 'rollout_target'
    __table_args__ = (
        sa.Index(None, 'rollout_id', 'state'),
    )

    rollout_id = sa.Column(
        sa.String(36), sa.ForeignKey('rollout.id', ondelete='CASCADE'),
        primary_key=True)
    position = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    server_id = sa.Column(sa.String(255), nullable=False)
    deployment_id = sa.Column(sa.String(36), nullable=True)
    state = sa.Column(sa.String(32), nullable=False)
    started_at = sa.Column(types.timestamp(), nullable=True)
    finished_at = sa.Column(types.timestamp(), nullable=True)


class RolloutEvent(Base):
    """What happened to a rollout (started, a wave started, a target
    failed, stopped, cancelled, finished), in order."""

    __tablename__ = 'rollout_event'
    __table_args__ = (
        sa.Index(None, 'rollout_id'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    rollout_id = sa.Column(
        sa.String(36), sa.ForeignKey('rollout.id', ondelete='CASCADE'),
        nullable=False)
    event = sa.Column(sa.String(32), nullable=False)
    reason = sa.Column(sa.Text, nullable=True)
    created_at = sa.Column(types.timestamp(), nullable=False)


class ServerChange(Base):
    """A server whose document, token revision or existence changed: the
    log API workers read, once per freshness interval, to drop what their
    metadata caches hold for it. ``id`` orders the changes; workers track
    the ids missing below the highest they saw (transactions commit out
    of order). Rows older than an hour are purged."""

    __tablename__ = 'server_change'
    __table_args__ = (
        sa.Index(None, 'changed_at'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    server_id = sa.Column(sa.String(255), nullable=False)
    changed_at = sa.Column(types.timestamp(), nullable=False)


class RequestKey(Base):
    """An ``Idempotency-Key`` of a request that made a deployment (a
    trigger, or a creation): a retry with the same key (in the same
    project) gets the deployment it made (``trigger_deployment_id``)
    instead of a second one. ``deployment_id`` is the deployment the
    request was about (the triggered one; for a creation the new one).
    ``request_digest`` is the digest of what was asked, so the same key
    with another request is refused. Rows past ``expires_at`` are purged
    by the engines. The table keeps the name it had when only triggers
    took keys."""

    __tablename__ = 'trigger_request'
    __table_args__ = (
        sa.UniqueConstraint('tenant', 'idempotency_key'),
        sa.Index(None, 'expires_at'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    tenant = sa.Column(sa.String(64), nullable=False)
    idempotency_key = sa.Column(sa.String(255), nullable=False)
    deployment_id = sa.Column(sa.String(36), nullable=False)
    request_digest = sa.Column(sa.String(64), nullable=False)
    trigger_deployment_id = sa.Column(sa.String(36), nullable=False)
    created_at = sa.Column(types.timestamp(), nullable=False)
    expires_at = sa.Column(types.timestamp(), nullable=False)


class SignalInbox(Base):
    """A signal as the agent sent it, stored before the agent is answered;
    ``processed_at`` is set, once, by the engine that handled it."""

    __tablename__ = 'signal_inbox'
    __table_args__ = (
        sa.Index(None, 'processed_at', 'id'),
        sa.Index(None, 'deployment_id'),
        sa.UniqueConstraint('deployment_id', 'source_key'),
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    deployment_id = sa.Column(sa.String(36), nullable=False)
    action_revision = sa.Column(sa.Integer, nullable=False)
    payload = sa.Column(types.Json, nullable=True)
    received_at = sa.Column(types.timestamp(), nullable=False)
    processed_at = sa.Column(types.timestamp(), nullable=True)
    result = sa.Column(sa.String(32), nullable=True)
    #: The request that stored the signal, logged when it is applied.
    request_id = sa.Column(sa.String(64), nullable=True)
    #: What identifies a signal an engine fetched from Swift or Zaqar
    #: (``swift:<revision>:<etag>``, ``zaqar:<message id>``): the same
    #: signal fetched twice, e.g. by two engines around a takeover, is
    #: stored once. NULL for signals agents sent to swconfig itself.
    source_key = sa.Column(sa.String(255), nullable=True)


class EngineService(Base):
    """A running engine process: its heartbeat, recorded every ``[engine]
    database_heartbeat_interval`` seconds and removed when it stops
    cleanly, tells the API whether any engine can answer a call on
    ``topic`` before it sends one. ``id`` is the process's own (several
    engines may share a host); the row of an engine that died stays, its
    heartbeat ageing, until an engine on the same host and topic
    starts."""

    __tablename__ = 'engine_service'
    __table_args__ = (
        sa.Index(None, 'topic', 'heartbeat_at'),
    )

    id = sa.Column(sa.String(36), primary_key=True)
    host = sa.Column(sa.String(255), nullable=False)
    topic = sa.Column(sa.String(255), nullable=False)
    pid = sa.Column(sa.Integer, nullable=True)
    created_at = sa.Column(types.timestamp(), nullable=False)
    heartbeat_at = sa.Column(types.timestamp(), nullable=False)
