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

"""Options of the [coordination] group: engines that share background
work through tooz."""

from oslo_config import cfg

group = cfg.OptGroup('coordination', title='Engine coordination (tooz)',
                     help='How several engines share the background work '
                          'of the Swift and Zaqar transports: each item '
                          '(a signal container, a queue, a server\'s '
                          'document, a deployment\'s timeout) has exactly '
                          'one live engine as its owner.')

opts = [
    cfg.StrOpt('backend_url',
               secret=True,
               help='tooz backend URL, e.g. redis://127.0.0.1:6379 (any '
                    'tooz driver with group membership). Unset: this '
                    'engine owns all background work, which is right for '
                    'one engine; with several engines and no backend, each '
                    'does all of it (correct, since the database keeps '
                    'every signal to one application, but wasteful).'),
    cfg.StrOpt('group',
               default='swconfig-engines',
               help='tooz group the engines join. Engines of different '
                    'swconfig installations sharing one backend need '
                    'different groups.'),
    cfg.IntOpt('member_timeout',
               default=30,
               min=2,
               help='Seconds after its last heartbeat that a silent '
                    '(killed, partitioned) engine stops owning its items '
                    'and the others take them over. An engine that stops '
                    'cleanly hands them over at once. An engine that '
                    'cannot reach the backend keeps its share this long, '
                    'then does all background work itself until the '
                    'backend answers again.'),
    cfg.FloatOpt('member_heartbeat_interval',
                 min=0.2,
                 deprecated_name='heartbeat_interval',
                 sample_default='member_timeout / 5',
                 help='Seconds between an engine\'s heartbeats to the '
                      'coordination backend, which keep it a member of the '
                      'group, sent from a thread of their own so a busy '
                      'engine never looks dead. At most member_timeout / 3 '
                      '(a larger value is lowered, with a warning). The '
                      'live engines are read about once a second whatever '
                      'this is. (The heartbeats engines record in the '
                      'database are [engine] database_heartbeat_interval.)'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
