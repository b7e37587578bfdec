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

"""Options of the [zaqar] group: the Zaqar that ZAQAR_SIGNAL and
ZAQAR_MESSAGE use.

Authentication is keystoneauth's (``auth_type`` and the plugin's
options, plus the session options); ``auth_type = none`` (or unset) means
a Zaqar without Keystone, which then needs ``project_id``. With Keystone,
``project_id`` is also the identity plugin's own option of that name (the
project to scope to): one setting, not two. An unset ``timeout`` means 30
seconds here, not keystoneauth's "wait for ever".
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = 'zaqar'
group = cfg.OptGroup(GROUP, title='Zaqar for the queue transports',
                     help='The Zaqar that agents post their signals to '
                          '(ZAQAR_SIGNAL) and read their documents from '
                          '(ZAQAR_MESSAGE).')

opts = [
    cfg.URIOpt('endpoint',
               help='Zaqar\'s URL as swconfig reaches it, without the '
                    'version (e.g. http://zaqar.example.com:8888). Unset: '
                    'the Zaqar transports are not available.'),
    cfg.URIOpt('agent_endpoint',
               help='Zaqar\'s URL as servers reach it, handed to agents. '
                    'Default: endpoint.'),
    cfg.StrOpt('project_id',
               help='Project whose queues swconfig uses, sent as '
                    'X-Project-ID. Required with auth_type = none; with '
                    'Keystone, default: the authenticated project.'),
    cfg.StrOpt('queue_prefix',
               default='swconfig',
               help='Prefix of swconfig\'s queue names: <prefix>-s-<id> '
                    '(one per deployment action) and <prefix>-m-<id> (one '
                    'per server).'),
    cfg.FloatOpt('signal_poll_interval',
                 default=3.0,
                 min=0.5,
                 help='Seconds between an engine\'s claims on the queues '
                      'of the ZAQAR_SIGNAL deployments it owns (one '
                      'request per waiting deployment per interval).'),
    cfg.FloatOpt('max_retry_interval',
                 default=60.0,
                 min=1.0,
                 help='Longest wait, in seconds, between retries while '
                      'Zaqar is unreachable.'),
    cfg.IntOpt('message_ttl',
               default=86400,
               min=60,
               help='Seconds a document posted for a ZAQAR_MESSAGE agent '
                    'stays in its queue.'),
    cfg.IntOpt('signed_url_expiry',
               default=10 * 365 * 86400,
               min=3600,
               help='Seconds the pre-signed URL an agent posts its signal '
                    'with stays valid.'),
    cfg.IntOpt('claim_grace',
               default=60,
               min=60,
               help='Grace, in seconds, of the claims an engine makes on '
                    'signal messages (Zaqar requires at least 60).'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)


def list_opts() -> list:
    """swconfig's options, and keystoneauth's session and plugin choice;
    the chosen plugin's own options (``auth_url``, ``username``, ...) are
    read from the same group as for any OpenStack service."""
    return [(group, opts
             + ks_loading.get_session_conf_options()
             + ks_loading.get_auth_common_conf_options())]
