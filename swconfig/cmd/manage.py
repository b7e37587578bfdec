"""swconfig-manage: database administration.

    swconfig-manage db sync      create or upgrade the schema to the latest
    swconfig-manage db version   print the schema revision
"""

import sys

from oslo_config import cfg

from swconfig.common import config
from swconfig.conf import CONF


def _ensure_sqlite_directory() -> None:
    """SQLite can create the database file but not its directory."""
    if CONF.database.connection.startswith('sqlite'):
        config.ensure_state_path()


def do_db_sync() -> None:
    from swconfig.db import migration
    _ensure_sqlite_directory()
    migration.upgrade('head')
    print(f'Database is at revision {migration.version()}')


def do_db_version() -> None:
    from swconfig.db import migration
    _ensure_sqlite_directory()
    print(migration.version() or 'None (empty database)')


def add_command_parsers(subparsers) -> None:
    db = subparsers.add_parser('db', help='Database schema management.')
    db_commands = db.add_subparsers(dest='db_command')
    db_commands.required = True
    sync = db_commands.add_parser(
        'sync', help='Create or upgrade the schema to the latest revision.')
    sync.set_defaults(func=do_db_sync)
    version = db_commands.add_parser(
        'version', help='Print the current schema revision.')
    version.set_defaults(func=do_db_version)


command_opt = cfg.SubCommandOpt('command', title='Commands',
                                help='Available commands',
                                handler=add_command_parsers)


def main() -> None:
    CONF.register_cli_opt(command_opt)
    config.parse_args(sys.argv)
    CONF.command.func()
