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

"""Server labels and server groups through the real API, on SQLite,
MariaDB and PostgreSQL (doc/source/user/server-groups.rst): labels set
and filtered, selectors resolved exactly (case included, which MariaDB's
default collation would not do), groups created, changed and deleted,
other projects kept out, and bad input refused with nothing written."""

from urllib.parse import quote

from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error


def servers_url(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'servers', suffix)


def groups_url(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'server_groups', suffix)


def set_labels(api, project: str, server_id: str, labels: dict) -> dict:
    reply = api.put(servers_url(project, '/' + server_id),
                    json={'labels': labels})
    assert reply.status == 200, reply.text
    return reply.json['server']


def create_group(api, project: str, **body) -> dict:
    reply = api.post(groups_url(project), json=body)
    assert reply.status == 200, reply.text
    return reply.json['server_group']


def listed(api, project: str, query: str = '') -> list[str]:
    reply = api.get(servers_url(project, query))
    assert reply.status == 200, reply.text
    return [server['server_id'] for server in reply.json['servers']]


def test_labels_register_replace_and_filter(api, project):
    web, db = f'{project}-web', f'{project}-db'
    server = set_labels(api, project, web, {'role': 'web', 'zone': 'a'})
    assert server['server_id'] == web and server['project_id'] == project
    assert server['labels'] == {'role': 'web', 'zone': 'a'}
    # A key or value differing in case is another label, on every backend.
    set_labels(api, project, db, {'role': 'db', 'Role': 'DB', 'zone': 'a',
                                  'note': 'ü ☃', 'empty': ''})
    shown = api.get(servers_url(project, '/' + db)).json['server']
    assert shown['labels'] == {'role': 'db', 'Role': 'DB', 'zone': 'a',
                               'note': 'ü ☃', 'empty': ''}
    # The PUT registered the server, with a document its agent can poll.
    metadata = api.get(helpers.url(project, 'software_deployments',
                                   '/metadata/' + db))
    assert metadata.status == 200 and metadata.json == {'metadata': []}

    servers = api.get(servers_url(project)).json['servers']
    assert {s['server_id']: s['labels']['role'] for s in servers} == {
        web: 'web', db: 'db'}
    assert listed(api, project, '?label=zone=a') == [web, db]
    assert listed(api, project, '?label=zone=a&label=role=db') == [db]
    assert listed(api, project, '?label=role=DB') == []
    assert listed(api, project, '?label=Role=DB') == [db]
    assert listed(api, project, '?label=' + quote('note=ü ☃')) == [db]
    assert listed(api, project, '?label=empty=') == [db]

    # A PUT replaces every label; {} removes them all.
    assert set_labels(api, project, web, {'tier': '1'})['labels'] == {
        'tier': '1'}
    assert listed(api, project, '?label=zone=a') == [db]
    assert set_labels(api, project, web, {})['labels'] == {}
    assert api.get(servers_url(project, '/' + web)).json['server'][
        'labels'] == {}
    # Unregistering the server takes its labels with it.
    assert api.delete(servers_url(project, '/' + db)).status == 204
    assert listed(api, project, '?label=zone=a') == []


def test_bad_labels_are_refused_and_nothing_is_written(api, project):
    server_id = f'{project}-vm'
    url = servers_url(project, '/' + server_id)
    too_many = {f'k{n}': 'v' for n in range(65)}
    for labels, text in (
            ({'bad key': 'v'}, "'bad key'. It must be a label key"),
            ({'k' * 64: 'v'}, 'It must be a label key: 1 to 63'),
            ({'k': 'v' * 256}, 'It must be a label value'),
            ({'k': 'tab\there'}, 'without control characters'),
            ({'k': 'trailing '}, 'without white space at either end'),
            ({'k': 1}, 'labels.k'),
            (too_many, 'It must be an object of at most 64 entries.'),
            ([], 'labels')):
        error = assert_error(api.put(url, json={'labels': labels}), 400)
        assert text in error['message'], (labels, error['message'])
    assert_error(api.put(url, json={'label': {}}), 400)
    assert_error(api.get(url), 404)  # not registered by a refused PUT
    # 64 labels are allowed.
    sixty_four = {f'k{n}': 'v' for n in range(64)}
    assert len(set_labels(api, project, server_id,
                          sixty_four)['labels']) == 64
    for query, text in (('?label=zone', 'is not KEY=VALUE'),
                        ('?label=a%20b=c', 'is not a label key')):
        error = assert_error(api.get(servers_url(project, query)), 400)
        assert text in error['message'], error['message']
    # One key given two values: no server has both.
    set_labels(api, project, server_id, {'a': 'b'})
    assert [item['server_id'] for item in api.get(servers_url(
        project, '?label=a=b')).json['servers']] == [server_id]
    assert api.get(servers_url(project, '?label=a=b&label=a=c')
                   ).json == {'servers': []}


def test_group_membership_follows_labels(api, project):
    names = [f'{project}-{n}' for n in ('a', 'b', 'c', 'd')]
    a, b, c, d = names
    set_labels(api, project, c, {'role': 'db', 'zone': '1'})
    set_labels(api, project, a, {'role': 'db', 'zone': '2'})
    set_labels(api, project, b, {'role': 'web', 'zone': '1'})
    set_labels(api, project, d, {'role': 'DB'})

    dbs = create_group(api, project, name='databases',
                       selector={'role': 'db'})
    assert dbs['selector'] == {'role': 'db'} and dbs['servers'] == []
    assert dbs['members'] == [a, c]  # sorted by id, not by age
    assert dbs['project_id'] == project and dbs['updated_time'] is None
    zone1 = create_group(api, project, name='zone 1 and d', servers=[d],
                         selector={'zone': '1', 'role': 'db'})
    assert zone1['members'] == [c, d]
    explicit = create_group(api, project, name='explicit', servers=[b, a])
    assert explicit['servers'] == [a, b] and explicit['members'] == [a, b]

    # Membership is resolved when asked: relabelling moves servers.
    set_labels(api, project, b, {'role': 'db', 'zone': '1'})
    set_labels(api, project, a, {'role': 'retired'})
    shown = api.get(groups_url(project, '/' + dbs['id'])).json
    assert shown['server_group']['members'] == [b, c]
    assert api.get(groups_url(project, '/' + zone1['id'])).json[
        'server_group']['members'] == [b, c, d]

    updated = api.put(groups_url(project, '/' + zone1['id']), json={
        'name': 'zone one', 'selector': None}).json['server_group']
    assert updated['name'] == 'zone one' and updated['selector'] is None
    assert updated['members'] == [d] and updated['servers'] == [d]
    assert updated['updated_time'] is not None
    updated = api.put(groups_url(project, '/' + zone1['id']), json={
        'servers': [], 'selector': {'zone': '1'}}).json['server_group']
    assert updated['servers'] == [] and updated['members'] == [b, c]

    page = api.get(groups_url(project, '?limit=2')).json['server_groups']
    assert [g['name'] for g in page] == ['databases', 'explicit']
    assert set(page[0]) == {'id', 'name', 'project_id', 'selector',
                            'creation_time', 'updated_time'}
    rest = api.get(groups_url(project, f'?marker={page[1]["id"]}')).json
    assert [g['name'] for g in rest['server_groups']] == ['zone one']

    # Unregistering a server takes it out of the groups naming it.
    assert api.delete(servers_url(project, '/' + b)).status == 204
    assert api.get(groups_url(project, '/' + explicit['id'])).json[
        'server_group']['servers'] == [a]
    assert api.delete(groups_url(project, '/' + dbs['id'])).status == 204
    assert_error(api.get(groups_url(project, '/' + dbs['id'])), 404,
                 'NotFound')
    assert [g['name'] for g in api.get(groups_url(project)).json[
        'server_groups']] == ['explicit', 'zone one']


def test_bad_groups_are_refused_and_nothing_is_written(api, project):
    known = f'{project}-known'
    set_labels(api, project, known, {'role': 'db'})
    group = create_group(api, project, name='web', servers=[known])
    create_group(api, project, name='Web', selector={'role': 'db'})
    for body, status, text in (
            ({'name': 'none'}, 400, 'needs servers, a selector, or both'),
            ({'name': 'x', 'selector': {}}, 400,
             'an empty object. It must be an object of at least 1 entry.'),
            ({'name': 'x', 'servers': [known, known]}, 400,
             'is given more than once'),
            ({'name': 'x', 'servers': [known, 'ghost-1', 'ghost-2']}, 400,
             'Servers ghost-1, ghost-2 are not registered'),
            ({'name': 'x', 'selector': {'bad key': 'v'}}, 400,
             "Invalid key in selector: 'bad key'. It must be a label key"),
            ({'name': 'x ', 'servers': [known]}, 400,
             'without white space at either end'),
            ({'servers': [known]}, 400, 'Missing required field name'),
            ({'name': 'web', 'servers': [known]}, 409,
             'already has a server group named web')):
        error = assert_error(api.post(groups_url(project), json=body),
                             status)
        assert text in error['message'], (body, error['message'])
    assert sorted(g['name'] for g in api.get(groups_url(project)).json[
        'server_groups']) == ['Web', 'web']

    url = groups_url(project, '/' + group['id'])
    for body, status, text in (
            ({'servers': []}, 400, 'would leave the group with neither'),
            ({'name': 'Web'}, 409, 'named Web'),
            ({'servers': ['ghost']}, 400, 'Server ghost is not registered'),
            ({'members': [known]}, 400, 'Unknown field members')):
        error = assert_error(api.put(url, json=body), status)
        assert text in error['message'], (body, error['message'])
    unchanged = api.get(url).json['server_group']
    assert unchanged['name'] == 'web' and unchanged['servers'] == [known]
    assert unchanged['updated_time'] is None


def test_other_projects_are_kept_out(api, project):
    mine = f'{project}-mine'
    set_labels(api, project, mine, {'role': 'db'})
    group = create_group(api, project, name='mine', servers=[mine])
    other = project + '-b'
    theirs = f'{other}-theirs'
    set_labels(api, other, theirs, {'role': 'db'})

    # A group of another project is not found, whatever the request.
    path = '/' + group['id']
    assert_error(api.get(groups_url(other, path)), 404, 'NotFound')
    assert_error(api.put(groups_url(other, path), json={'name': 'x'}), 404)
    assert_error(api.delete(groups_url(other, path)), 404)
    assert api.get(groups_url(other)).json == {'server_groups': []}
    # Another project's server can be neither labelled nor a member.
    error = assert_error(api.put(servers_url(other, '/' + mine),
                                 json={'labels': {'role': 'x'}}), 403,
                         'ServerOwnedByOtherProject')
    assert mine in error['message']
    assert_error(api.post(groups_url(other), json={
        'name': 'grab', 'servers': [mine]}), 403,
        'ServerOwnedByOtherProject')
    assert api.get(servers_url(project, '/' + mine)).json['server'][
        'labels'] == {'role': 'db'}
    # A selector matches its own project's servers only.
    selected = create_group(api, other, name='dbs', selector={'role': 'db'})
    assert selected['members'] == [theirs]
    assert api.get(groups_url(project, path)).json['server_group'][
        'members'] == [mine]
    reader = {'X-Roles': 'reader'}
    assert_error(api.post(groups_url(project), json={
        'name': 'r', 'servers': [mine]}, headers=reader), 403, 'Forbidden')
    assert api.get(groups_url(project), headers=reader).status == 200
