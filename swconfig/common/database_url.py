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

"""``[database] connection``, checked before anything connects.

oslo.db opens the database lazily: left to it, a URL with an unknown
dialect (``mysq+pymysql://...``) or a driver that is not installed fails
at the first query, as a traceback (in ``swconfig-manage``) or a 500 on
every request, and SQLite cannot create the directory of its file. The
console scripts call ``check`` at start-up and ``ensure_sqlite_directory``
before they create a schema, so both fail on one line naming the option
(``swconfig.cmd.startup``).
"""

import os

from oslo_config import cfg
import sqlalchemy as sa
from sqlalchemy.engine import url as sa_url

from swconfig.common import config
from swconfig.common import exception
from swconfig.conf import CONF

OPTION = '[database] connection'
#: The dialects swconfig is tested on, named when the configured one is
#: unknown.
KNOWN = 'mysql+pymysql, postgresql+psycopg2 or sqlite'


def _option(conf: cfg.ConfigOpts) -> str:
    return OPTION + config.where_set(conf, 'database', 'connection')


def check(conf: cfg.ConfigOpts = CONF) -> sa_url.URL:
    """The URL of ``[database] connection``, once its dialect is known
    and its driver installed.

    :raises ConfigurationError: naming the option and the file that sets
        it, never the password.
    """
    try:
        url = sa_url.make_url(conf.database.connection)
    except sa.exc.ArgumentError:
        raise exception.ConfigurationError(
            reason=f'{_option(conf)} is not a database URL; write it as '
                   f'dialect+driver://user:password@host/database, e.g. '
                   f'mysql+pymysql://swconfig:PASSWORD@db.example.com/'
                   f'swconfig') from None
    try:
        dialect = url.get_dialect()
    except sa.exc.NoSuchModuleError:
        raise exception.ConfigurationError(
            reason=f'{_option(conf)} names the unknown database dialect '
                   f'{url.drivername!r}; use {KNOWN}') from None
    try:
        dialect.import_dbapi()
    except ImportError as exc:
        raise exception.ConfigurationError(
            reason=f'{_option(conf)} needs the Python driver of '
                   f'{url.drivername!r}, which is not installed ({exc}); '
                   f'install it or use {KNOWN}') from None
    return url


def ensure_sqlite_directory(conf: cfg.ConfigOpts = CONF) -> None:
    """Create the directory of a SQLite database file (SQLite creates the
    file, not its directory), readable by its owner only, as
    ``state_path`` is.

    :raises StartupError: the directory cannot be created; the message
        names it and why.
    """
    url = check(conf)
    path = url.database
    if (url.get_backend_name() != 'sqlite' or not path
            or path == ':memory:' or path.startswith('file:')):
        return
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(directory):
        return
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise exception.StartupError(
            f'Cannot create {directory}, the directory of the SQLite '
            f'database of {_option(conf)}: {exc.strerror or exc}') from None
