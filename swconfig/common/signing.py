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

"""Signed agent URLs: HMAC tokens instead of per-server Keystone users.

A token is ``<key id>.<base64url HMAC-SHA256>`` over a purpose and the ids
it is scoped to (a server's metadata, or one action revision of one
deployment). Several keys may be active, so keys rotate without breaking
URLs already handed out; new tokens use the signing key. Verification is
constant-time.
"""

import base64
import hashlib
import hmac
import os
import secrets

from oslo_config import cfg
from oslo_log import log

from swconfig.common import exception
from swconfig.conf import CONF

LOG = log.getLogger(__name__)

GENERATED_KEY_FILE = 'signing.key'
METADATA = 'metadata'
SIGNAL = 'signal'


class KeyRing:
    """The configured keys, by id, and the id of the one that signs."""

    def __init__(self, keys: dict[str, bytes], signing_key_id: str) -> None:
        if signing_key_id not in keys:
            raise exception.ConfigurationError(
                reason=f'signing key "{signing_key_id}" is not among the '
                       f'configured keys')
        self.keys = keys
        self.signing_key_id = signing_key_id

    def _mac(self, key_id: str, message: str) -> str:
        digest = hmac.new(self.keys[key_id], message.encode('utf-8'),
                          hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b'=').decode('ascii')

    def sign(self, *parts: object) -> str:
        message = '\n'.join(str(part) for part in parts)
        key_id = self.signing_key_id
        return f'{key_id}.{self._mac(key_id, message)}'

    def verify(self, token: str | None, *parts: object) -> bool:
        if not token or '.' not in token:
            return False
        key_id, _, mac = token.partition('.')
        if key_id not in self.keys:
            return False
        message = '\n'.join(str(part) for part in parts)
        return hmac.compare_digest(mac.encode('ascii', 'replace'),
                                   self._mac(key_id, message).encode())


def _parse_entries(entries: list[str], source: str) -> dict[str, bytes]:
    keys = {}
    for entry in entries:
        entry = entry.strip()
        if not entry or entry.startswith('#'):
            continue
        key_id, sep, secret = entry.partition(':')
        if not sep or not key_id or len(secret) < 16:
            raise exception.ConfigurationError(
                reason=f'{source}: signing keys are "key_id:secret" with a '
                       f'secret of at least 16 characters')
        keys[key_id] = secret.encode('utf-8')
    return keys


def _generated_key_file(conf: cfg.ConfigOpts) -> str:
    path = os.path.join(conf.state_path, GENERATED_KEY_FILE)
    if not os.path.exists(path):
        os.makedirs(conf.state_path, mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, 'w') as handle:
            handle.write(f'generated:{secrets.token_urlsafe(32)}\n')
        LOG.warning('No signing key configured: generated one in %s. '
                    'Configure [agent] signing_keys for production.', path)
    return path


def load_keyring(conf: cfg.ConfigOpts = CONF) -> KeyRing:
    """Build the key ring from config; a missing key is a start-up error
    unless ``[agent] generate_signing_key`` allows making one."""
    keys = _parse_entries(conf.agent.signing_keys, '[agent] signing_keys')
    key_file = conf.agent.signing_key_file
    if not keys and not key_file and conf.agent.generate_signing_key:
        key_file = _generated_key_file(conf)
    if key_file:
        try:
            with open(key_file) as handle:
                keys.update(_parse_entries(handle.read().splitlines(),
                                           key_file))
        except OSError as exc:
            raise exception.ConfigurationError(
                reason=f'cannot read signing key file {key_file}: {exc}')
    if not keys:
        raise exception.ConfigurationError(
            reason='no signing key: set [agent] signing_keys or '
                   'signing_key_file')
    return KeyRing(keys, conf.agent.signing_key_id or next(iter(keys)))


_KEYRING: KeyRing | None = None


def keyring() -> KeyRing:
    global _KEYRING
    if _KEYRING is None:
        _KEYRING = load_keyring()
    return _KEYRING


def reset() -> None:
    global _KEYRING
    _KEYRING = None


def metadata_token(server_id: str, token_revision: int) -> str:
    return keyring().sign(METADATA, server_id, token_revision)


def signal_token(deployment_id: str, action_revision: int) -> str:
    return keyring().sign(SIGNAL, deployment_id, action_revision)


def verify_metadata(token: str | None, server_id: str,
                    token_revision: int) -> bool:
    return keyring().verify(token, METADATA, server_id, token_revision)


def verify_signal(token: str | None, deployment_id: str,
                  action_revision: int) -> bool:
    return keyring().verify(token, SIGNAL, deployment_id, action_revision)
