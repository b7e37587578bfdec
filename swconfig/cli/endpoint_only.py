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

"""The ``swconfig`` command without Keystone: ``OS_AUTH_TYPE=none`` and
``OS_ENDPOINT`` (or ``--os-auth-type none --os-endpoint URL``) and
nothing else.

There is then no catalog to read and no clouds.yaml to choose from, so
nothing of openstacksdk is needed; its import is about half of the
command's start-up (``benchmarks/cli_startup.py``). Whatever else the
command line or the environment holds (a cloud, a CA file, a leftover
openrc, a timeout) goes to openstacksdk's loader (``clouds_config``),
which knows what each setting means.
"""

import argparse
from collections.abc import Mapping
from collections.abc import Sequence

from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session

#: The auth types that send no token: the embedded default's.
NO_AUTH_TYPES = ('none', 'noauth')
#: The settings this path reads: as ``--os-*`` options and ``OS_*``
#: variables.
_READ = ('auth-type', 'endpoint')


class EndpointOnly:
    """The loader of this path: the options it added are read back."""

    def session_and_endpoint(self, options: argparse.Namespace
                             ) -> tuple[ks_session.Session, str]:
        """A session that sends no token, and the endpoint given."""
        endpoint = options.os_endpoint
        return ks_session.Session(auth=noauth.NoAuth(endpoint=endpoint)), \
            endpoint


def option_value(argv: Sequence[str], name: str) -> str | None:
    """The last value of ``--name VALUE`` or ``--name=VALUE`` (argparse
    keeps the last)."""
    value = None
    for index, word in enumerate(argv):
        if word == name and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith(name + '='):
            value = word.split('=', 1)[1]
    return value


def applies(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether the command line and the environment give an endpoint
    without Keystone and no other connection setting."""
    read = {f'--os-{name}' for name in _READ}
    for word in argv:
        if word == '--':
            break
        option = word.split('=', 1)[0]
        if (option.startswith('--os-') and option not in read) or (
                option == '--insecure'):
            return False
    allowed = {'OS_' + name.replace('-', '_').upper() for name in _READ}
    if any(key.startswith('OS_') and key not in allowed for key in environ):
        return False
    auth_type = option_value(argv, '--os-auth-type') or environ.get(
        'OS_AUTH_TYPE')
    endpoint = option_value(argv, '--os-endpoint') or environ.get(
        'OS_ENDPOINT')
    return auth_type in NO_AUTH_TYPES and bool(endpoint)


def register_arguments(parser: argparse.ArgumentParser,
                       environ: Mapping[str, str]) -> EndpointOnly:
    """The two options of this path, with the variables as defaults (as
    openstacksdk's loader names and reads them)."""
    parser.add_argument(
        '--os-auth-type', metavar='<name>',
        default=environ.get('OS_AUTH_TYPE'),
        help='Authentication type: none, without Keystone '
             '(Env: OS_AUTH_TYPE)')
    parser.add_argument(
        '--os-endpoint', metavar='<url>', default=environ.get('OS_ENDPOINT'),
        help='The service\'s http://host:port/v1/<project> '
             '(Env: OS_ENDPOINT)')
    return EndpointOnly()
