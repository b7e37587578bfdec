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

"""swconfig's own Swift account: connections, containers and TempURLs.

One connection per thread (python-swiftclient's ``Connection`` is not
thread-safe), re-authenticating when its token expires. The account's
storage URL and TempURL key are fetched once per process: TempURLs are
then signed locally, with no request to Swift, while a deployment is
created.
"""

import hashlib
import threading
import time
from typing import TYPE_CHECKING
from typing import Any
from urllib import parse

from oslo_log import log
import requests

from swconfig.common import exception
from swconfig.conf import CONF

if TYPE_CHECKING:
    from swiftclient import client as swift_client
    from swiftclient import exceptions as swift_exc

# python-swiftclient (keystoneclient with it) is imported where it is
# used: loading it took a tenth of swconfig-all's start-up, and only a
# cloud with the Swift transports needs it.

LOG = log.getLogger(__name__)

SERVICE = 'Swift'
#: Seconds a PUT to a TempURL may take.
TEMP_URL_TIMEOUT = 30.0
#: Objects are named <deployment id>/<action revision> in one of this many
#: signal containers, chosen by the deployment id: the containers are the
#: units engines share out (tooz), and one listing covers all the waiting
#: deployments of a container.
SIGNAL_CONTAINERS = 32

_local = threading.local()
_account: dict[str, str] = {}
_account_lock = threading.Lock()


def missing_configuration() -> str | None:
    """Why the Swift transports cannot work with this configuration, or
    None."""
    if not CONF.swift.auth_url:
        return 'the [swift] section has no auth_url'
    if not CONF.swift.user or not CONF.swift.key:
        return '[swift] user and key are required'
    if not CONF.swift.temp_url_key:
        return '[swift] temp_url_key is required'
    if CONF.swift.auth_version == '3' and not CONF.swift.project_name:
        return '[swift] project_name is required with auth_version 3'
    return None


def service_problem() -> str | None:
    """None if swconfig's account answers a HEAD now, else why not."""
    try:
        call('head_account')
    except exception.SwconfigException as exc:
        return str(exc)
    return None


def _connect() -> 'swift_client.Connection':
    from swiftclient import client as swift_client

    conf = CONF.swift
    os_options = {}
    if conf.auth_version == '3':
        os_options = {'project_name': conf.project_name,
                      'project_domain_name': conf.project_domain_name,
                      'user_domain_name': conf.user_domain_name,
                      'region_name': conf.region_name,
                      'endpoint_type': f'{conf.interface}URL'}
    # No retries here: the callers decide (a request answers 503, a worker
    # backs off), so an outage never blocks a thread for minutes.
    return swift_client.Connection(
        authurl=conf.auth_url, user=conf.user, key=conf.key,
        auth_version=conf.auth_version, os_options=os_options,
        cacert=conf.cacert, insecure=conf.insecure, timeout=conf.timeout,
        retries=0)


def connection() -> 'swift_client.Connection':
    """This thread's connection to swconfig's account."""
    conn = getattr(_local, 'connection', None)
    if conn is None:
        conn = _local.connection = _connect()
    return conn


def call(method: str, *args: Any, **kwargs: Any) -> Any:
    """``connection().<method>(...)`` with Swift's failures as
    exceptions of ours: a missing object or container is NotFound,
    anything else that means "Swift cannot serve this now" is
    BackendUnavailable. An expired token is renewed once."""
    from swiftclient import exceptions as swift_exc

    for attempt in (1, 2):
        conn = connection()
        try:
            return getattr(conn, method)(*args, **kwargs)
        except swift_exc.ClientException as exc:
            if exc.http_status == 404:
                raise exception.NotFound(
                    f'Swift: {exc.http_path} not found') from exc
            if exc.http_status == 401 and attempt == 1:
                _local.connection = None
                continue
            raise exception.BackendUnavailable(
                service=SERVICE, reason=_describe(exc)) from exc
        except (requests.RequestException, OSError) as exc:
            _local.connection = None
            raise exception.BackendUnavailable(
                service=SERVICE, reason=str(exc) or type(exc).__name__
            ) from exc
    raise AssertionError('not reached')


def _describe(exc: 'swift_exc.ClientException') -> str:
    if exc.http_status is None:
        return str(exc)
    return f'{exc.http_status} {exc.http_reason or ""} on {exc.http_path}'


def account() -> dict[str, str]:
    """``storage_url`` (swconfig's), ``agent_url`` (as servers reach it)
    and ``key`` (the configured TempURL key, set on the account), fetched
    once per process."""
    with _account_lock:
        if not _account:
            _account.update(_load_account())
        return dict(_account)


#: The account's headers holding its two TempURL keys.
_KEY_HEADERS = ('x-account-meta-temp-url-key',
                'x-account-meta-temp-url-key-2')


def _load_account() -> dict[str, str]:
    storage_url, _token = call('get_auth')
    key = CONF.swift.temp_url_key
    # Swift must know the key the URLs are signed with: as either of its
    # keys, so that operators can rotate keys through the second one.
    if key not in map(call('head_account').get, _KEY_HEADERS):
        LOG.info('Setting the TempURL key on Swift account %s',
                 storage_url)
        call('post_account', headers={'X-Account-Meta-Temp-URL-Key': key})
        # A POST drops the proxy's cached account info, which tempurl
        # checks signatures against; a read that began before it can
        # cache the info without the key again, for the proxy's
        # recheck_account_existence (60 s): every TempURL would be
        # refused until then. A HEAD reads the account now and caches it.
        call('head_account')
    return {'storage_url': storage_url,
            'agent_url': CONF.swift.agent_storage_url or storage_url,
            'key': key}


def temp_url(container: str, obj: str, method: str) -> str:
    """An absolute TempURL of ``container/obj`` for ``method``, valid for
    ``[swift] temp_url_expiry`` seconds, as servers reach the account."""
    details = account()
    agent_url = parse.urlsplit(details['agent_url'])
    path = (f'{agent_url.path.rstrip("/")}/{parse.quote(container)}/'
            f'{parse.quote(obj)}')
    from swiftclient import utils as swift_utils

    expires = int(time.time()) + CONF.swift.temp_url_expiry
    signed = swift_utils.generate_temp_url(
        path, expires, details['key'], method, absolute=True,
        digest=CONF.swift.temp_url_digest)
    return f'{agent_url.scheme}://{agent_url.netloc}{signed}'


def signal_container(deployment_id: str) -> str:
    """The signal container of a deployment: a stable choice, spread
    evenly whatever the id looks like."""
    digest = hashlib.sha256(deployment_id.encode()).digest()
    return signal_container_name(
        int.from_bytes(digest[:4], 'big') % SIGNAL_CONTAINERS)


def signal_container_name(shard: int) -> str:
    return f'{CONF.swift.container_prefix}-signals-{shard:02d}'


def metadata_container() -> str:
    return f'{CONF.swift.container_prefix}-metadata'


_known_containers: set[str] = set()


def ensure_container(container: str) -> None:
    """Create ``container`` unless this process did already (a TempURL
    PUT into a missing container is a 404, on which agents give up)."""
    if container not in _known_containers:
        call('put_container', container)
        _known_containers.add(container)


def ensure_signal_containers() -> None:
    """Create every signal container this process does not know of yet,
    so that deployments can be created while Swift is briefly down."""
    for shard in range(SIGNAL_CONTAINERS):
        ensure_container(signal_container_name(shard))


def forget_container(container: str) -> None:
    """After a 404 on it: create it again on next use."""
    _known_containers.discard(container)


def reset() -> None:
    """Forget cached account details and containers (tests, a key
    rotation)."""
    with _account_lock:
        _account.clear()
    _known_containers.clear()
    _local.connection = None


def put_to_temp_url(url: str, body: bytes, service: str) -> None:
    """PUT ``body`` to a TempURL another service signed (Heat's
    ``metadata_put_url``): no credentials of ours, only the URL.
    BackendUnavailable, naming ``service``, when it is refused (401: the
    account's key changed since) or cannot be reached."""
    try:
        response = requests.put(url, data=body, timeout=TEMP_URL_TIMEOUT,
                                headers={'Content-Type': 'application/json'})
    except requests.RequestException as exc:
        raise exception.BackendUnavailable(service=service,
                                           reason=str(exc)) from exc
    if response.status_code >= 300:
        raise exception.BackendUnavailable(
            service=service, reason=f'{response.status_code} on PUT: '
                                    f'{response.text[:200]}')
