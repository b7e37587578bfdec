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

"""Options for the agent path: transports, signed URLs, timeouts.

``[DEFAULT]`` keeps Heat's option names for the transport defaults;
``[agent]`` holds what is swconfig's own.
"""

from oslo_config import cfg

default_opts = [
    cfg.StrOpt('default_deployment_signal_transport',
               default='HEAT_SIGNAL',
               help='Signal transport used when a deployment asks for '
                    '"default" (server-side derivation): the name of an '
                    'installed transport (an entry point of the '
                    'swconfig.transports namespace; the transports '
                    'documentation describes those swconfig ships). A name '
                    'that is not installed, or whose option group is not '
                    'configured, stops the service at start-up.'),
    cfg.StrOpt('default_software_config_transport',
               default='POLL_SERVER_URL',
               help='How the agents of newly registered servers learn '
                    'their deployments: the name of an installed metadata '
                    'transport (an entry point of the '
                    'swconfig.metadata_transports namespace), checked at '
                    'start-up like default_deployment_signal_transport. A '
                    'server keeps the transport it was registered with, so '
                    'changing this does not break agents already '
                    'configured.'),
    cfg.IntOpt('default_deployment_timeout',
               default=3600,
               min=0,
               help='Seconds a server-derived deployment may stay '
                    'IN_PROGRESS before the engine fails it; 0 means no '
                    'timeout. A deployment request may set its own.'),
]

group = cfg.OptGroup('agent', title='Agent-facing URLs and signing')

agent_opts = [
    cfg.ListOpt('signing_keys',
                default=[],
                secret=True,
                help='HMAC keys for the signed metadata and signal URLs, as '
                     '"key_id:secret" entries. Several may be active so keys '
                     'can be rotated: URLs signed with any listed key are '
                     'accepted; new URLs use signing_key_id.'),
    cfg.StrOpt('signing_key_id',
               help='Id of the key in signing_keys (or signing_key_file) '
                    'that signs new URLs; defaults to the first key.'),
    cfg.StrOpt('signing_key_file',
               help='File with one "key_id:secret" per line, read in '
                    'addition to signing_keys.'),
    cfg.BoolOpt('generate_signing_key',
                default=False,
                help='Create a random key in state_path when no key is '
                     'configured. swconfig-all (the embedded default) turns '
                     'this on; production services refuse to start '
                     'without a key instead.'),
    cfg.IntOpt('polling_interval',
               default=30,
               min=1,
               help='Polling interval, in seconds, written into the '
                    'os-collect-config settings handed to agents.'),
    cfg.IntOpt('signal_sweep_interval',
               default=5,
               min=1,
               help='Seconds between the engine\'s sweeps for stored '
                    'signals that no engine has applied yet (after an '
                    'engine crash or a messaging outage).'),
    cfg.FloatOpt('document_push_interval',
                 default=1.0,
                 min=0.1,
                 help='Seconds between an engine\'s checks for documents '
                      'to push to servers whose metadata transport pushes '
                      'them (to Swift or Zaqar): a change reaches their '
                      'agents within about this.'),
    cfg.IntOpt('timeout_check_interval',
               default=10,
               min=1,
               help='Longest time, in seconds, between an engine\'s checks '
                    'for deployments that have passed their timeout. An '
                    'engine checks when the next deadline is due (a '
                    'timeout fires within about a second of it), so this '
                    'only bounds how late a deadline set by another engine '
                    'is seen when several engines run.'),
    cfg.IntOpt('max_signal_size',
               default=4194304,
               min=1024,
               help='Largest agent signal body, in bytes, the signed '
                    'signal URL accepts (it replaces [api] '
                    'max_json_body_size there). A larger signal is '
                    'answered 413, recorded as an event, and its '
                    'deployment FAILs with a reason naming the size and '
                    'this limit, instead of staying IN_PROGRESS until its '
                    'timeout. The default, 4 MiB, is four times Heat\'s '
                    'body limit, so every signal Heat accepted is accepted '
                    'and verbose output is kept (truncated, see '
                    'max_signal_output_size); it stays bounded because each '
                    'API request thread holds a signal in memory a few '
                    'times over (body, parsed JSON, database parameter) '
                    'while it stores it.'),
    cfg.IntOpt('max_signal_output_size',
               default=1048576,
               min=1024,
               help='Largest deploy_stdout and deploy_stderr, each, in '
                    'UTF-8 bytes, kept from an agent signal. A longer '
                    'value keeps its tail (where a failure usually shows) '
                    'and starts with the line "[... N bytes truncated '
                    '...]"; the marker counts towards the limit. The '
                    'default, 1 MiB, keeps every signal Heat would have '
                    'accepted unchanged.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)
    conf.register_group(group)
    conf.register_opts(agent_opts, group=group)
