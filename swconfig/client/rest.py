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

"""The REST calls swconfig's clients make, one method each.

Paths are relative to the project's endpoint (``.../v1/<project>``). An
error answer becomes ``SwconfigError`` carrying the message of Heat's error
body on one line (which cliff prints without a traceback, and Heat puts in
a resource's status reason), its HTTP status and its error type.
"""

import json
import logging
import time
from typing import Any
import urllib.parse

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session

LOG = logging.getLogger(__name__)

CONFIGS = '/software_configs'
DEPLOYMENTS = '/software_deployments'
SERVERS = '/servers'
SERVER_GROUPS = '/server_groups'
ROLLOUTS = '/rollouts'

#: Seconds to wait for a connection or an ordinary answer.
HTTP_TIMEOUT = 60


class SwconfigError(Exception):
    """A request the service refused, could not be made, or cannot be
    sent: the message is one line for the user. ``status`` is the HTTP
    status of a refusal (None otherwise) and ``error_type`` the type its
    error body names (``NotFound``, ``UndefinedAction``...), if any."""

    def __init__(self, message: str, status: int | None = None,
                 error_type: str | None = None) -> None:
        super().__init__(' '.join(message.split()))
        self.status = status
        self.error_type = error_type


class Unreachable(SwconfigError):
    """The service did not answer: nothing listens at the endpoint, the
    connection timed out or broke. A waiting command retries it."""

    def __init__(self, endpoint: str, reason: str) -> None:
        super().__init__(
            f'Cannot reach swconfig at {endpoint} ({reason}); check that '
            f'the service runs and that OS_ENDPOINT (or the catalog) '
            f'points at it.')
        self.endpoint = endpoint
        self.reason = reason


def connection_problem(error: BaseException) -> str:
    """A connection error in a few words ("connection refused", "timed
    out"), from the operating system's error deep in the chain that
    keystoneauth, requests and urllib3 wrap it in."""
    seen: set[int] = set()
    pending: list[Any] = [error]
    while pending:
        current = pending.pop(0)
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, TimeoutError) or 'timed out' in str(current):
            return 'timed out'
        if isinstance(current, OSError) and current.strerror:
            return current.strerror.lower()
        if isinstance(current, ConnectionError):
            # e.g. http.client.RemoteDisconnected: the service went away
            # while it held the request.
            return 'the connection was closed'
        pending.extend([current.__cause__, current.__context__,
                        getattr(current, 'reason', None), *current.args])
    if isinstance(error, ks_exceptions.ConnectTimeout):
        return 'timed out'
    return 'no connection'


def _not_utf8(text: str) -> SwconfigError:
    """A command line argument that is not UTF-8 text (Python keeps such
    bytes as lone surrogates): said plainly, not as a codec error."""
    shown = text.encode('utf-8', 'surrogateescape').decode(
        'utf-8', 'backslashreplace')
    return SwconfigError(f'"{shown}" is not UTF-8 text; ids, names and '
                        f'values must be UTF-8.')


def _json_string_at(error: UnicodeEncodeError) -> str:
    """The JSON string of ``error.object`` (JSON text) that holds the
    character that failed."""
    text = error.object
    start = text.rfind('"', 0, error.start) + 1
    end = text.find('"', error.end)
    return text[start:end if end >= 0 else len(text)]


def _quote(value: str) -> str:
    try:
        return urllib.parse.quote(str(value), safe='')
    except UnicodeEncodeError as error:
        raise _not_utf8(str(value)) from error


def _refusal(reply: Any) -> SwconfigError:
    """Heat's error body (``{"code", "title", "explanation", "error":
    {"type", "message"}}``) as ``<title> (HTTP <code>): <message>``."""
    try:
        body = reply.json()
    except ValueError:
        body = None
    title = reply.reason or 'Error'
    message = reply.text.strip()
    error_type = None
    if isinstance(body, dict):
        error = body.get('error') or {}
        title = body.get('title') or title
        if isinstance(error, dict):
            error_type = error.get('type')
            message = error.get('message') or body.get(
                'explanation') or message
        else:
            message = body.get('explanation') or message
    return SwconfigError(
        f'{title} (HTTP {reply.status_code}): {message or title}',
        reply.status_code, error_type)


class Client:
    """swconfig's REST API for one project, over a keystoneauth session
    (which adds the token, or nothing with ``auth_type = none``)."""

    def __init__(self, session: ks_session.Session, endpoint: str,
                 timeout: float = HTTP_TIMEOUT) -> None:
        self.session = session
        self.endpoint = endpoint.rstrip('/')
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None,
                params: dict | None = None, headers: dict | None = None,
                timeout: float | None = None) -> Any:
        """The decoded JSON answer (None for 204), or ``SwconfigError``."""
        url = self.endpoint + path
        kwargs: dict[str, Any] = {'raise_exc': False,
                                  'timeout': timeout or self.timeout,
                                  'headers': dict(headers or {})}
        if body is not None:
            kwargs['json'] = body
        if params:
            kwargs['params'] = params
        try:
            # JSON would escape the bytes and the service refuse them as
            # lone surrogates: say it here, in the user's terms.
            sent = json.dumps([body, params, headers], ensure_ascii=False)
            sent.encode('utf-8')
        except UnicodeEncodeError as error:
            raise _not_utf8(_json_string_at(error)) from error
        started = time.monotonic()
        try:
            reply = self.session.request(url, method, **kwargs)
        except ks_exceptions.ConnectionError as error:
            raise Unreachable(self.endpoint,
                              connection_problem(error)) from error
        except ks_exceptions.ClientException as error:
            raise SwconfigError(f'{method} {url} failed: {error}') from error
        LOG.debug('swconfig %s %s%s answered %s in %.3f s', method, path,
                  f' {params}' if params else '', reply.status_code,
                  time.monotonic() - started)
        if reply.status_code >= 400:
            raise _refusal(reply)
        if reply.status_code == 204 or not reply.content:
            return None
        try:
            return reply.json()
        except ValueError as error:
            raise SwconfigError(f'{method} {url} answered {reply.status_code}'
                               f' with a body that is not JSON') from error

    # -- software configs -------------------------------------------------

    def config_create(self, body: dict) -> dict:
        return self.request('POST', CONFIGS, body)['software_config']

    def config_list(self, derived: bool | None = None) -> list[dict]:
        """The project's configs; ``derived`` False leaves out those the
        service derived for deployments, True lists only those."""
        params = None if derived is None else {
            'derived': 'true' if derived else 'false'}
        return self.request('GET', CONFIGS,
                            params=params)['software_configs']

    def config_show(self, config_id: str) -> dict:
        return self.request(
            'GET', f'{CONFIGS}/{_quote(config_id)}')['software_config']

    def config_input_check(self, config_id: str, input_values: dict,
                           input_key: str | None = None) -> dict:
        """Which of ``input_values`` the config does not take."""
        return self.request(
            'POST', f'{CONFIGS}/{_quote(config_id)}/input_check',
            {'input_values': input_values, 'input_key': input_key}
        )['input_check']

    def config_delete(self, config_id: str) -> None:
        self.request('DELETE', f'{CONFIGS}/{_quote(config_id)}')

    # -- software deployments ---------------------------------------------

    def _deployment(self, deployment_id: str, tail: str = '') -> str:
        return f'{DEPLOYMENTS}/{_quote(deployment_id)}{tail}'

    def deployment_create(self, body: dict,
                          idempotency_key: str | None = None) -> dict:
        return self.request('POST', DEPLOYMENTS, body,
                            headers=_key_header(idempotency_key)
                            )['software_deployment']

    def deployment_list(self, server_id: str | None = None) -> list[dict]:
        params = {'server_id': server_id} if server_id else None
        return self.request('GET', DEPLOYMENTS,
                            params=params)['software_deployments']

    def deployment_show(self, deployment_id: str,
                        wait: int | None = None) -> dict:
        """The deployment; with ``wait``, the service answers as soon as
        its status changes, or after ``wait`` seconds (a long poll)."""
        params = {'wait': wait} if wait else None
        timeout = self.timeout + (wait or 0)
        return self.request('GET', self._deployment(deployment_id),
                            params=params,
                            timeout=timeout)['software_deployment']

    def deployment_update(self, deployment_id: str, body: dict) -> dict:
        """Change fields of a deployment; on a server-side deployment a
        new config, new input values or another action start a new
        action."""
        return self.request('PUT', self._deployment(deployment_id),
                            body)['software_deployment']

    def deployment_delete(self, deployment_id: str) -> dict | None:
        """None once deleted; the deployment (its DELETE action
        IN_PROGRESS) when a component runs its DELETE entry first."""
        answer = self.request('DELETE', self._deployment(deployment_id))
        return answer['software_deployment'] if answer else None

    def deployment_action(self, deployment_id: str,
                          action: str) -> dict | None:
        """The deployment running ``action``; None when the action was
        DELETE and the deployment is already gone."""
        answer = self.request('POST', self._deployment(deployment_id,
                                                       '/actions'),
                              {'action': action})
        return answer['software_deployment'] if answer else None

    def deployment_trigger(self, deployment_id: str, body: dict,
                           idempotency_key: str | None = None) -> dict:
        return self.request('POST', self._deployment(deployment_id,
                                                     '/trigger'),
                            body, headers=_key_header(idempotency_key)
                            )['software_deployment']

    def deployment_cancel(self, deployment_id: str) -> dict:
        return self.request('POST', self._deployment(
            deployment_id, '/cancel'))['software_deployment']

    def deployment_signal(self, deployment_id: str, payload: dict) -> int:
        """Store a signal for the deployment's current action, as its
        agent would send it; the id of the stored signal (an engine
        applies it soon after the answer)."""
        return self.request('POST', self._deployment(deployment_id,
                                                     '/signal'),
                            payload)['signal']

    def deployment_events(self, deployment_id: str) -> list[dict]:
        return self.request('GET', self._deployment(deployment_id,
                                                    '/events'))['events']

    def deployment_output(self, deployment_id: str, name: str) -> Any:
        """One output's answer: ``{"output": {"name", "value"}}`` or the
        bare object, as the service sends it."""
        answer = self.request('GET', self._deployment(
            deployment_id, f'/outputs/{_quote(name)}'))
        return answer.get('output', answer) if isinstance(answer,
                                                          dict) else answer

    def server_metadata(self, server_id: str) -> list[dict]:
        return self.request('GET', f'{DEPLOYMENTS}/metadata/'
                                   f'{_quote(server_id)}')['metadata']

    # -- servers ------------------------------------------------------------

    def server_list(self, labels: dict[str, str] | None = None
                    ) -> list[dict]:
        """The project's servers; with ``labels``, only those carrying
        all of them."""
        params = {'label': [f'{key}={value}' for key, value
                            in labels.items()]} if labels else None
        return self.request('GET', SERVERS, params=params)['servers']

    def server_show(self, server_id: str) -> dict:
        return self.request('GET',
                            f'{SERVERS}/{_quote(server_id)}')['server']

    def server_set_labels(self, server_id: str,
                          labels: dict[str, str]) -> dict:
        """Make ``labels`` all the server's labels (registering a new
        server)."""
        return self.request('PUT', f'{SERVERS}/{_quote(server_id)}',
                            {'labels': labels})['server']

    def server_delete(self, server_id: str) -> None:
        """Unregister a server that has no deployments."""
        self.request('DELETE', f'{SERVERS}/{_quote(server_id)}')

    # -- server groups ------------------------------------------------------

    def server_group_create(self, body: dict) -> dict:
        return self.request('POST', SERVER_GROUPS, body)['server_group']

    def server_group_list(self) -> list[dict]:
        return self.request('GET', SERVER_GROUPS)['server_groups']

    def server_group_show(self, group_id: str) -> dict:
        return self.request('GET', f'{SERVER_GROUPS}/{_quote(group_id)}'
                            )['server_group']

    def server_group_update(self, group_id: str, body: dict) -> dict:
        return self.request('PUT', f'{SERVER_GROUPS}/{_quote(group_id)}',
                            body)['server_group']

    def server_group_delete(self, group_id: str) -> None:
        self.request('DELETE', f'{SERVER_GROUPS}/{_quote(group_id)}')

    # -- rollouts -------------------------------------------------------------

    def rollout_create(self, body: dict) -> dict:
        return self.request('POST', ROLLOUTS, body)['rollout']

    def rollout_list(self) -> list[dict]:
        return self.request('GET', ROLLOUTS)['rollouts']

    def rollout_show(self, rollout_id: str, wait: int | None = None) -> dict:
        """The rollout; with ``wait``, answered when it is over or after
        that many seconds."""
        return self.request(
            'GET', f'{ROLLOUTS}/{_quote(rollout_id)}',
            params={'wait': wait} if wait else None,
            timeout=self.timeout + wait if wait else None)['rollout']

    def rollout_targets(self, rollout_id: str,
                        state: str | None = None) -> list[dict]:
        return self.request('GET', f'{ROLLOUTS}/{_quote(rollout_id)}/targets',
                            params={'state': state} if state else None
                            )['targets']

    def rollout_events(self, rollout_id: str) -> list[dict]:
        return self.request('GET', f'{ROLLOUTS}/{_quote(rollout_id)}/events'
                            )['events']

    def rollout_cancel(self, rollout_id: str) -> dict:
        return self.request('POST', f'{ROLLOUTS}/{_quote(rollout_id)}/cancel'
                            )['rollout']

    def agent_config(self, server_id: str) -> dict:
        return self.request('GET', f'{SERVERS}/{_quote(server_id)}'
                                   '/agent-config')


def _key_header(idempotency_key: str | None) -> dict | None:
    """The header that makes a creation or trigger safe to send again."""
    return {'Idempotency-Key': idempotency_key} if idempotency_key else None
