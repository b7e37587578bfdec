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

"""swconfig-manage: database administration.

    swconfig-manage db sync      create or upgrade the schema to the latest
    swconfig-manage db version   print the schema revision
    swconfig-manage purge --older-than DAYS
                                 remove processed signals and events older
                                 than DAYS of finished deployments
    swconfig-manage heat-plugin-path
                                 print the directory heat.conf plugin_dirs
                                 names to load the OS::Swconfig::* types
    swconfig-manage export [--project P ...] [--file PATH]
                                 write projects, ids kept, as JSON
    swconfig-manage import [--project P ...] [--skip-existing] [--file PATH]
                                 read them back, each project all or nothing
"""

import argparse
import datetime
import json
import sys

from oslo_config import cfg
from oslo_utils import timeutils

from swconfig.cmd import startup
from swconfig.common import config
from swconfig.common import database_url
from swconfig.common import exception
from swconfig.conf import CONF


def do_db_sync() -> None:
    from swconfig.db import migration
    database_url.ensure_sqlite_directory()
    migration.upgrade('head')
    print(f'Database is at revision {migration.version()}')


def do_db_version() -> None:
    from swconfig.db import migration
    database_url.ensure_sqlite_directory()
    print(migration.version() or 'None (empty database)')


def _check_schema() -> None:
    """Exit with a clear message unless the schema is the one this code
    knows."""
    from swconfig.db import migration
    current = migration.version()
    if current not in migration.heads():
        sys.exit(f'Database is at revision {current or "none"}, not at '
                 f'{migration.heads()[0]}: run "swconfig-manage db sync" '
                 f'first')


def do_purge() -> None:
    """Purge the inbox and the events; refused unless the schema is the
    one this code knows (a clear message instead of an SQL error)."""
    from swconfig.common import context
    from swconfig.db import api as db_api
    database_url.ensure_sqlite_directory()
    _check_schema()
    days = CONF.command.older_than
    before = timeutils.utcnow() - datetime.timedelta(days=days)
    removed = db_api.purge_finished(context.get_admin_context(), before)
    print(f'Removed {removed["signal_inbox"]} signal inbox row(s) and '
          f'{removed["deployment_event"]} deployment event(s) older than '
          f'{days} day(s)')


def do_heat_plugin_path() -> None:
    """Print where Heat finds the resource plug-in (no configuration and
    no database needed: run it on the Heat host)."""
    from swconfig.heat import resources
    print(resources.plugin_dir())


def do_export() -> None:
    """Write the projects' document to --file (stdout for "-"), and what
    it holds, per project, to stderr."""
    from swconfig.engine import project_transfer
    database_url.ensure_sqlite_directory()
    _check_schema()
    try:
        document = project_transfer.export_document(CONF.command.project)
    except exception.Invalid as exc:
        sys.exit(f'swconfig-manage export: {exc}')
    text = json.dumps(document, indent=1, sort_keys=True,
                      ensure_ascii=False) + '\n'
    if CONF.command.file == '-':
        sys.stdout.write(text)
    else:
        with open(CONF.command.file, 'w', encoding='utf-8') as handle:
            handle.write(text)
    for project in document['projects']:
        counts = _counts({name: len(value) for name, value in
                          project.items() if isinstance(value, list)})
        print(f'Exported project {project["project_id"]}: {counts}',
              file=sys.stderr)


def _counts(counts: dict[str, int]) -> str:
    """"3 software_configs, 1 server" of the kinds with rows."""
    shown = [f'{count} {name}' for name, count in counts.items() if count]
    return ', '.join(shown) or 'nothing'


def do_import() -> None:
    """Import each project of the document in a transaction of its own;
    exit 1 when any was refused (the others stay imported)."""
    from swconfig.engine import project_transfer
    database_url.ensure_sqlite_directory()
    _check_schema()
    try:
        if CONF.command.file == '-':
            document = json.load(sys.stdin)
        else:
            with open(CONF.command.file, encoding='utf-8') as handle:
                document = json.load(handle)
    except OSError as exc:
        sys.exit(f'swconfig-manage import: cannot read {exc.filename}: '
                 f'{exc.strerror}')
    except ValueError as exc:
        sys.exit(f'swconfig-manage import: {CONF.command.file} is not '
                 f'JSON: {exc}')
    try:
        projects = project_transfer.check_document(document)
    except exception.Invalid as exc:
        sys.exit(f'swconfig-manage import: {exc}')
    wanted = CONF.command.project
    if wanted:
        missing = sorted(set(wanted) - {p['project_id'] for p in projects})
        if missing:
            sys.exit(f'swconfig-manage import: the document has no project '
                     f'{", ".join(missing)}')
        projects = [p for p in projects if p['project_id'] in wanted]
    refused = 0
    for project in projects:
        try:
            report = project_transfer.import_project(
                project, skip_existing=CONF.command.skip_existing)
        except (exception.Invalid, exception.Conflict) as exc:
            refused += 1
            print(f'Refused project {project["project_id"]} (nothing of it '
                  f'written): {exc}', file=sys.stderr)
            continue
        line = (f'Imported project {report["project_id"]}: '
                f'{_counts(report["inserted"])}')
        if any(report['skipped'].values()):
            line += f'; kept as they were: {_counts(report["skipped"])}'
        if report['renumbered']:
            line += (f'; numbered anew (their ids were taken): '
                     f'{", ".join(report["renumbered"])}')
        if report['rendered']:
            line += (f'; agent documents rendered again: '
                     f'{len(report["rendered"])}')
        print(line)
    if refused:
        sys.exit(1)


def positive_days(text: str) -> int:
    """A number of days of at least 1 (argparse type)."""
    try:
        days = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a whole number of days')
    if days < 1:
        raise argparse.ArgumentTypeError(
            f'must be at least 1 day, not {days}')
    return days


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
    purge = subparsers.add_parser(
        'purge', help='Remove the processed signals and the events of '
                      'finished (not IN_PROGRESS) or deleted deployments.')
    purge.add_argument(
        '--older-than', type=positive_days, required=True, metavar='DAYS',
        help='Remove only what is older than DAYS days (a whole number, '
             'at least 1): signals processed and events recorded before '
             'then.')
    purge.set_defaults(func=do_purge)
    plugin_path = subparsers.add_parser(
        'heat-plugin-path',
        help='Print the directory holding the OS::Swconfig::* Heat '
             'resource types: the value for heat.conf [DEFAULT] '
             'plugin_dirs.')
    plugin_path.set_defaults(func=do_heat_plugin_path,
                             needs_database=False)
    export = subparsers.add_parser(
        'export', help='Write projects (configs, servers and their labels, '
                       'deployments and their events, server groups, '
                       'rollouts) with their ids as a JSON document, for '
                       'a backup or a move to another database.')
    export.add_argument(
        '--project', action='append', metavar='PROJECT_ID',
        help='Export this project only (repeat for more); every project '
             'with data when not given.')
    export.add_argument(
        '--file', default='-', metavar='PATH',
        help='Write the document to PATH; "-" (the default) is standard '
             'output. What each project holds goes to standard error.')
    export.set_defaults(func=do_export)
    import_ = subparsers.add_parser(
        'import', help='Read a document of "swconfig-manage export" into '
                       'this database, ids kept: each project in one '
                       'transaction, all of it or nothing.')
    import_.add_argument(
        '--project', action='append', metavar='PROJECT_ID',
        help='Import this project of the document only (repeat for more); '
             'all of its projects when not given.')
    import_.add_argument(
        '--skip-existing', action='store_true',
        help='Keep an object whose id the database has (with its labels, '
             'events, members or targets) and import the rest; without '
             'it, such a project is refused. Ids of another project are '
             'refused either way.')
    import_.add_argument(
        '--file', default='-', metavar='PATH',
        help='Read the document from PATH; "-" (the default) is standard '
             'input.')
    import_.set_defaults(func=do_import)


command_opt = cfg.SubCommandOpt('command', title='Commands',
                                help='Available commands',
                                handler=add_command_parsers)


def _run() -> None:
    CONF.register_cli_opt(command_opt)
    config.parse_args(sys.argv, description=__doc__.splitlines()[0])
    if not getattr(CONF.command, 'needs_database', True):
        CONF.command.func()
        return
    database_url.check()
    from swconfig.db import session
    try:
        CONF.command.func()
    except Exception as exc:
        if not session.is_outage(exc):
            raise
        # The driver's own words (access denied, connection refused...),
        # without SQLAlchemy's background link and the traceback.
        raise exception.StartupError(
            f'The database of [database] connection'
            f'{config.where_set(CONF, "database", "connection")} cannot '
            f'be used: {str(exc).splitlines()[0]}') from None


def main() -> None:
    startup.run(_run)
