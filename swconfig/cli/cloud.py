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

"""Where the ``swconfig`` command sends its requests, and with which
credentials.

The same sources as the ``openstack`` command, read by openstacksdk's
``openstack.config`` (os-client-config): ``--os-*`` options, ``OS_*``
variables and ``clouds.yaml`` (``--os-cloud``/``OS_CLOUD``). The endpoint
is the ``orchestration`` entry of the Keystone catalog (swconfig registers
as Heat does, so heatclient finds it too), or the entry of the type
``OS_ORCHESTRATION_SERVICE_TYPE`` names (swconfig beside Heat), unless
one is given; with
``OS_AUTH_TYPE=none`` and ``OS_ENDPOINT=http://127.0.0.1:8004/v1/<project>``
the command talks to the embedded default without Keystone.
"""

import argparse
from collections.abc import Sequence

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import session as ks_session
from openstack import config as os_config
from openstack import exceptions as sdk_exceptions

from swconfig.client import rest as api_client

#: The catalog type swconfig registers under (doc/source/admin/keystone.rst).
SERVICE_TYPE = 'orchestration'

_HOW_TO_CONNECT = (
    'set OS_CLOUD (clouds.yaml) or the OS_AUTH_URL/OS_USERNAME/... '
    'variables, or OS_AUTH_TYPE=none and '
    'OS_ENDPOINT=http://127.0.0.1:8004/v1/<project> for a service '
    'without Keystone')


def register_arguments(parser: argparse.ArgumentParser,
                       argv: Sequence[str]) -> os_config.OpenStackConfig:
    """Add the ``--os-*`` options (those of the chosen auth plugin
    included, which is why ``argv`` is needed) and return the loader that
    ``make_client`` reads them back with."""
    loader = os_config.OpenStackConfig()
    loader.register_argparse_arguments(parser, list(argv))
    _rename_option(parser, '--timeout', '--os-timeout')
    return loader


def _rename_option(parser: argparse.ArgumentParser, old: str,
                   new: str) -> None:
    """cliff parses the global options anywhere on the line, so
    keystoneauth's global ``--timeout`` (HTTP seconds) would take the
    value of ``deployment create --timeout``; it becomes ``--os-timeout``
    (argparse has no public way to rename an option)."""
    action = parser._option_string_actions.pop(old, None)
    if action is None:
        return
    action.option_strings = [new if name == old else name
                             for name in action.option_strings]
    parser._option_string_actions[new] = action


def _one_line(error: BaseException) -> str:
    return ' '.join(str(error).split())


def make_client(loader: os_config.OpenStackConfig,
                options: argparse.Namespace) -> api_client.Client:
    """An authenticated REST client for the project the credentials (or
    the endpoint, without Keystone) name."""
    try:
        cloud = loader.get_one(argparse=options)
        session: ks_session.Session = cloud.get_session()
        # OS_ORCHESTRATION_SERVICE_TYPE (clouds.yaml:
        # orchestration_service_type) picks swconfig's own catalog entry
        # when Heat holds "orchestration"; OS_ORCHESTRATION_INTERFACE too.
        service_type = cloud.get_service_type(SERVICE_TYPE)
        endpoint = cloud.get_endpoint(SERVICE_TYPE) or session.get_endpoint(
            service_type=service_type,
            interface=cloud.get_interface(SERVICE_TYPE),
            region_name=cloud.get_region_name(SERVICE_TYPE))
    except (ks_exceptions.ClientException,
            sdk_exceptions.SDKException) as error:
        raise api_client.SwconfigError(
            f'Cannot connect: {_one_line(error)}; {_HOW_TO_CONNECT}.'
        ) from error
    if not endpoint:
        raise api_client.SwconfigError(
            f'No swconfig endpoint ({service_type}) in the catalog; '
            f'{_HOW_TO_CONNECT}.')
    return api_client.Client(session, endpoint)
