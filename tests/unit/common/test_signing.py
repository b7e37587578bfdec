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

"""Signed agent URLs (swconfig.common.signing): HMAC tokens scoped to a
purpose and ids, several active keys for rotation, start-up key checks.

Every test builds its own ConfigOpts (or KeyRing), so nothing here depends
on, or changes, the process-wide configuration.
"""

import os
import stat

from oslo_config import cfg
import pytest

from swconfig.common import exception
from swconfig.common import signing
from swconfig.conf import agent as agent_conf
from swconfig.conf import default as default_conf

OLD = 'old:' + 'o' * 32
NEW = 'new:' + 'n' * 32


def make_conf(tmp_path, **agent_options):
    """A ConfigOpts of the test's own. The [agent] group is a new OptGroup:
    oslo.config copies a registered group only shallowly, so overrides set
    through the shared ``agent_conf.group`` would reach the global CONF."""
    conf = cfg.ConfigOpts()
    default_conf.register_opts(conf)
    conf.register_opts(agent_conf.default_opts)
    conf.register_group(cfg.OptGroup(agent_conf.group.name))
    conf.register_opts(agent_conf.agent_opts, group=agent_conf.group.name)
    conf([], default_config_files=[])
    conf.set_override('state_path', str(tmp_path / 'state'))
    for name, value in agent_options.items():
        conf.set_override(name, value, group='agent')
    return conf


def ring(*entries, signing_key_id=None):
    keys = {entry.partition(':')[0]: entry.partition(':')[2].encode()
            for entry in entries}
    return signing.KeyRing(keys, signing_key_id or next(iter(keys)))


@pytest.fixture
def installed(monkeypatch):
    """Install a key ring as the process's one, for the module-level
    token functions; the previous one is put back afterwards."""
    def install(keyring):
        monkeypatch.setattr(signing, '_KEYRING', keyring)
        return keyring
    return install


# -- tokens -------------------------------------------------------------------

def test_sign_verify_round_trip_and_format():
    keys = ring(NEW)
    token = keys.sign('signal', 'dep-1', 1)
    key_id, dot, mac = token.partition('.')
    assert (key_id, dot) == ('new', '.')
    assert len(mac) == 43 and '=' not in mac  # SHA-256, base64url, no pad
    assert set(mac) <= set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvw'
                           'xyz0123456789-_')
    assert keys.verify(token, 'signal', 'dep-1', 1)
    assert keys.sign('signal', 'dep-1', 1) == token  # deterministic
    assert keys.sign('signal', 'dep-2', 1) != token


def test_module_tokens_round_trip(installed):
    installed(ring(NEW))
    signal = signing.signal_token('dep-1', 3)
    assert signing.verify_signal(signal, 'dep-1', 3)
    metadata = signing.metadata_token('srv-1', 1)
    assert signing.verify_metadata(metadata, 'srv-1', 1)


@pytest.mark.parametrize('verify, ids', [
    (signing.verify_signal, ('dep-1', 2)),       # wrong revision
    (signing.verify_signal, ('dep-2', 1)),       # wrong deployment
    (signing.verify_signal, ('dep-1', 0)),
    (signing.verify_metadata, ('dep-1', 1)),     # wrong purpose
])
def test_signal_token_is_scoped(installed, verify, ids):
    installed(ring(NEW))
    assert not verify(signing.signal_token('dep-1', 1), *ids)


@pytest.mark.parametrize('verify, ids', [
    (signing.verify_metadata, ('srv-1', 2)),     # revoked by a new revision
    (signing.verify_metadata, ('srv-2', 1)),
    (signing.verify_signal, ('srv-1', 1)),       # wrong purpose
])
def test_metadata_token_is_scoped(installed, verify, ids):
    installed(ring(NEW))
    assert not verify(signing.metadata_token('srv-1', 1), *ids)


def _mangled(token):
    key_id, _, mac = token.partition('.')
    flipped = ('A' if mac[5] != 'A' else 'B')
    return {
        'none': None,
        'empty': '',
        'no dot': key_id + mac,
        'key id only': key_id,
        'key id and dot': key_id + '.',
        'mac only': '.' + mac,
        'truncated by one': token[:-1],
        'truncated by half': token[:len(token) // 2],
        'extended': token + 'A',
        'one character changed': f'{key_id}.{mac[:5]}{flipped}{mac[6:]}',
        'unknown key id': f'nosuch.{mac}',
        'other key id, same mac': f'old.{mac}',
        'padded': token + '=',
        'non-ascii': token[:-1] + '\u00e9',
        'whitespace': f' {token}',
        'upper-cased': token.upper(),
    }


@pytest.mark.parametrize('case', sorted(_mangled('k.x' * 20)))
def test_truncated_or_forged_tokens_fail(installed, case):
    installed(ring(NEW, OLD, signing_key_id='new'))
    token = signing.signal_token('dep-1', 1)
    assert signing.verify_signal(token, 'dep-1', 1)
    assert not signing.verify_signal(_mangled(token)[case], 'dep-1', 1)


def test_a_mac_from_another_key_fails():
    token = ring(OLD).sign('metadata', 'srv', 1)
    other = ring('old:' + 'x' * 32)  # same key id, other secret
    assert not other.verify(token, 'metadata', 'srv', 1)


# -- key rotation -------------------------------------------------------------

def test_key_rotation(tmp_path):
    before = signing.load_keyring(make_conf(tmp_path, signing_keys=[OLD]))
    old_token = before.sign('signal', 'dep', 1)
    assert old_token.startswith('old.')

    # Step 1: the new key signs, the old one still verifies.
    during = signing.load_keyring(make_conf(
        tmp_path, signing_keys=[OLD, NEW], signing_key_id='new'))
    assert during.verify(old_token, 'signal', 'dep', 1)
    new_token = during.sign('signal', 'dep', 1)
    assert new_token.startswith('new.') and new_token != old_token

    # Step 2: the old key is removed; its URLs stop working.
    after = signing.load_keyring(make_conf(tmp_path, signing_keys=[NEW]))
    assert not after.verify(old_token, 'signal', 'dep', 1)
    assert after.verify(new_token, 'signal', 'dep', 1)


def test_signing_key_id_defaults_to_the_first_key(tmp_path):
    keys = signing.load_keyring(make_conf(tmp_path,
                                          signing_keys=[NEW, OLD]))
    assert keys.signing_key_id == 'new'
    assert set(keys.keys) == {'new', 'old'}
    keys = signing.load_keyring(make_conf(tmp_path, signing_keys=[NEW, OLD],
                                          signing_key_id='old'))
    assert keys.sign('x').startswith('old.')


def test_signing_key_id_must_be_configured(tmp_path):
    with pytest.raises(exception.ConfigurationError) as info:
        signing.load_keyring(make_conf(tmp_path, signing_keys=[OLD],
                                       signing_key_id='new'))
    assert '"new"' in info.value.message


# -- parsing keys -------------------------------------------------------------

def test_key_entries_are_parsed(tmp_path):
    keys = signing.load_keyring(make_conf(tmp_path, signing_keys=[
        '  a:' + 's' * 16 + '  ', 'b:with:colons:' + 'c' * 8, '', '#x:y']))
    assert keys.keys == {'a': b's' * 16, 'b': b'with:colons:' + b'c' * 8}


@pytest.mark.parametrize('entry', [
    'nocolon' + 'x' * 20,        # no separator
    ':' + 'x' * 20,              # no key id
    'short:' + 'x' * 15,         # secret under 16 characters
    'empty:',
])
def test_bad_key_entries_are_configuration_errors(tmp_path, entry):
    with pytest.raises(exception.ConfigurationError) as info:
        signing.load_keyring(make_conf(tmp_path, signing_keys=[entry]))
    assert 'key_id:secret' in info.value.message
    assert '[agent] signing_keys' in info.value.message


def test_key_file_adds_to_the_listed_keys(tmp_path):
    key_file = tmp_path / 'keys'
    key_file.write_text(f'# rotated 2030-01-01\n\n{NEW}\n  {OLD}  \n')
    keys = signing.load_keyring(make_conf(
        tmp_path, signing_keys=['listed:' + 'l' * 16],
        signing_key_file=str(key_file), signing_key_id='new'))
    assert set(keys.keys) == {'listed', 'new', 'old'}
    assert keys.keys['old'] == b'o' * 32
    assert keys.sign('x').startswith('new.')
    # A key in the file only verifies URLs signed with it elsewhere.
    assert keys.verify(ring(OLD).sign('x'), 'x')


def test_bad_key_file_lines_name_the_file(tmp_path):
    key_file = tmp_path / 'keys'
    key_file.write_text('broken\n')
    with pytest.raises(exception.ConfigurationError) as info:
        signing.load_keyring(make_conf(tmp_path,
                                       signing_key_file=str(key_file)))
    assert str(key_file) in info.value.message


def test_unreadable_key_file_is_a_configuration_error(tmp_path):
    missing = tmp_path / 'nosuch'
    with pytest.raises(exception.ConfigurationError) as info:
        signing.load_keyring(make_conf(tmp_path,
                                       signing_key_file=str(missing)))
    assert 'cannot read signing key file' in info.value.message
    assert str(missing) in info.value.message


def test_empty_key_file_means_no_key(tmp_path):
    key_file = tmp_path / 'keys'
    key_file.write_text('# nothing yet\n')
    with pytest.raises(exception.ConfigurationError):
        signing.load_keyring(make_conf(tmp_path,
                                       signing_key_file=str(key_file)))


# -- a missing key ------------------------------------------------------------

def test_missing_key_is_a_configuration_error(tmp_path):
    with pytest.raises(exception.ConfigurationError) as info:
        signing.load_keyring(make_conf(tmp_path))
    assert 'no signing key' in info.value.message
    assert not (tmp_path / 'state').exists()


def test_generate_signing_key_writes_a_private_file(tmp_path):
    conf = make_conf(tmp_path, generate_signing_key=True)
    keys = signing.load_keyring(conf)
    path = tmp_path / 'state' / signing.GENERATED_KEY_FILE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / 'state').st_mode) == 0o700
    key_id, _, secret = path.read_text().strip().partition(':')
    assert key_id == 'generated' and len(secret) >= 32
    assert keys.keys == {'generated': secret.encode()}
    assert keys.sign('x').startswith('generated.')

    # Later start-ups reuse it, so URLs already handed out stay valid.
    token = keys.sign('signal', 'dep', 1)
    again = signing.load_keyring(conf)
    assert again.verify(token, 'signal', 'dep', 1)
    assert path.read_text().strip() == f'{key_id}:{secret}'


def test_generated_keys_differ_per_state_path(tmp_path):
    first = signing.load_keyring(make_conf(tmp_path / 'a',
                                           generate_signing_key=True))
    second = signing.load_keyring(make_conf(tmp_path / 'b',
                                            generate_signing_key=True))
    assert first.keys != second.keys
    assert not second.verify(first.sign('x'), 'x')


def test_configured_keys_win_over_generation(tmp_path):
    keys = signing.load_keyring(make_conf(tmp_path, signing_keys=[NEW],
                                          generate_signing_key=True))
    assert set(keys.keys) == {'new'}
    assert not (tmp_path / 'state').exists()


def test_generated_file_is_read_if_it_already_exists(tmp_path):
    state = tmp_path / 'state'
    state.mkdir()
    (state / signing.GENERATED_KEY_FILE).write_text('mine:' + 'm' * 20)
    keys = signing.load_keyring(make_conf(tmp_path,
                                          generate_signing_key=True))
    assert keys.keys == {'mine': b'm' * 20}
