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

"""The plug-in's options in heat.conf: group ``[swconfig]``.

Kept apart from the client plug-in so that oslo-config-generator can list
them (namespace ``swconfig.heat``) on a host without Heat installed.
"""

from oslo_config import cfg

GROUP = 'swconfig'

OPTS = [
    cfg.StrOpt(
        'endpoint',
        help="swconfig's project endpoint, overriding the catalog: a URL "
             "such as http://swconfig.example.com:8004/v1/%(tenant_id)s, "
             "where %(tenant_id)s (or %(project_id)s) stands for the "
             "stack's project. Unset: the endpoint of service type "
             "'software-config' in the Keystone catalog, of the interface "
             "[clients_swconfig] (or [clients]) endpoint_type names."),
    cfg.IntOpt(
        'wait_seconds', default=20, min=1, max=60,
        help='How long one check of a running deployment waits for it to '
             'change (a long poll, ?wait=N). The agent\'s signal answers '
             'it at once; Heat checks again a second after each answer.'),
    cfg.IntOpt(
        'timeout', default=60, min=1,
        help='Seconds to wait for swconfig to answer an ordinary request '
             '(a long poll waits wait_seconds longer).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(OPTS, group=GROUP)


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    return [(GROUP, OPTS)]
