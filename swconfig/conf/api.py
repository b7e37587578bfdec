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

"""Options of the [api] group: the REST API server."""

from oslo_config import cfg

group = cfg.OptGroup('api', title='REST API options')

opts = [
    cfg.HostAddressOpt('bind_host',
                       default='127.0.0.1',
                       help='Address the API server listens on.'),
    cfg.PortOpt('bind_port',
                default=8004,
                help='Port the API server listens on (Heat\'s '
                     'orchestration port, so clients need no change).'),
    cfg.IntOpt('workers',
               default=1,
               min=1,
               help='Number of API worker processes started by '
                    'swconfig-api. swconfig-all always runs one.'),
    cfg.IntOpt('threads',
               default=64,
               min=1,
               help='Python threads running requests in each API worker '
                    'process of swconfig-api and swconfig-all, all started '
                    'with the worker, so that a request never waits for '
                    'one to start. Connections, idle keep-alive ones '
                    'included, are served by the compiled HTTP server and '
                    'hold no thread.'),
    cfg.IntOpt('backlog',
               default=1024,
               min=1,
               help='Connections the kernel queues for the API server '
                    'before it accepts them (the listen backlog, capped '
                    'by net.core.somaxconn). A short queue drops new '
                    'connections under a burst and their clients wait '
                    'for a TCP retransmission (a second or more). Also '
                    'the most requests each worker runs or queues for a '
                    'thread at once.'),
    cfg.IntOpt('max_keepalive_connections',
               default=1024,
               min=0,
               deprecated_for_removal=True,
               deprecated_since='2026.2',
               deprecated_reason='swconfig-api and swconfig-all serve '
                                 'with granian, whose idle keep-alive '
                                 'connections cost no request thread and '
                                 'are not limited.',
               help='Ignored. It limited the idle keep-alive '
                    'connections of the former pure-Python server.'),
    cfg.IntOpt('max_json_body_size',
               default=1048576,
               min=1024,
               help='Largest request body, in bytes, the API accepts. '
                    'Larger bodies are refused with 400 '
                    'RequestLimitExceeded, as Heat does.'),
    cfg.IntOpt('max_batch_deployments',
               default=1000,
               min=1,
               help='Most deployments one request may create: a POST '
                    '/v1/{tenant_id}/software_deployments whose body is a '
                    'list of deployments. A longer list is refused with '
                    '400 RequestLimitExceeded and nothing is created. The '
                    'list must also fit in max_json_body_size, and counts '
                    'whole against [DEFAULT] '
                    'max_software_deployments_per_tenant.'),
    cfg.IntOpt('max_json_depth',
               default=32,
               min=2,
               help='Deepest nesting of objects and arrays a JSON request '
                    'body may have; deeper bodies are refused with 400.'),
    cfg.FloatOpt('max_writes_per_second_per_project',
                 default=0,
                 min=0,
                 help='Sustained rate of write requests (POST, PUT, PATCH, '
                      'DELETE) each project may make to one API worker; '
                      'more are refused with 429 and a Retry-After header. '
                      '0 turns the limit off. Agent signals are not '
                      'counted.'),
    cfg.IntOpt('write_burst_per_project',
               default=20,
               min=1,
               help='How many writes a project may make at once before '
                    'max_writes_per_second_per_project applies.'),
    cfg.IntOpt('agent_db_pool_size',
               default=0,
               min=0,
               help='Database connections each API worker keeps for the '
                    'agents\' metadata polls and signals, which use a '
                    'small autocommit pool of their own (one round trip '
                    'per read). Size it to the request threads of a '
                    'worker; 0 means [database] max_pool_size.'),
    cfg.URIOpt('public_url',
               help='Base URL at which servers reach this API, e.g. '
                    'https://swconfig.example.com:8004. The engines build '
                    'the agents\' signed metadata and signal URLs from it, '
                    'so API and engine configuration must agree. When '
                    'unset, http://<bind_host>:<bind_port> (the host name '
                    'for a wildcard bind_host); never the Host header of a '
                    'request. Changing it applies to documents rendered '
                    'and deployments derived afterwards.'),
    cfg.IntOpt('max_concurrent_project_requests',
               default=0,
               min=0,
               help='Project requests (/v1/...) each API worker serves at '
                    'once; more are refused at once with 503 and '
                    'Retry-After. Keep it below threads: the remaining '
                    'request threads serve the agents\' metadata polls and '
                    'signals, which are never counted, so agents stay '
                    'served while project requests wait for a slow or '
                    'unreachable engine, message bus or Keystone. 0 means '
                    'three quarters of threads.'),
    cfg.IntOpt('metadata_cache_size',
               default=10000,
               min=0,
               help='Servers whose pre-rendered metadata document each API '
                    'worker keeps in memory for the agents\' polls, least '
                    'recently polled dropped first: a server that stops '
                    'polling falls out. Each entry costs about its '
                    'document\'s size plus 1 KB of Python objects, more in '
                    'resident memory (21,100 servers with 6.5 KB documents '
                    'added about 200 MB to a worker). Every worker '
                    'serves every server, so size it to the servers that '
                    'poll this API, or polls beyond it read the database. '
                    '0 reads every poll from the database.'),
    cfg.BoolOpt('metadata_cache_warm',
                default=True,
                help='When it starts, each API worker loads documents '
                     'into its metadata cache in the background (500 '
                     'servers per query) until the cache is full, so a '
                     'restarted worker serves polls from memory within '
                     'seconds instead of reading each server once.'),
    cfg.FloatOpt('metadata_cache_freshness',
                 default=1.0,
                 min=0.05,
                 max=30,
                 help='Seconds a document held in memory may lag behind '
                      'the database. Once per interval while agents poll, '
                      'each API worker reads which servers changed since '
                      'its last look (one indexed query) and drops them; '
                      'a change committed by any API worker or engine is '
                      'served by every worker within this bound. The read '
                      'falls due a quarter of the interval early: one '
                      'poll makes it while the others are still answered '
                      'from memory.'),
    cfg.IntOpt('poll_time_interval',
               default=15,
               min=0,
               help='How many seconds the last poll time of a server '
                    '(last_poll_time in the server API, the dashboard\'s '
                    '"Last poll") may lag behind its agent\'s latest valid '
                    'metadata poll. Each API worker notes polls in memory '
                    'and writes them at this interval, one UPDATE per 500 '
                    'servers, instead of writing once per poll. 0 turns '
                    'recording off: last_poll_time then stays as it was.'),
    cfg.BoolOpt('dashboard',
                default=True,
                help='Serve the web dashboard at /dashboard/: static pages '
                     'that call this API\'s public /v1 URLs with the '
                     'signed-in user\'s token (or, under noauth, as a '
                     'member of the chosen project), so they can do '
                     'nothing the swconfig command cannot. False answers '
                     '/dashboard/ with 404.'),
    cfg.URIOpt('dashboard_keystone_url',
               help='The Keystone identity endpoint (e.g. '
                    'https://keystone.example.com/identity/v3) the '
                    'dashboard\'s application credential sign-in posts '
                    'to from the browser; Keystone must allow this '
                    'dashboard\'s origin through CORS and expose the '
                    'X-Subject-Token header. Unset: the dashboard offers '
                    'only the sign-in with a token. Unused under noauth.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
