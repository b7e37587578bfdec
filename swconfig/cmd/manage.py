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
    swconfig-manage heat-import --heat-database URL [--project P ...]
                                [--dry-run]
                                 import a running Heat's configs and
                                 deployments, ids kept
    swconfig-manage heat-verify --heat-database URL [--project P ...]
                                 compare each server's deployments in Heat
                                 and in swconfig
    swconfig-manage heat-cutover --heat-database URL (--server S ... | --all)
                                 [--revert] [--force]
                                 switch servers' agents to swconfig, or back
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


def _import_projects(projects: list[dict], *, skip_existing: bool,
                     kept: str, refresh: bool = False, origin: str = '',
                     after=None) -> int:
    """Import each project in a transaction of its own, one line each
    (stderr for a refused one, which writes nothing); how many were
    refused. ``after(project_id)`` prints more after an imported one."""
    from swconfig.engine import project_transfer
    refused = 0
    for project in projects:
        try:
            report = project_transfer.import_project(
                project, skip_existing=skip_existing, refresh=refresh)
        except (exception.Invalid, exception.Conflict) as exc:
            refused += 1
            print(f'Refused project {project["project_id"]} (nothing of it '
                  f'written): {exc}', file=sys.stderr)
            continue
        line = (f'Imported project {report["project_id"]}{origin}: '
                f'{_counts(report["inserted"])}')
        if any(report['updated'].values()):
            line += f'; changed in Heat since: {_counts(report["updated"])}'
        if any(report['skipped'].values()):
            line += f'; {kept}: {_counts(report["skipped"])}'
        if report['renumbered']:
            line += (f'; numbered anew (their ids were taken): '
                     f'{", ".join(report["renumbered"])}')
        if report['rendered']:
            line += (f'; agent documents rendered for this service: '
                     f'{len(report["rendered"])}')
        print(line)
        if after is not None:
            after(project['project_id'])
    return refused


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
    if _import_projects(projects, skip_existing=CONF.command.skip_existing,
                        kept='kept as they were'):
        sys.exit(1)


def _heat_inventory():
    """What the Heat database of --heat-database holds (exit with one
    line when it cannot be read)."""
    from swconfig.db import session
    from swconfig.engine import heat_import
    try:
        return heat_import.read(CONF.command.heat_database,
                                CONF.command.project)
    except Exception as exc:
        if not (session.is_outage(exc) or isinstance(
                exc, (ValueError, ImportError))):
            raise
        sys.exit(f'swconfig-manage {CONF.command.name}: cannot read Heat\'s '
                 f'database: {str(exc).splitlines()[0]}')


def _show_inventory(inventory) -> None:
    """The dry run: per project, what would be imported, how the servers'
    agents poll Heat, and the deployments still in progress."""
    for project in inventory.projects:
        counts = _counts({name: len(value) for name, value in
                          project.items() if isinstance(value, list)})
        print(f'Project {project["project_id"]}: would import {counts}')
        for transport, servers in inventory.transports[
                project['project_id']].items():
            print(f'  {len(servers)} server(s) polling Heat with '
                  f'{transport}: {", ".join(servers)}')
        for deployment in project['software_deployments']:
            if deployment['status'] == 'IN_PROGRESS':
                print(f'  IN_PROGRESS: deployment {deployment["id"]} on '
                      f'server {deployment["server_id"]}')
        _show_deferred(inventory, project['project_id'])


def _show_deferred(inventory, project_id: str) -> None:
    for deployment_id, status in inventory.deferred[project_id]:
        print(f'  {status}, left for a later run (its config holds a '
              f'stack user\'s password, which swconfig does not store): '
              f'deployment {deployment_id}')


def do_heat_import() -> None:
    """Import a running Heat's configs, deployments and servers, ids
    kept; what is there already is kept, and deployments that changed in
    Heat since are brought up to date."""
    from swconfig.engine import heat_import
    from swconfig.engine import project_transfer
    database_url.ensure_sqlite_directory()
    _check_schema()
    inventory = _heat_inventory()
    if CONF.command.dry_run:
        _show_inventory(inventory)
        return
    if _import_projects(
            project_transfer.check_document(heat_import.document(inventory)),
            skip_existing=True, refresh=True, origin=' from Heat',
            kept='already imported',
            after=lambda project_id: _show_deferred(inventory, project_id)):
        sys.exit(1)


def do_heat_verify() -> None:
    """Print, per server, the deployments its agent reads from Heat and
    from swconfig; exit 1 when any server differs."""
    from swconfig.engine import heat_import
    _check_schema()
    comparisons = heat_import.verify(_heat_inventory())
    width = max([len('server'), *(len(c.server_id) for c in comparisons)])
    print(f'{"server":<{width}}  heat  swconfig  result')
    for comparison in comparisons:
        mine = comparison.swconfig
        if comparison.equal:
            result = 'same'
        elif mine is None:
            result = 'not in swconfig'
        else:
            missing = [i for i in comparison.heat if i not in mine]
            extra = [i for i in mine if i not in comparison.heat]
            result = '; '.join(part for part in (
                missing and f'not in swconfig: {", ".join(missing)}',
                extra and f'not in Heat: {", ".join(extra)}') if part) or (
                'another order')
        shown = '-' if mine is None else len(mine)
        print(f'{comparison.server_id:<{width}}  {len(comparison.heat):>4}  '
              f'{shown:>8}  {result}')
    if not all(comparison.equal for comparison in comparisons):
        sys.exit(1)


def do_heat_cutover() -> None:
    """Switch the servers' agents to swconfig (or back to Heat), one line
    per server; exit 1 when any server was left as it was."""
    from swconfig.engine import heat_cutover
    _check_schema()
    command = CONF.command
    if bool(command.server) == command.all:
        sys.exit('swconfig-manage heat-cutover: give --server (one or more) '
                 'or --all')
    try:
        outcomes = heat_cutover.run(command.heat_database, command.server,
                                    revert=command.revert,
                                    force=command.force)
    except exception.Conflict as exc:
        sys.exit(f'swconfig-manage heat-cutover: {exc}')
    for outcome in outcomes:
        print(f'server {outcome.server_id} ({outcome.transport}): '
              f'{outcome.said}')
    if not all(outcome.done for outcome in outcomes):
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
    for name, func, text in (
            ('heat-import', do_heat_import,
             'Import the software configs (derived ones included), '
             'deployments and servers of a running Heat, ids kept, reading '
             'its database only. Re-run it to import what changed since.'),
            ('heat-verify', do_heat_verify,
             'Compare, for every server with deployments in Heat, the '
             'config ids its agent reads from Heat and from swconfig, in '
             'order; exit 1 when any server differs.')):
        heat = subparsers.add_parser(name, help=text)
        heat.add_argument(
            '--heat-database', required=True, metavar='URL',
            help='Heat\'s database, as heat.conf [database] connection '
                 'names it (an SQLAlchemy URL such as '
                 'mysql+pymysql://USER:PASSWORD@HOST/heat); only read. A '
                 'user with SELECT on the software_config, '
                 'software_deployment and resource tables is enough.')
        heat.add_argument(
            '--project', action='append', metavar='PROJECT_ID',
            help='This project only (repeat for more); every project with '
                 'software deployments in Heat when not given.')
        if name == 'heat-import':
            heat.add_argument(
                '--dry-run', action='store_true',
                help='Print what would be imported per project and per '
                     'metadata transport, and the deployments still in '
                     'progress, and write nothing.')
        heat.set_defaults(func=func)
    cutover = subparsers.add_parser(
        'heat-cutover',
        help='Switch imported servers\' agents from Heat to swconfig '
             'through the channel they read (POLL_SERVER_HEAT and '
             'POLL_SERVER_CFN: the os-collect-config block of the server '
             'resource\'s metadata in Heat; POLL_TEMP_URL and '
             'ZAQAR_MESSAGE: swconfig writes the document to the Swift '
             'object or Zaqar queue Heat wrote to), or back with --revert. '
             'Needs write access to Heat\'s resource table.')
    cutover.add_argument(
        '--heat-database', required=True, metavar='URL',
        help='Heat\'s database, as heat.conf [database] connection names '
             'it; the server resources\' metadata is written.')
    cutover.add_argument(
        '--server', action='append', metavar='SERVER_ID',
        help='Switch this server (repeat for more).')
    cutover.add_argument(
        '--all', action='store_true',
        help='Switch every server with deployments in Heat.')
    cutover.add_argument(
        '--revert', action='store_true',
        help='Put Heat\'s own settings back, and have swconfig send an '
             'agent that already polls it back to Heat (for an agent that '
             'reads Swift or Zaqar: swconfig stops writing there and '
             'writes Heat\'s document back).')
    cutover.add_argument(
        '--force', action='store_true',
        help='Switch a server even while one of its deployments is '
             'IN_PROGRESS in Heat; that deployment\'s signal may then '
             'reach Heat only.')
    cutover.set_defaults(func=do_heat_cutover)


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
