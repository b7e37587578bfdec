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

"""Options of the [upgrade_levels] group: RPC pins for rolling upgrades.

During a rolling upgrade new API servers run beside engines that are not
upgraded yet. An engine refuses a message of an RPC API version newer
than its own, so the new API servers are told, here, which version the
oldest engine still running answers. The value is checked where it is
used, when the API builds its RPC client at start-up
(``swconfig.engine.rpcapi``, which knows the versions this code speaks;
``conf`` is a lower layer and cannot import it).
"""

from oslo_config import cfg

group = cfg.OptGroup(
    'upgrade_levels', title='RPC version pins for rolling upgrades',
    help='Caps on the RPC API versions this service sends, so that '
         'services of the new release can work with those of the previous '
         'one while a deployment is upgraded host by host. See the '
         'Upgrades chapter of the administrator guide.')

opts = [
    cfg.StrOpt('engine',
               help='Newest engine RPC API version the API servers send, '
                    'e.g. "1.5"; unset (or empty): no cap, every call '
                    'uses the version this release speaks. Set it during '
                    'a rolling upgrade on every API server (swconfig-api, '
                    'the WSGI application, swconfig-all) of the new '
                    'release that may run while engines of an older '
                    'release still do (hosts upgraded one by one, or the '
                    'API servers first), to the RPC API version of the '
                    'oldest engine still running (the Upgrades chapter '
                    'and the release notes give each release\'s version). '
                    'Calls that an older version can express are then '
                    'sent in it; a request that needs a newer engine (for '
                    'example a deployment creation with an '
                    'Idempotency-Key, RPC API 1.6) is refused with 409 '
                    'instead of failing on the engine. Once every engine '
                    'is upgraded, remove the option and restart the API '
                    'servers. A value newer than this release\'s RPC API, '
                    'or not of the form MAJOR.MINOR, stops the API from '
                    'starting.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
