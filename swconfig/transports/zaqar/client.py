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

"""swconfig's Zaqar: queues, messages, claims and pre-signed URLs (v2).

A small client over a keystoneauth session (no Keystone with
``auth_type = none``). Failures map to our exceptions as for Swift: a
missing queue is NotFound, anything meaning "Zaqar cannot serve this
now" is BackendUnavailable.
"""

import datetime
import hashlib
import re
import threading
from typing import Any
import uuid

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import identity
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from oslo_config import cfg

from swconfig.common import exception
from swconfig.conf import CONF

SERVICE = 'Zaqar'
GROUP = 'zaqar'
#: Zaqar queue names: at most 64 of these characters.
_QUEUE_NAME = re.compile(r'^[A-Za-z0-9_-]{1,64}$')
#: Messages one pop may remove (Zaqar's max_messages_per_claim_or_pop
#: default, which is also the least a Zaqar allows).
POP_LIMIT = 20
#: This process's Client-ID (Zaqar wants one per client).
CLIENT_ID = str(uuid.uuid4())
#: Seconds a request may take when ``[zaqar] timeout`` is unset
#: (keystoneauth's default is to wait for ever): a Zaqar that stops
#: answering must fail a round, not stall the consumer for good.
DEFAULT_TIMEOUT = 30.0

_session_lock = threading.Lock()
_session: Any = None


def _no_keystone() -> bool:
    return CONF.zaqar.auth_type in (None, '', 'none', 'noauth')


def missing_configuration() -> str | None:
    if not CONF.zaqar.endpoint:
        return 'the [zaqar] section has no endpoint'
    if _no_keystone() and not CONF.zaqar.project_id:
        return '[zaqar] project_id is required with auth_type = none'
    return None


def session() -> Any:
    global _session
    with _session_lock:
        if _session is None:
            auth = None if _no_keystone() else _load_auth()
            _session = ks_loading.load_session_from_conf_options(
                CONF, GROUP, auth=auth,
                timeout=CONF.zaqar.timeout or DEFAULT_TIMEOUT)
        return _session


def _load_auth() -> Any:
    """The auth plugin of ``[zaqar]``, as keystoneauth's
    ``load_auth_from_conf_options`` loads it, except that an option both
    define is ours: the identity plugins' ``project_id`` (the project to
    scope to) is the same setting as swconfig's, and registering theirs
    beside it would fail as a duplicate."""
    if CONF.zaqar.auth_section:
        return ks_loading.load_auth_from_conf_options(CONF, GROUP)
    return register_auth_plugin_opts().load_from_options_getter(
        lambda opt: CONF[GROUP][opt.dest])


def register_auth_plugin_opts() -> Any:
    """Register the options of the configured auth plugin in ``[zaqar]``
    (except ``project_id``, which is ours); returns the plugin's loader."""
    loader = ks_loading.get_plugin_loader(CONF.zaqar.auth_type)
    for opt in ks_loading.get_auth_plugin_conf_options(loader):
        try:
            CONF.register_opt(opt, group=GROUP)
        except cfg.DuplicateOptError:
            pass  # ours, with the same meaning
    return loader


def keystone_url() -> str | None:
    """The Keystone URL of the configured auth plugin (agents
    authenticate there too); None without Keystone."""
    if _no_keystone():
        return None
    return getattr(session().auth, 'auth_url', None)


def project_id() -> str:
    if CONF.zaqar.project_id:
        return CONF.zaqar.project_id
    return session().get_project_id()


def request(method: str, path: str, **kwargs: Any) -> Any:
    """A v2 request; the response, or our exception."""
    url = f'{CONF.zaqar.endpoint.rstrip("/")}/v2/{path}'
    headers = {'Client-ID': CLIENT_ID, 'X-Project-ID': project_id()}
    try:
        response = session().request(
            url, method, headers=headers, raise_exc=False,
            connect_retries=0,
            authenticated=not _no_keystone(), **kwargs)
    except ks_exc.ClientException as exc:
        raise exception.BackendUnavailable(service=SERVICE,
                                           reason=str(exc)) from exc
    if response.status_code == 404:
        raise exception.NotFound(f'Zaqar: {path} not found')
    if response.status_code >= 400:
        raise exception.BackendUnavailable(
            service=SERVICE,
            reason=f'{response.status_code} on {method} {path}: '
                   f'{response.text[:200]}')
    return response


def service_problem() -> str | None:
    try:
        request('GET', 'ping')
    except exception.SwconfigException as exc:
        return str(exc)
    return None


def queue_name(kind: str, item_id: str) -> str:
    """``<prefix>-<kind>-<id>``, with a digest for ids Zaqar would not
    take as they are."""
    name = f'{CONF.zaqar.queue_prefix}-{kind}-{item_id}'
    if _QUEUE_NAME.match(name):
        return name
    digest = hashlib.sha256(item_id.encode()).hexdigest()[:40]
    return f'{CONF.zaqar.queue_prefix}-{kind}-{digest}'[:64]


def create_queue(name: str) -> None:
    request('PUT', f'queues/{name}', json={})


def delete_queue(name: str) -> None:
    try:
        request('DELETE', f'queues/{name}')
    except exception.NotFound:
        pass


def post(name: str, body: Any, ttl: int) -> None:
    request('POST', f'queues/{name}/messages',
            json={'messages': [{'body': body, 'ttl': ttl}]})


def replace(name: str, body: Any, ttl: int) -> None:
    """Post ``body`` as the queue's only message. A reader that pops one
    message per collection (os-collect-config's zaqar collector) then
    always gets the newest document, never one a later change replaced;
    the older ones are popped first."""
    def pop() -> Any:
        try:
            return request('DELETE', f'queues/{name}/messages',
                           params={'pop': POP_LIMIT})
        except exception.NotFound:
            return None  # no queue yet: nothing to remove
    _pop_all(pop)
    post(name, body, ttl)


def _pop_all(pop: Any) -> None:
    """Call ``pop`` (one pop request; its response, or None when there is
    nothing to pop) until the queue is empty."""
    while True:
        response = pop()
        if (response is None or response.status_code == 204
                or not response.content
                or len(response.json().get('messages') or [])
                < POP_LIMIT):
            return


def claim(name: str, limit: int = 10) -> list[dict]:
    """Claim up to ``limit`` messages (each with ``id``, ``body`` and its
    ``claim_id``); an empty list when there are none."""
    response = request('POST', f'queues/{name}/claims',
                       params={'limit': limit},
                       json={'ttl': CONF.zaqar.claim_grace,
                             'grace': CONF.zaqar.claim_grace})
    if response.status_code == 204 or not response.content:
        return []
    messages = response.json().get('messages', [])
    for message in messages:
        href = message.get('href', '')
        message['claim_id'] = href.partition('claim_id=')[2] or None
    return messages


def delete_message(name: str, message_id: str, claim_id: str | None) -> None:
    params = {'claim_id': claim_id} if claim_id else {}
    try:
        request('DELETE', f'queues/{name}/messages/{message_id}',
                params=params)
    except exception.NotFound:
        pass


def share(name: str, methods: list[str], seconds: int) -> dict:
    """A pre-signed URL of the queue's messages for ``methods``:
    ``signature``, ``expires``, ``paths``, ``methods``, ``project``."""
    expires = (datetime.datetime.now(datetime.timezone.utc)
               + datetime.timedelta(seconds=seconds))
    return request('POST', f'queues/{name}/share', json={
        'methods': methods, 'paths': ['messages'],
        'expires': expires.strftime('%Y-%m-%dT%H:%M:%S')}).json()


def agent_endpoint() -> str:
    return CONF.zaqar.agent_endpoint or CONF.zaqar.endpoint


def reset() -> None:
    """Forget the session (tests, configuration changes)."""
    global _session
    with _session_lock:
        _session = None


def post_as_user(settings: dict, body: Any, ttl: int, service: str) -> None:
    """Post ``body`` as the only message of queue ``settings['queue_id']``
    of project ``settings['project_id']`` (see ``replace``), as the
    Keystone user of ``settings`` (``auth_url``, ``user_id``,
    ``password``, ``region_name``), on the Zaqar of that user's catalog:
    where Heat posts a ZAQAR_MESSAGE agent's document, and how the agent
    reads it. BackendUnavailable, naming ``service``, when refused or
    unreachable."""
    auth = identity.Password(
        auth_url=settings['auth_url'], user_id=settings['user_id'],
        password=settings['password'], project_id=settings['project_id'])
    user_session = ks_session.Session(auth=auth, timeout=DEFAULT_TIMEOUT)
    headers = {'Client-ID': CLIENT_ID, 'X-Project-ID': settings['project_id']}
    queue = settings['queue_id']

    def send(method: str, **kwargs: Any) -> Any:
        response = user_session.request(
            f'{endpoint.rstrip("/")}/v2/queues/{queue}/messages', method,
            headers=headers, raise_exc=False, connect_retries=0, **kwargs)
        if response.status_code == 404 and method == 'DELETE':
            return None  # no queue: nothing to remove
        if response.status_code >= 300:
            raise exception.BackendUnavailable(
                service=service, reason=f'{response.status_code} on '
                f'{method} of queue {queue}: {response.text[:200]}')
        return response

    try:
        endpoint = user_session.get_endpoint(
            service_type='messaging', interface='public',
            region_name=settings.get('region_name') or None)
        _pop_all(lambda: send('DELETE', params={'pop': POP_LIMIT}))
        send('POST', json={'messages': [{'body': body, 'ttl': ttl}]})
    except ks_exc.ClientException as exc:
        raise exception.BackendUnavailable(service=service,
                                           reason=str(exc)) from exc
