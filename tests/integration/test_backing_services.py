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

"""The real Swift and Zaqar of the test session do what the transports
rely on.

The transport tests would fail in confusing ways if a fixture started a
Swift whose TempURLs or a Zaqar whose signed URLs did not work; these
tests pin each capability down on its own: a PUT TempURL written
anonymously, the proxy taken away and brought back, the Keystone-backed
proxy in the catalog writing to a project's own account, and a message
posted with nothing but a Zaqar pre-signed URL.
"""

import hashlib
import uuid

import pytest
import requests
from swiftclient import client as swift_client
from swiftclient import exceptions as swift_exc
from swiftclient import utils as swift_utils
from zaqarclient.queues import client as zaqar_client
from zaqarclient.transport import errors as zaqar_errors

from tests.fixtures import keystone as keystone_fixture

DEMO_USER = 'demo:demo'
DEMO_KEY = 'demo'


def _names() -> tuple[str, str]:
    return f'c-{uuid.uuid4().hex[:8]}', f'o-{uuid.uuid4().hex[:8]}'


def test_anonymous_put_temp_url_writes_an_object_the_account_reads(swift):
    # The demo account ("a user's own account"): the test account's key
    # belongs to the swconfig stacks of the session.
    conn = swift.connection(DEMO_USER, DEMO_KEY)
    key = uuid.uuid4().hex
    conn.post_account({'X-Account-Meta-Temp-URL-Key': key})
    container, name = _names()
    conn.put_container(container)
    path = f'{conn.url.split(swift.proxy_url, 1)[1]}/{container}/{name}'
    body = b'{"deploy_status_code": 0}'
    temp_url = swift_utils.generate_temp_url(path, 300, key, 'PUT',
                                             digest='sha256')

    forged = temp_url.replace('temp_url_sig=', 'temp_url_sig=0')
    assert requests.put(swift.proxy_url + forged, data=body,
                        timeout=10).status_code == 401
    assert requests.put(swift.proxy_url + temp_url, data=body,
                        timeout=10).status_code == 201

    etag = hashlib.md5(body, usedforsecurity=False).hexdigest()
    headers, stored = conn.get_object(container, name)
    assert (stored, headers['etag']) == (body, etag)
    _headers, listing = conn.get_container(container)
    assert [(item['name'], item['hash']) for item in listing] == [
        (name, etag)]


def test_stopped_proxy_refuses_requests_until_started_again(swift):
    conn = swift.connection(DEMO_USER, DEMO_KEY)
    # The account must exist: the proxy answers a HEAD of one that does
    # not (it would make it at the first write) with 200, not 204.
    conn.put_container('proxy-restart')
    conn.head_account()
    swift.stop_proxy()
    try:
        with pytest.raises(requests.ConnectionError):
            requests.head(conn.url, timeout=5,
                          headers={'X-Auth-Token': conn.token})
    finally:
        swift.start_proxy()
    reply = requests.head(conn.url, timeout=5,
                          headers={'X-Auth-Token': conn.token})
    assert reply.status_code == 204, reply.text


@pytest.fixture(scope='module')
def keystone_swift(swift, keystone):
    """The Keystone-backed proxy, in the catalog as ``object-store``."""
    url = swift.start_keystone_proxy(keystone.authtoken_options())
    keystone.register_endpoint('object-store',
                               url + '/v1/AUTH_%(project_id)s')
    return url


def _user_swift(keystone, user: str) -> swift_client.Connection:
    return swift_client.Connection(
        session=keystone.session(user), retries=0, timeout=10,
        os_options={'region_name': keystone_fixture.REGION,
                    'interface': 'public'})


def test_catalog_names_the_keystone_proxy_for_each_project(keystone_swift,
                                                           keystone):
    project = keystone.project_id(keystone_fixture.PROJECT_A)
    for interface in ('public', 'internal', 'admin'):
        assert keystone.session('member_a').get_endpoint(
            service_type='object-store', interface=interface,
            region_name=keystone_fixture.REGION) == (
                f'{keystone_swift}/v1/AUTH_{project}')


def test_member_writes_to_its_project_account_reader_cannot(keystone_swift,
                                                            keystone):
    container, name = _names()
    member = _user_swift(keystone, 'member_a')
    member.put_container(container)
    member.put_object(container, name, b'hello')
    assert member.get_object(container, name)[1] == b'hello'
    project = keystone.project_id(keystone_fixture.PROJECT_A)
    assert member.url == f'{keystone_swift}/v1/AUTH_{project}'

    with pytest.raises(swift_exc.ClientException) as refused:
        _user_swift(keystone, 'reader_a').put_object(container, 'x', b'x')
    assert refused.value.http_status == 403


def test_message_posted_with_only_a_signed_url_can_be_claimed(zaqar):
    queue_name = f'q-{uuid.uuid4().hex[:8]}'
    owner = zaqar.client()
    queue = owner.queue(queue_name)  # creates it (auto_create)
    signed = queue.signed_url(paths=['messages'], methods=['POST'],
                              ttl_seconds=600)
    assert signed['project'] == zaqar.project_id

    def signed_client(signature: str):
        return zaqar_client.Client(zaqar.endpoint, version=2, conf={
            'auth_opts': {'backend': 'signed-url', 'options': {
                'signature': signature, 'expires': signed['expires'],
                'methods': signed['methods'], 'paths': signed['paths'],
                'os_project_id': signed['project']}}})

    body = {'deploy_status_code': 0, 'id': uuid.uuid4().hex}
    forged = signed_client('0' * len(signed['signature']))
    with pytest.raises(zaqar_errors.ResourceNotFound):
        forged.queue(queue_name, auto_create=False).post(
            {'body': body, 'ttl': 600})
    signed_client(signed['signature']).queue(
        queue_name, auto_create=False).post({'body': body, 'ttl': 600})

    claim = queue.claim(ttl=60, grace=60, limit=10)
    messages = list(claim)
    assert [message.body for message in messages] == [body]
    messages[0].delete()
    assert list(queue.messages()) == []
