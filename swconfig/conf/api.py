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
               default=32,
               min=1,
               help='Request threads per API worker process.'),
    cfg.IntOpt('max_json_body_size',
               default=1048576,
               min=1024,
               help='Largest request body, in bytes, the API accepts. '
                    'Larger bodies are refused with 400 '
                    'RequestLimitExceeded, as Heat does.'),
    cfg.URIOpt('public_url',
               help='Public base URL of this API, e.g. '
                    'https://swconfig.example.com:8004. Used to build the '
                    'absolute URLs handed to clients; defaults to the URL '
                    'the request came in on.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
