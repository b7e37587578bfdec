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

"""Documents stored with a sealed os-collect-config block: the stored
text holds no secret and stays byte-equal for an equal block (its ETag
with it); the agent's copy, opened where it leaves swconfig (an API
worker's metadata cache here), holds the block itself."""

import datetime
import json

import pytest

from swconfig.api.agent import metadata_cache
from swconfig.common import sealed_document
from swconfig.common import sealing
from swconfig.common import signing
from swconfig.engine import metadata

BLOCK = {'collectors': ['zaqar'],
         'zaqar': {'password': 'stack-user-secret', 'queue_id': 'q'}}


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setattr(signing, '_KEYRING',
                        signing.KeyRing({'unit': b'u' * 32}, 'unit'))


def _server(sealed):
    return {'id': 's-1', 'token_revision': 1, 'config_transport': None,
            'collect_config_override': sealed}


def test_a_stored_document_holds_the_block_sealed_and_stays_the_same():
    sealed = sealing.seal(BLOCK)

    first = metadata.build_document(_server(sealed), [])
    again = metadata.build_document(_server(sealed), [])

    assert 'stack-user-secret' not in first
    assert first == again
    assert sealed_document.is_sealed(first)
    assert json.loads(sealed_document.opened(first)) == {
        'deployments': [], 'os-collect-config': BLOCK}


def test_a_document_with_nothing_sealed_is_left_as_it_is():
    text = metadata.build_document(_server(None), [])

    assert not sealed_document.is_sealed(text)
    assert sealed_document.opened(text) is text


def test_the_agent_is_served_the_opened_block():
    text = metadata.build_document(_server(sealing.seal(BLOCK)), [])
    entry = metadata_cache.entry_of({
        'etag': metadata.document_etag(text), 'token_revision': 1,
        'document': text,
        'updated_at': datetime.datetime(2026, 12, 7, 23, 0, 0)})

    served = metadata_cache.content(entry)

    assert json.loads(served)['os-collect-config'] == BLOCK
    headers = dict(metadata_cache.answer(entry, 'GET')[1])
    assert headers['Content-Length'] == str(len(served))
    assert headers['ETag'] == f'"{metadata.document_etag(text)}"'
