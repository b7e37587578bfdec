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
               help='Seconds the API waits for the engine to answer a '
                    'call before failing with 503.'),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
