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

"""swconfig.common.database_url: what [database] connection names is
checked before anything connects, and a SQLite file gets its directory."""

from oslo_config import cfg
import pytest

from swconfig.common import database_url
from swconfig.common import exception
from swconfig.conf import database


@pytest.fixture
def conf_with(tmp_path):
    """``conf_with(url)``: a ConfigOpts whose file sets [database]
    connection; returns (conf, the file)."""
    def _conf_with(url: str) -> tuple[cfg.ConfigOpts, str]:
        path = tmp_path / 'swconfig.conf'
        path.write_text(f'[database]\nconnection = {url}\n')
        conf = cfg.ConfigOpts()
        database.register_opts(conf)
        conf(['--config-file', str(path)], default_config_files=[])
        return conf, str(path)
    return _conf_with


@pytest.mark.parametrize('url', [
    'sqlite://', 'sqlite:////var/lib/swconfig/swconfig.sqlite',
    'mysql+pymysql://swconfig:secret@db/swconfig',
    'postgresql+psycopg2://swconfig:secret@db/swconfig'])
def test_the_dialects_swconfig_runs_on_pass(conf_with, url):
    conf, _ = conf_with(url)
    assert database_url.check(conf).drivername == url.partition(':')[0]


@pytest.mark.parametrize('url, says', [
    ('mysq+pymysql://swconfig:secret@db/swconfig',
     "names the unknown database dialect 'mysq+pymysql'; use "
     "mysql+pymysql, postgresql+psycopg2 or sqlite"),
    ('mysql://swconfig:secret@db/swconfig',
     "needs the Python driver of 'mysql', which is not installed"),
    ('swconfig:secret@db', 'is not a database URL; write it as '
                           'dialect+driver://'),
])
def test_a_url_no_engine_can_use_names_the_option_and_file(conf_with, url,
                                                           says):
    conf, path = conf_with(url)
    with pytest.raises(exception.ConfigurationError) as raised:
        database_url.check(conf)
    message = raised.value.message
    assert message.startswith(
        f'Configuration error: [database] connection in {path} ')
    assert says in message
    assert 'secret' not in message


def test_the_directory_of_a_sqlite_file_is_created_owner_only(conf_with,
                                                              tmp_path):
    directory = tmp_path / 'a' / 'b'
    conf, _ = conf_with(f'sqlite:///{directory}/swconfig.sqlite')
    database_url.ensure_sqlite_directory(conf)
    assert directory.is_dir()
    assert directory.stat().st_mode & 0o777 == 0o700
    database_url.ensure_sqlite_directory(conf)  # there already: fine


@pytest.mark.parametrize('url', ['sqlite://', 'sqlite:///:memory:',
                                 'postgresql+psycopg2://u@h/nowhere'])
def test_nothing_to_create_without_a_sqlite_file(conf_with, tmp_path, url):
    conf, _ = conf_with(url)
    before = sorted(tmp_path.iterdir())
    database_url.ensure_sqlite_directory(conf)
    assert sorted(tmp_path.iterdir()) == before


def test_a_directory_that_cannot_be_made_is_one_message(conf_with,
                                                        tmp_path):
    blocker = tmp_path / 'file'
    blocker.write_text('')
    conf, path = conf_with(f'sqlite:///{blocker}/sub/swconfig.sqlite')
    with pytest.raises(exception.StartupError) as raised:
        database_url.ensure_sqlite_directory(conf)
    assert raised.value.message == (
        f'Cannot create {blocker}/sub, the directory of the SQLite '
        f'database of [database] connection in {path}: Not a directory')
