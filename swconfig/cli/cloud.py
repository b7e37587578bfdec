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
credentials: the same ``--os-*`` options, ``OS_*`` variables and
clouds.yaml as the ``openstack`` command, read by openstacksdk
(``clouds_config``); or, for the embedded default without Keystone
(``OS_AUTH_TYPE=none`` and ``OS_ENDPOINT`` alone), without loading
openstacksdk at all (``endpoint_only``).
"""

import argparse
from collections.abc import Mapping
from collections.abc import Sequence
import os
from typing import Protocol
import urllib.parse

from keystoneauth1 import session as ks_session

from swconfig.cli import endpoint_only
from swconfig.client import rest as api_client


class Loader(Protocol):
    """Reads back the options ``register_arguments`` added."""

    def session_and_endpoint(self, options: argparse.Namespace
                             ) -> tuple[ks_session.Session, str]: ...


def register_arguments(parser: argparse.ArgumentParser,
                       argv: Sequence[str],
                       environ: Mapping[str, str] = os.environ) -> Loader:
    """Add the options of the path ``argv`` and ``environ`` call for
    (``--os-*``, those of the chosen auth plugin included), and return
    the loader that ``make_client`` reads them back with."""
    if endpoint_only.applies(argv, environ):
        return endpoint_only.register_arguments(parser, environ)
    # Only here: importing openstacksdk is half of the command's start-up.
    from swconfig.cli import clouds_config
    return clouds_config.register_arguments(parser, argv)


def _check_endpoint(endpoint: str) -> None:
    """An endpoint without a scheme would be taken as a path relative to
    the catalog ("Could not find requested endpoint"): say what it is."""
    if urllib.parse.urlsplit(endpoint).scheme not in ('http', 'https'):
        raise api_client.SwconfigError(
            f'The endpoint {endpoint!r} (OS_ENDPOINT or --os-endpoint) is '
            f'not a URL: write it with its scheme, e.g. '
            f'http://{endpoint.split("://")[-1]}.')


def make_client(loader: Loader,
                options: argparse.Namespace) -> api_client.Client:
    """An authenticated REST client for the project the credentials (or
    the endpoint, without Keystone) name."""
    session, endpoint = loader.session_and_endpoint(options)
    _check_endpoint(endpoint)
    return api_client.Client(session, endpoint)
