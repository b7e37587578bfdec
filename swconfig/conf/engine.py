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

"""Options of the [engine] group: the engine service."""

from oslo_config import cfg

group = cfg.OptGroup('engine', title='Engine service options')

opts = [
    cfg.StrOpt('topic',
               default='swconfig-engine',
               help='oslo.messaging topic the engines listen on. Every '
                    'API and engine of one deployment must agree on it.'),
    cfg.StrOpt('host',
               sample_default='<hostname>',
               help='Name of this engine on the RPC bus; defaults to the '
                    'host name.'),
    cfg.IntOpt('rpc_response_timeout',
               default=60,
               min=1,
               help='Seconds the API waits, at most, for a call to an '
                    'engine as a whole: handing it to the message bus '
                    '(reconnecting if needed) and waiting for the answer. '
                    'Past it the request fails with 503 and Retry-After, '
                    'even while the message bus is down.'),
    cfg.IntOpt('rpc_send_retries',
               default=2,
               min=0,
               help='How many times the API reconnects to the message bus '
                    'to hand over one call before it gives up with 503 '
                    '(0: no second attempt). Without a limit '
                    'oslo.messaging retries for as long as the broker is '
                    'down. Casts of agent signals are never retried: the '
                    'engines\' signal sweep applies a signal whose cast '
                    'was lost.'),
    cfg.IntOpt('database_heartbeat_interval',
               default=5,
               min=1,
               deprecated_name='heartbeat_interval',
               help='Seconds between the heartbeats each engine records in '
                    'the database (a row per engine process, removed when '
                    'it stops cleanly). The API counts an engine as '
                    'running while its last heartbeat is less than three '
                    'intervals old, and answers a request that needs an '
                    'engine 503 with Retry-After at once when none is, '
                    'instead of after rpc_response_timeout (not while '
                    '[upgrade_levels] engine pins older engines, which '
                    'record none). Set the same value for the API servers '
                    'and the engines, and keep their clocks in sync '
                    '(NTP). (The heartbeats that keep an engine a member '
                    'of the coordination group are [coordination] '
                    'member_heartbeat_interval.)'),
    cfg.IntOpt('idempotency_key_expiry',
               default=86400,
               min=60,
               help='Seconds an Idempotency-Key of a creation or trigger '
                    'request is kept: within that time a retry with the '
                    'same key returns the deployment the first request '
                    'made instead of making another (or running the '
                    'action again). Expired keys are purged by the '
                    'engines and may be reused.'),
    cfg.IntOpt('idempotency_key_purge_interval',
               default=3600,
               min=60,
               help='Seconds between an engine\'s purges of expired '
                    'Idempotency-Keys (each removes a bounded batch, so a '
                    'purge never holds the database for long).'),
    cfg.FloatOpt('rollout_interval',
                 default=1.0,
                 min=0.1,
                 help='Seconds between an engine\'s rounds over the '
                      'rollouts it owns: each round notes the targets whose '
                      'deployments finished and starts the next ones. A '
                      'signal applied by the engine starts a round at once, '
                      'so this bounds the delay only for signals applied '
                      'by another engine and for timeouts.'),
    cfg.IntOpt('delete_action_timeout',
               default=600,
               min=1,
               help='Seconds a component\'s DELETE entry may run when its '
                    'deployment is deleted. The deployment is removed when '
                    'the DELETE action signals (COMPLETE or FAILED) or '
                    'when this timeout passes, whichever comes first.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
