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

"""How swconfig sets its Swift account's TempURL key, against a real
Swift: the ``keys`` account of the ``swift`` fixture, which no stack
uses, with this process's ``[swift]`` options."""

import hashlib
import socket
import uuid

import pytest
import requests

from swconfig.conf import CONF
from swconfig.transports.swift import client
from tests.fixtures import processes

USER, KEY = 'keys:keys', 'keys'
KEY_HEADER = 'x-account-meta-temp-url-key'


@pytest.fixture
def account(swift):
    """The ``keys`` account with no TempURL key, and [swift] options
    naming it with a new key each test."""
    conn = swift.connection(USER, KEY)
    conn.post_account({'X-Remove-Account-Meta-Temp-URL-Key': 'x',
                       'X-Remove-Account-Meta-Temp-URL-Key-2': 'x'})
    options = {'auth_url': swift.auth_url, 'auth_version': '1',
               'user': USER, 'key': KEY,
               'temp_url_key': uuid.uuid4().hex,
               'container_prefix': 'key-tests'}
    for name, value in options.items():
        CONF.set_override(name, value, group='swift')
    client.reset()
    yield conn
    client.reset()
    for name in options:
        CONF.clear_override(name, group='swift')


def _memcached(swift, command: bytes) -> bytes:
    """memcached's whole answer to one text-protocol command."""
    with socket.create_connection((processes.HOST, swift.memcached_port),
                                  timeout=10) as conn:
        conn.sendall(command)
        answer = b''
        while not answer.endswith((b'END\r\n', b'STORED\r\n')):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


def _signed_put_status(account) -> int:
    """The status of a PUT to a TempURL swconfig signs now."""
    container = 'key-tests-objects'
    account.put_container(container)
    url = client.temp_url(container, uuid.uuid4().hex, 'PUT')
    return requests.put(url, data=b'{}', timeout=10).status_code


def test_a_read_racing_the_key_change_leaves_no_stale_cache(
        swift, account, monkeypatch):
    """A request that read the account before swconfig set its key may
    cache what it read after the key was set (Swift's proxy drops its
    cache on the POST, then the slow reader fills it). tempurl checks
    signatures against that cache for 60 s: swconfig reads the account
    again once the key is set."""
    account.head_account()  # the proxy caches the account without a key
    # Swift's memcache client names entries by the MD5 of their key.
    cache_key = hashlib.md5(f'account/AUTH_{USER.split(":")[0]}'.encode(),
                            usedforsecurity=False).hexdigest().encode()
    stale = _memcached(swift, b'get ' + cache_key + b'\r\n')
    header, _, rest = stale.partition(b'\r\n')
    _value, _key, flags, length = header.split()
    assert KEY_HEADER.encode() not in rest, stale
    real_call = client.call

    def racing_call(method, *args, **kwargs):
        result = real_call(method, *args, **kwargs)
        if method == 'post_account':
            # The slow reader writes what it read before the POST.
            stored = _memcached(
                swift, b'set %s %s 60 %s\r\n%s\r\n' % (
                    cache_key, flags, length, rest[:int(length)]))
            assert stored == b'STORED\r\n'
        return result

    monkeypatch.setattr(client, 'call', racing_call)
    assert _signed_put_status(account) == 201
    assert account.head_account()[KEY_HEADER] == CONF.swift.temp_url_key


def test_a_key_the_account_holds_as_its_second_one_is_kept(swift,
                                                           account):
    """Operators rotate keys through Temp-URL-Key-2: swconfig signs with
    it and leaves the first key alone."""
    account.post_account({'X-Account-Meta-Temp-URL-Key': 'the-old-key',
                          'X-Account-Meta-Temp-URL-Key-2':
                              CONF.swift.temp_url_key})
    assert _signed_put_status(account) == 201
    headers = account.head_account()
    assert headers[KEY_HEADER] == 'the-old-key'
    assert headers[KEY_HEADER + '-2'] == CONF.swift.temp_url_key


def test_a_new_key_replaces_the_first_one(swift, account):
    account.post_account({'X-Account-Meta-Temp-URL-Key': 'the-old-key'})
    assert _signed_put_status(account) == 201
    assert account.head_account()[KEY_HEADER] == CONF.swift.temp_url_key
