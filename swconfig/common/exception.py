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

"""swconfig's exceptions. Each carries the HTTP status the API answers with.

The API turns any :class:`SwconfigException` into Heat's error body
(``swconfig.api.middleware.fault``); the engine declares them as expected
RPC errors so oslo.messaging re-raises them in the API with the same class.
"""

from http import HTTPStatus


class SwconfigException(Exception):
    """Base class: ``msg_fmt`` is formatted with the keyword arguments."""

    msg_fmt = 'An unknown error occurred.'
    code = HTTPStatus.INTERNAL_SERVER_ERROR
    #: Value of ``error.type`` in the error body; the class name by default.
    error_type: str | None = None

    def __init__(self, message: str | None = None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError):
                message = self.msg_fmt
        self.message = message
        super().__init__(message)

    @property
    def headers(self) -> list[tuple[str, str]]:
        """Extra response headers the error answers with."""
        return []

    @property
    def type_name(self) -> str:
        # oslo.messaging re-raises remote errors as "<Class>_Remote".
        return self.error_type or type(self).__name__.removesuffix('_Remote')


class Invalid(SwconfigException):
    msg_fmt = 'Data supplied was not valid: %(reason)s'
    code = HTTPStatus.BAD_REQUEST


class InvalidParameterValue(Invalid):
    msg_fmt = '%(reason)s'


class MalformedRequestBody(Invalid):
    msg_fmt = ('The server could not comply with the request since it is '
               'either malformed or otherwise incorrect.')
    error_type = 'HTTPBadRequest'


class RequestLimitExceeded(Invalid):
    msg_fmt = 'Request limit exceeded: %(detail)s'


class InvalidTemplate(Invalid):
    msg_fmt = 'The template is not valid: %(reason)s'


class Forbidden(SwconfigException):
    msg_fmt = 'You are not authorized to complete this action.'
    code = HTTPStatus.FORBIDDEN


class PolicyNotAuthorized(Forbidden):
    msg_fmt = 'You are not authorized to use %(action)s.'
    error_type = 'Forbidden'


class TenantMismatch(Forbidden):
    msg_fmt = 'Access was denied to this resource.'
    error_type = 'HTTPForbidden'


class NotFound(SwconfigException):
    msg_fmt = 'The resource could not be found.'
    code = HTTPStatus.NOT_FOUND


class RouteNotFound(NotFound):
    """No route has the URL (a URL that exists may still answer
    NotFound for an object it names)."""

    error_type = 'HTTPNotFound'


class MethodNotAllowed(SwconfigException):
    msg_fmt = 'Method is not allowed for this URL (allowed: %(allowed)s).'
    code = HTTPStatus.METHOD_NOT_ALLOWED
    error_type = 'HTTPMethodNotAllowed'

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [('Allow', self.kwargs.get('allowed', ''))]


class ConfigNotFound(NotFound):
    msg_fmt = 'Software config with id %(config_id)s not found'
    error_type = 'NotFound'


class DeploymentNotFound(NotFound):
    msg_fmt = 'Deployment with id %(deployment_id)s not found'
    error_type = 'NotFound'


class ServerOwnedByOtherProject(Forbidden):
    msg_fmt = ('Server %(server_id)s belongs to another project; only that '
               'project can deploy to it or read its metadata.')


class SignalRefused(Forbidden):
    msg_fmt = 'Signal refused: %(reason)s'


class UnknownSignalTransport(Invalid):
    msg_fmt = ('Unknown signal transport %(name)s; this service supports '
               '%(supported)s.')


class ServerNotFound(NotFound):
    msg_fmt = 'Server %(server_id)s not found'
    error_type = 'NotFound'


class ServerNotRegistered(Invalid):
    msg_fmt = ('Server %(server_id)s is not registered; register it with '
               'POST /v1/{tenant_id}/servers first (implicit registration '
               'is turned off).')


class ServerGroupNotFound(NotFound):
    msg_fmt = 'Server group %(group_id)s not found'
    error_type = 'NotFound'


class ServerGroupEmpty(Invalid):
    msg_fmt = ('A server group needs servers, a selector, or both; '
               '%(detail)s')


class GroupMembersNotRegistered(Invalid):
    """Explicit members must be servers the project registered: a group
    registers nothing, so a mistyped id is refused rather than kept."""

    msg_fmt = ('%(servers)s not registered to the project; register '
               'servers (POST /v1/{tenant_id}/servers, or set their labels '
               'with PUT /v1/{tenant_id}/servers/{server_id}) before '
               'naming them in a group.')


class Conflict(SwconfigException):
    msg_fmt = 'Conflict.'
    code = HTTPStatus.CONFLICT


class ServerGroupNameExists(Conflict):
    msg_fmt = ('The project already has a server group named %(name)s; '
               'group names are unique in a project.')


class ImportIdsExist(Conflict):
    """An import would write rows whose ids the database holds already."""

    msg_fmt = ('The database already has %(ids)s; import into a database '
               'without them, or give --skip-existing to keep what is '
               'there and import the rest.')


class ImportIdsOfOtherProject(Conflict):
    """An import names ids that belong to another project: never skipped,
    as the rows that refer to them would then point at that project's."""

    msg_fmt = ('Another project of the database has %(ids)s; an id is '
               'one object of one project, so these cannot be imported.')


class InvalidExport(Invalid):
    """An export document that cannot be imported as it is."""

    msg_fmt = 'Not an export document this release can import: %(reason)s'


class RolloutNotFound(NotFound):
    msg_fmt = 'Rollout %(rollout_id)s not found'
    error_type = 'NotFound'


class RolloutNoTargets(Invalid):
    msg_fmt = ('The rollout has no target: %(detail)s; a rollout needs at '
               'least one server.')


class RolloutServersForbidden(Forbidden):
    msg_fmt = ('%(servers)s to another project; a rollout runs only on '
               'servers of its own project.')


class RolloutDeploymentMissing(Invalid):
    msg_fmt = ('%(servers)s no deployment named %(name)s; give '
               '"skip_missing": true (swconfig rollout create '
               '--skip-missing) to run on the servers that have one.')


class RolloutFinished(Conflict):
    msg_fmt = 'Rollout %(rollout_id)s is %(status)s already.'


class ServerInUse(Conflict):
    msg_fmt = ('Server %(server_id)s still has deployments; delete them '
               'first.')


class ConfigInUse(Conflict):
    msg_fmt = ('Software config with id %(config_id)s can not be deleted '
               'as it is referenced.')


class ConcurrentUpdate(Conflict):
    msg_fmt = ('Deployment %(deployment_id)s was changed by another request '
               'at the same time; retry.')


class ActionAlreadyRunning(Conflict):
    """A trigger of an action already IN_PROGRESS for the same deployment
    (a second click, a retry without an Idempotency-Key)."""

    msg_fmt = ('Deployment %(deployment_id)s already has %(action)s '
               'running: deployment %(running_id)s, IN_PROGRESS since '
               '%(since)s. Wait for it to finish or cancel it, or send '
               '"allow_concurrent": true (swconfig deployment trigger '
               '--allow-concurrent) to run another at the same time.')


class EngineUpgradeRequired(Conflict):
    """A request needs an engine RPC API version above the rolling-upgrade
    pin (``[upgrade_levels] engine``): refused before anything is sent,
    rather than failing on an older engine (500) or, for an
    Idempotency-Key, creating without the key's protection. 409 as Nova
    answers while not all compute services are upgraded."""

    msg_fmt = ('%(feature)s needs engine RPC API %(version)s, but this '
               'API server is pinned to %(cap)s ([upgrade_levels] engine) '
               'because not all engines are upgraded yet: upgrade every '
               'engine, then lift the pin (remove [upgrade_levels] engine '
               'and restart the API servers).')


class ConfigurationError(SwconfigException):
    msg_fmt = 'Configuration error: %(reason)s'


class ServiceUnavailable(SwconfigException):
    """A backend the request needs is down: worth retrying, soon."""

    msg_fmt = 'The engine is unavailable: %(reason)s'
    code = HTTPStatus.SERVICE_UNAVAILABLE
    #: Seconds a client should wait before retrying (Retry-After).
    retry_after = 5
    #: Whether the API logs each request refused so as an error; False
    #: when what raises it logs the outage once, as it starts and ends
    #: (a storm of refused writes would otherwise flood the log).
    log_each = True

    @property
    def headers(self) -> list[tuple[str, str]]:
        return [('Retry-After', str(self.retry_after))]


class DatabaseUnavailable(ServiceUnavailable):
    msg_fmt = 'The database is unavailable: %(reason)s'
    error_type = 'ServiceUnavailable'


class MessagingUnavailable(ServiceUnavailable):
    msg_fmt = 'The message bus is unavailable: %(reason)s'
    error_type = 'ServiceUnavailable'


class NoEngineRunning(ServiceUnavailable):
    """No engine has recorded a heartbeat lately: a call would wait for
    an answer nobody gives."""

    msg_fmt = ('No engine is running: none has recorded a heartbeat on '
               'topic %(topic)s in the last %(window)s seconds. Retry once '
               'an engine (swconfig-engine) runs and reaches the '
               'database.')
    error_type = 'ServiceUnavailable'
    log_each = False


class MessageBusDown(MessagingUnavailable):
    """The message bus refused a connection moments ago: a call is
    refused at once instead of holding a request thread while it
    reconnects."""

    msg_fmt = ('The message bus is unavailable: %(reason)s. Retry in a '
               'few seconds.')
    log_each = False


class BackendUnavailable(ServiceUnavailable):
    """Swift or Zaqar, serving a signal or metadata transport, is down or
    refuses swconfig's credentials."""

    msg_fmt = '%(service)s is unavailable: %(reason)s'
    error_type = 'ServiceUnavailable'


class SignalTooLarge(SwconfigException):
    """An agent signal over ``[agent] max_signal_size``: recorded, and its
    deployment fails, but the body itself is not kept."""

    msg_fmt = 'Signal refused: %(reason)s'
    code = HTTPStatus.REQUEST_ENTITY_TOO_LARGE


class APIBusy(ServiceUnavailable):
    """Too many project requests in progress on one API worker; the rest
    of its threads stay free for the agents' polls and signals."""

    msg_fmt = ('This API worker already serves %(limit)s project requests '
               'at once; retry later.')
    error_type = 'ServiceUnavailable'
    retry_after = 2


class UnsupportedMediaType(SwconfigException):
    msg_fmt = ('The request body has Content-Type %(content_type)s; a JSON '
               'body needs Content-Type: application/json.')
    code = HTTPStatus.UNSUPPORTED_MEDIA_TYPE
    error_type = 'HTTPUnsupportedMediaType'


class StartupError(SwconfigException):
    """A service cannot start (its port is taken, ...): the console
    script prints the message on one line and exits non-zero instead of
    a launcher restarting it for ever."""

    msg_fmt = 'Cannot start: %(reason)s'


class IdempotencyKeyReused(SwconfigException):
    """The same ``Idempotency-Key`` came with a different request."""

    msg_fmt = ('Idempotency-Key %(key)s was used for a different request '
               '(another deployment, action or body); use a new key.')
    code = HTTPStatus.UNPROCESSABLE_ENTITY


class DeploymentFinished(Conflict):
    msg_fmt = ('Deployment %(deployment_id)s is not in progress '
               '(%(action)s %(status)s); there is nothing to cancel.')


class OutputNotFound(NotFound):
    msg_fmt = ('Deployment %(deployment_id)s has no output named '
               '%(name)s.')


class UndefinedAction(Invalid):
    """A custom action the deployment's component has no entry for."""

    msg_fmt = ('Component %(component)s has no entry for action '
               '%(action)s%(hint)s; its entries define %(defined)s. Only '
               'the lifecycle actions (%(lifecycle)s) may have no entry, '
               'and they then run nothing.')


class InputValueMissing(Invalid):
    """A STRICT structured deployment whose config substitutes an input
    that is not among the derived config's inputs."""

    msg_fmt = ('The config substitutes input %(name)s at %(where)s '
               '({"%(input_key)s": "%(name)s"}), but no input of that '
               'name is declared by the config, given in input_values or '
               'added by the engine (deploy_*), and input_values_validate '
               'is STRICT. Give %(name)s a value in input_values, or use '
               'LAX to substitute null.')


class BatchInvalid(Invalid):
    """Items of a list of things to create (deployments) that cannot be
    created; none was. Each item's message is the one creating it alone
    would get."""

    msg_fmt = ('%(count)s of the %(total)s items cannot be created, so '
               'none was: %(problems)s.')

    @classmethod
    def of(cls, problems: dict[int, str], total: int) -> 'BatchInvalid':
        """From ``{item index: message}``: one ``items[<index>]: ...`` per
        bad item, in index order."""
        listed = '; '.join(f'items[{index}]: {problems[index].rstrip(".")}'
                           for index in sorted(problems))
        return cls(count=len(problems), total=total, problems=listed)


class NotServerDerived(Invalid):
    msg_fmt = ('Deployment %(deployment_id)s was created with a config '
               'derived by its client (no signal_transport); only '
               'deployments the engine derives can %(what)s.')
