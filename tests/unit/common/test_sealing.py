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

"""Sealed values: they open with the key that sealed them, after a
rotation too, and never with another secret, a removed key or an
altered text; the clear value is nowhere in the sealed text."""

import pytest

from swconfig.common import exception
from swconfig.common import sealing
from swconfig.common import signing

VALUE = {'heat': {'password': 'stack-user-secret'}, 'n': [1, 'ü']}


@pytest.fixture
def use_keys(monkeypatch):
    def use(keys, current):
        monkeypatch.setattr(signing, '_KEYRING', signing.KeyRing(
            {key_id: secret.encode() for key_id, secret in keys.items()},
            current))
    return use


def test_a_sealed_value_opens_after_a_rotation(use_keys):
    use_keys({'old': 'o' * 32}, 'old')
    sealed = sealing.seal(VALUE)
    assert sealed.startswith('v1:old:')
    assert 'stack-user-secret' not in sealed
    use_keys({'old': 'o' * 32, 'new': 'n' * 32}, 'new')
    assert sealing.unseal(sealed) == VALUE
    assert sealing.seal(VALUE).startswith('v1:new:')


@pytest.mark.parametrize('keys,said', [
    ({'new': 'n' * 32}, 'needs signing key "old", which'),
    ({'old': 'x' * 32}, 'does not open with signing key "old"'),
])
def test_it_does_not_open_without_its_key(use_keys, keys, said):
    use_keys({'old': 'o' * 32}, 'old')
    sealed = sealing.seal(VALUE)
    use_keys(keys, next(iter(keys)))
    with pytest.raises(exception.ConfigurationError) as refused:
        sealing.unseal(sealed)
    assert said in str(refused.value)


def test_an_altered_text_does_not_open(use_keys):
    use_keys({'k': 'k' * 32}, 'k')
    sealed = sealing.seal(VALUE)
    altered = sealed[:-6] + ('A' if sealed[-6] != 'A' else 'B') + sealed[-5:]
    with pytest.raises(exception.ConfigurationError):
        sealing.unseal(altered)
