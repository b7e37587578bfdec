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

"""The ``swconfig`` command's connection settings as the ``openstack``
command reads them: openstacksdk's ``openstack.config``
(os-client-config) loads ``--os-*`` options, ``OS_*`` variables and
``clouds.yaml`` (``--os-cloud``/``OS_CLOUD``). The endpoint is the
``orchestration`` entry of the Keystone catalog (swconfig registers as
Heat does, so heatclient finds it too), or the entry of the type
``OS_ORCHESTRATION_SERVICE_TYPE`` names (swconfig beside Heat), unless
one is given.

Imported only when needed (``cloud``): ``endpoint_only`` serves the
embedded default without it.
"""

import argparse
from collections.abc import Sequence
import logging
import os
from typing import Any

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from openstack import config as os_config
from openstack import exceptions as sdk_exceptions
from openstack.config import loader as os_config_loader

from swconfig.cli import endpoint_only
from swconfig.client import rest as api_client

#: The catalog type swconfig registers under (doc/source/admin/keystone.rst).
SERVICE_TYPE = 'orchestration'

_HOW_TO_CONNECT = (
    'set OS_CLOUD (clouds.yaml) or the OS_AUTH_URL/OS_USERNAME/... '
    'variables, or OS_AUTH_TYPE=none and '
    'OS_ENDPOINT=http://127.0.0.1:8004/v1/<project> for a service '
    'without Keystone')

LOG = logging.getLogger(__name__)

#: Keystone settings openstacksdk keeps beside ``auth`` (not in it).
_KEYSTONE_SETTINGS = ('auth_url', 'username', 'user_id', 'password')


class CloudLoader(os_config.OpenStackConfig):
    """openstacksdk's loader of ``--os-*``, ``OS_*`` and clouds.yaml,
    which under ``OS_AUTH_TYPE=none`` ignores the credentials an openrc
    left in the environment instead of failing on them."""

    def __init__(self) -> None:
        super().__init__()
        #: The auth values ``none`` ignored, for the ``--debug`` line.
        self.ignored: list[str] = []

    def auth_config_hook(self, config: dict[str, Any]) -> dict[str, Any]:
        # openstacksdk's documented hook, called before the auth plugin is
        # loaded (python-openstackclient overrides it too).
        if config.get('auth_type') not in endpoint_only.NO_AUTH_TYPES:
            return config
        accepted = {option.dest for option in
                    ks_loading.get_plugin_loader('none').get_options()}
        auth = config.get('auth') or {}
        self.ignored = sorted(
            [key for key in auth if key not in accepted]
            + [key for key in _KEYSTONE_SETTINGS if config.get(key)])
        config['auth'] = {key: value for key, value in auth.items()
                          if key in accepted}
        return config

    def session_and_endpoint(self, options: argparse.Namespace
                             ) -> tuple[ks_session.Session, str]:
        """The authenticated session and swconfig's endpoint, from the
        catalog unless one is given."""
        try:
            cloud = self.get_one(argparse=options)
            if self.ignored:
                LOG.debug('Auth type none: ignoring %s (they apply only '
                          'with Keystone)', ', '.join(
                              f'OS_{key.upper()}' for key in self.ignored))
            session: ks_session.Session = cloud.get_session()
            # OS_ORCHESTRATION_SERVICE_TYPE (clouds.yaml:
            # orchestration_service_type) picks swconfig's own catalog
            # entry when Heat holds "orchestration";
            # OS_ORCHESTRATION_INTERFACE too.
            service_type = cloud.get_service_type(SERVICE_TYPE)
            endpoint = cloud.get_endpoint(SERVICE_TYPE) or \
                session.get_endpoint(
                    service_type=service_type,
                    interface=cloud.get_interface(SERVICE_TYPE),
                    region_name=cloud.get_region_name(SERVICE_TYPE))
        except (ks_exceptions.ClientException,
                sdk_exceptions.SDKException) as error:
            raise api_client.SwconfigError(
                f'Cannot connect: {_one_line(error)}; {_HOW_TO_CONNECT}.'
            ) from error
        if not endpoint and cloud.config.get(
                'auth_type') in endpoint_only.NO_AUTH_TYPES:
            raise api_client.SwconfigError(self._no_endpoint_message())
        if not endpoint:
            raise api_client.SwconfigError(
                f'No swconfig endpoint ({service_type}) in the catalog; '
                f'{_HOW_TO_CONNECT}.')
        return session, endpoint

    def _no_endpoint_message(self) -> str:
        """The variable to unset when ``none`` has no endpoint but
        Keystone settings are there: the user meant one of the two."""
        if 'auth_url' in self.ignored:
            return ('OS_AUTH_TYPE=none needs OS_ENDPOINT (the service\'s '
                    'http://host:port/v1/<project>); to use the Keystone '
                    'of OS_AUTH_URL instead, unset OS_AUTH_TYPE.')
        return ('OS_AUTH_TYPE=none needs OS_ENDPOINT, e.g. '
                'OS_ENDPOINT=http://127.0.0.1:8004/v1/<project>.')


def _clouds_files() -> list[str]:
    """The clouds.yaml files openstacksdk looks for, in its order."""
    override = os.environ.get('OS_CLIENT_CONFIG_FILE')
    return ([override] if override else []) + list(
        os_config_loader.CONFIG_FILES)


def _unknown_cloud(loader: CloudLoader, name: str
                   ) -> api_client.SwconfigError:
    read = [path for path in _clouds_files() if os.path.isfile(path)]
    found = loader.config_filename
    if found or read:
        where = f'read {found or ", ".join(read)}'
    else:
        folders = dict.fromkeys(os.path.dirname(path)
                                for path in _clouds_files())
        where = f'no clouds.yaml found in {", ".join(folders)}'
    return api_client.SwconfigError(f'Cloud {name} was not found. It is '
                                    f'not in any clouds.yaml ({where}).')


def register_arguments(parser: argparse.ArgumentParser,
                       argv: Sequence[str]) -> CloudLoader:
    """Add the ``--os-*`` options (those of the chosen auth plugin
    included, which is why ``argv`` is needed) and return the loader that
    reads them back."""
    try:
        loader = CloudLoader()
        cloud = (endpoint_only.option_value(argv, '--os-cloud')
                 or os.environ.get('OS_CLOUD'))
        if cloud and cloud not in loader.get_cloud_names():
            raise _unknown_cloud(loader, cloud)
        # Reads --os-cloud/OS_CLOUD to learn the cloud's auth type.
        loader.register_argparse_arguments(parser, list(argv))
    except sdk_exceptions.ConfigException as error:
        raise api_client.SwconfigError(
            f'Cannot read the cloud configuration: {_one_line(error)}'
        ) from error
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
