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

"""``swconfig server set`` and ``swconfig server-group ...``: the real
console script against a real ``swconfig-all``, as in
test_commands.py. Labels are set and filtered, groups created by
selector and by explicit servers follow relabelling, are found by name,
listed and deleted; mistakes exit 1 (refused) or 2 (usage) with one
line."""

from tests.integration.swconfig_cli.cli_helpers import one_line_error


def test_labels_and_groups(cli):
    db1, web, db2 = 'db-1', 'web-1', 'db-2'
    labelled = cli('server', 'set', db1, '--label', 'role=db', '--label',
                   'zone=a', '-f', 'json').ok().json()
    assert labelled['server_id'] == db1
    assert labelled['labels'] == {'role': 'db', 'zone': 'a'}
    cli('server', 'set', web, '--label', 'role=web', '-f', 'json').ok()
    cli('server', 'set', db2, '--label', 'role=db', '--label', 'note=',
        '-f', 'json').ok()
    dbs = cli('server', 'list', '--label', 'role=db', '-f', 'json').ok()
    assert [s['server_id'] for s in dbs.json()] == [db1, db2]
    assert cli('server', 'show', db2, '-f', 'json').ok().json()[
        'labels'] == {'role': 'db', 'note': ''}

    group = cli('server-group', 'create', 'databases', '--selector',
                'role=db', '-f', 'json').ok().json()
    assert group['selector'] == {'role': 'db'}
    assert group['members'] == [db1, db2]
    mixed = cli('server-group', 'create', 'zone a and web', '--selector',
                'role=db', '--selector', 'zone=a', '--server', web, '-f',
                'json').ok().json()
    assert mixed['servers'] == [web] and mixed['members'] == [db1, web]

    # Relabelled, db-2 leaves the group; a group is found by its name.
    cli('server', 'set', db2, '--no-label', '-f', 'json').ok()
    shown = cli('server-group', 'show', 'databases', '-f', 'json').ok()
    assert shown.json()['id'] == group['id']
    assert shown.json()['members'] == [db1]
    listed = cli('server-group', 'list', '-f', 'json').ok().json()
    assert [g['name'] for g in listed] == ['databases', 'zone a and web']

    deleted = cli('server-group', 'delete', group['id'], 'zone a and web',
                  'missing')
    assert deleted.returncode == 1, deleted
    assert deleted.stderr.startswith("missing: No server group with id "
                                     "or name 'missing'"), deleted
    assert cli('server-group', 'list', '-f', 'json').ok().json() == []


def test_mistakes_are_one_line(cli):
    one_line_error(cli('server', 'set', 'vm', '--label', 'bad key=v'), 400,
                   "'bad key'. It must be a label key")
    one_line_error(cli('server-group', 'create', 'g', '--server', 'ghost'),
                   400, 'Server ghost is not registered')
    empty = cli('server-group', 'create', 'g')
    assert empty.returncode == 1, empty
    assert empty.stderr.strip() == ('A server group needs --selector, '
                                    '--server or both.')
    usage = cli('server', 'set', 'vm')
    assert usage.returncode == 2, usage
    assert 'one of the arguments --label --no-label is required' in (
        usage.stderr)
    twice = cli('server', 'set', 'vm', '--label', 'a=1', '--label', 'a=2')
    assert twice.returncode == 1, twice
    assert 'Label a is given twice' in twice.stderr
    # Nothing of the refused commands was written.
    assert cli('server', 'list', '-f', 'json').ok().json() == []
