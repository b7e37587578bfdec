"""Parsing the command line and config files, shared by every process."""

import os

from oslo_config import cfg
from oslo_db import options as db_options
from oslo_log import log

from swconfig import version
from swconfig.conf import CONF

SQLITE_FILE = 'swconfig.sqlite'


def parse_args(argv: list[str], default_config_files: list[str] | None = None,
               conf: cfg.ConfigOpts = CONF) -> None:
    """Parse options and set the defaults that depend on other options."""
    log.register_options(conf)
    conf(argv[1:], project='swconfig', version=version.version_string(),
         default_config_files=default_config_files)
    if not conf.database.connection:
        db_options.set_defaults(conf, connection=sqlite_url(conf.state_path))


def sqlite_url(state_path: str) -> str:
    """The embedded default database: a SQLite file inside state_path."""
    return 'sqlite:///' + os.path.join(state_path, SQLITE_FILE)


def ensure_state_path(conf: cfg.ConfigOpts = CONF) -> None:
    os.makedirs(conf.state_path, mode=0o700, exist_ok=True)
