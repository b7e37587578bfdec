"""The [database] group: oslo.db's options with swconfig's defaults."""

from oslo_config import cfg
from oslo_db import options as db_options


def register_opts(conf: cfg.ConfigOpts) -> None:
    # The SQLite default inside state_path is filled in by
    # swconfig.common.config.parse_args once state_path is known.
    db_options.set_defaults(conf)


def list_opts() -> list:
    return db_options.list_opts()
