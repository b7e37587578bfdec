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

"""Values swconfig must keep but never in clear: sealed (encrypted and
authenticated, Fernet) with a key derived from one of the ``[agent]``
signing keys, the secrets every API worker and engine already shares.

The one such value today is the os-collect-config block of a server
handed back to Heat, which holds a stack user's password. A sealed text
is ``v1:<key id>:<token>``: it opens while that key is configured, so
keys can be rotated as for signed URLs (add the new one, make it the
signing key, keep the old one until what it sealed is gone).
"""

import base64
import json
from typing import Any

from cryptography import fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf import hkdf

from swconfig.common import exception
from swconfig.common import signing

_VERSION = 'v1'
#: Keeps the derived key apart from any other use of the signing key.
_PURPOSE = b'swconfig sealed values v1'


def _fernet(secret: bytes) -> fernet.Fernet:
    key = hkdf.HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                    info=_PURPOSE).derive(secret)
    return fernet.Fernet(base64.urlsafe_b64encode(key))


def seal(value: Any) -> str:
    """``value`` (JSON) sealed with the current signing key."""
    ring = signing.keyring()
    key_id = ring.signing_key_id
    token = _fernet(ring.keys[key_id]).encrypt(
        json.dumps(value, separators=(',', ':')).encode('utf-8'))
    return f'{_VERSION}:{key_id}:{token.decode("ascii")}'


def unseal(text: str) -> Any:
    """The value ``seal`` sealed; ConfigurationError when the key that
    sealed it is no longer configured or the text was altered."""
    version, _, rest = text.partition(':')
    key_id, _, token = rest.rpartition(':')
    keys = signing.keyring().keys
    if version != _VERSION or key_id not in keys:
        raise exception.ConfigurationError(
            reason=f'a sealed value needs signing key "{key_id}", which '
                   f'[agent] signing_keys no longer has')
    try:
        clear = _fernet(keys[key_id]).decrypt(token.encode('ascii'))
    except (fernet.InvalidToken, ValueError):
        raise exception.ConfigurationError(
            reason=f'a sealed value does not open with signing key '
                   f'"{key_id}": altered, or sealed with another secret '
                   f'of that id') from None
    return json.loads(clear)
