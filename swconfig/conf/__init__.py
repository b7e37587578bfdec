"""swconfig's configuration options, one module per option group."""

from oslo_config import cfg

from swconfig.conf import agent
from swconfig.conf import api
from swconfig.conf import coordination
from swconfig.conf import database
from swconfig.conf import default
from swconfig.conf import engine
from swconfig.conf import middleware
from swconfig.conf import upgrade_levels

CONF = cfg.CONF

default.register_opts(CONF)
agent.register_opts(CONF)
api.register_opts(CONF)
coordination.register_opts(CONF)
database.register_opts(CONF)
engine.register_opts(CONF)
middleware.register_opts(CONF)
upgrade_levels.register_opts(CONF)
