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

"""Options of the [DEFAULT] group that are swconfig's own."""

import os

from oslo_config import cfg

opts = [
    cfg.StrOpt('auth_strategy',
               default='keystone',
               choices=[('noauth', 'No authentication: the caller is a '
                                   'member of the project named in the URL. '
                                   'For development and the embedded '
                                   'default only.'),
                        ('keystone', 'Validate Keystone tokens with '
                                     'keystonemiddleware auth_token.')],
               help='How API callers are authenticated.'),
    cfg.StrOpt('state_path',
               default=os.path.join(os.path.expanduser('~'), '.local',
                                    'share', 'swconfig'),
               sample_default='<home directory>/.local/share/swconfig',
               help='Directory where swconfig keeps local state, such as '
                    'the SQLite database of the embedded default. Created '
                    'if missing.'),
    cfg.StrOpt('service_backend',
               default='threading',
               choices=[('threading', 'Native threads (the default, as in '
                                      'Ironic, Heat and Octavia).'),
                        ('eventlet', 'Green threads; kept working for '
                                     'deployments that still need it.')],
               help='Concurrency backend of the swconfig services. Read '
                    'before any other module is loaded.'),
    cfg.BoolOpt('implicit_server_registration',
                default=True,
                help='Whether the first deployment to an unknown server '
                     '(or the first request for its agent settings) '
                     'registers it for the caller\'s project. When off, '
                     'servers must be registered with POST '
                     '/v1/{tenant_id}/servers before they accept '
                     'deployments.'),
    cfg.IntOpt('max_software_configs_per_tenant',
               default=4096,
               min=-1,
               help='Maximum number of software configs a project may '
                    'own; -1 means unlimited. Admins are not limited.'),
    cfg.IntOpt('max_software_deployments_per_tenant',
               default=4096,
               min=-1,
               help='Maximum number of software deployments a project may '
                    'own; -1 means unlimited. Admins are not limited.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)
