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

"""``swconfig-manage export`` and ``import`` as an operator runs them: a
project made through the API of a ``swconfig-all`` on MariaDB, exported,
imported into a fresh ``swconfig-all`` on PostgreSQL; then every GET of
the API the OpenAPI document lists (each path with every id of the
project), and the agents' signed metadata, answer the same on both.

Both services share the agent signing keys and the public URL agents are
told, as two regions behind one name would; the real MariaDB and
PostgreSQL are started if down, never skipped.
"""

import contextlib
import itertools
import json
import re
import secrets
import subprocess
import urllib.parse

import requests

from tests.fixtures import processes
from tests.fixtures import services
from tests.fixtures import waiting

TIMEOUT = 30
PROJECT = 'p-export'
PUBLIC_URL = 'http://swconfig.example:8004'
#: What an export holds, in the order the commands report it.
KINDS = ('software_configs', 'servers', 'server_labels',
         'software_deployments', 'deployment_events', 'server_groups',
         'server_group_members', 'rollouts', 'rollout_targets',
         'rollout_events')


@contextlib.contextmanager
def _service(tmp_path, name, backend, keys):
    """A migrated ``swconfig-all`` on a scratch database of ``backend``:
    (its base URL, its config file)."""
    workdir = tmp_path / name
    workdir.mkdir()
    with services.scratch_database(backend) as url:
        port = processes.free_port()
        config_file = processes.write_config(str(workdir / 'swconfig.conf'), {
            'DEFAULT': {'state_path': workdir},
            'database': {'connection': url},
            'api': {'bind_host': processes.HOST, 'bind_port': port,
                    'public_url': PUBLIC_URL},
            'agent': {'signing_keys': keys},
        })
        _manage(config_file, 'db', 'sync')
        process = processes.SwconfigProcess('swconfig-all', config_file,
                                            str(workdir)).start()
        try:
            base_url = f'http://{processes.HOST}:{port}'
            processes.wait_for_http(base_url + '/', process)
            yield base_url, config_file
        finally:
            process.stop()


def _manage(config_file, *args, check=True):
    done = subprocess.run(
        [processes.script('swconfig-manage'), '--config-file', config_file,
         *args], capture_output=True, text=True, timeout=120, check=False)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def _call(http, method, url, body=None, expected=200):
    reply = http.request(method, url, json=body, timeout=TIMEOUT)
    assert reply.status_code == expected, f'{method} {url}: {reply.text}'
    return reply.json() if reply.content else None


def _populate(http, base_url):
    """Configs, labelled servers, deployments (one finished with
    outputs), a group and a rollout to it, through the API."""
    api = f'{base_url}/v1/{PROJECT}'
    ids = {'server_id': ['web-1', 'web-2', 'db-1']}
    for server_id in ids['server_id']:
        _call(http, 'PUT', f'{api}/servers/{server_id}',
              {'labels': {'role': server_id.split('-')[0], 'zone': 'a'}})
    script = _call(http, 'POST', f'{api}/software_configs', {
        'name': 'hello', 'group': 'script', 'config': 'echo "$name"',
        'inputs': [{'name': 'name', 'default': 'wörld'}],
        'outputs': [{'name': 'greeting'}]})['software_config']
    structured = _call(http, 'POST', f'{api}/software_configs', {
        'name': 'settings', 'group': 'apply-config',
        'config': {'port': {'get_input': 'port'}},
        'inputs': [{'name': 'port', 'type': 'Number'}]})['software_config']
    deployments = [_call(http, 'POST', f'{api}/software_deployments', {
        'config_id': config['id'], 'server_id': server_id,
        'input_values': values, 'action': 'CREATE',
        'status': 'IN_PROGRESS'})['software_deployment']
        for config, server_id, values in (
            (script, 'web-1', {'name': 'web'}),
            (structured, 'db-1', {'port': 5432}))]
    _call(http, 'PUT', f'{api}/software_deployments/{deployments[0]["id"]}',
          {'status': 'COMPLETE', 'status_reason': 'Outputs received',
           'output_values': {'greeting': 'hello web'}})
    group = _call(http, 'POST', f'{api}/server_groups', {
        'name': 'web', 'selector': {'role': 'web'}})['server_group']
    rollout = _call(http, 'POST', f'{api}/rollouts', {
        'server_group': group['id'], 'config_id': script['id'],
        'input_values': {'name': 'all'}})['rollout']
    # The engine starts the rollout's targets after answering; the export
    # is of a project where nothing more happens by itself.
    targets = f'{api}/rollouts/{rollout["id"]}/targets'
    waiting.wait_for(lambda: all(
        target['deployment_id'] for target in _call(
            http, 'GET', targets)['targets']), TIMEOUT,
        'the rollout to start both targets')


def _path_ids(http, base_url):
    """Each path parameter -> every value of the project, read from the
    exporting service's lists."""
    api = f'{base_url}/v1/{PROJECT}'
    deployments = _call(http, 'GET', f'{api}/software_deployments')[
        'software_deployments']
    return {
        'tenant_id': [PROJECT],
        'config_id': [c['id'] for c in _call(
            http, 'GET', f'{api}/software_configs')['software_configs']],
        'deployment_id': [d['id'] for d in deployments],
        'server_id': [s['server_id'] for s in _call(
            http, 'GET', f'{api}/servers')['servers']],
        'group_id': [g['id'] for g in _call(
            http, 'GET', f'{api}/server_groups')['server_groups']],
        'rollout_id': [r['id'] for r in _call(
            http, 'GET', f'{api}/rollouts')['rollouts']],
        'output_name': ['greeting', 'deploy_stdout'],
    }


def _every_get(base_url, http, ids):
    """Path -> (status, body) for every GET path of the OpenAPI document
    under /v1/{tenant_id}, with every combination of ids."""
    document = _call(http, 'GET', f'{base_url}/v1/openapi.json')
    answers = {}
    for template, item in document['paths'].items():
        if 'get' not in item or not template.startswith('/v1/{tenant_id}'):
            continue
        names = re.findall(r'{(\w+)}', template)
        for values in itertools.product(*(ids[name] for name in names)):
            path = template
            for name, value in zip(names, values, strict=True):
                path = path.replace('{' + name + '}',
                                    urllib.parse.quote(value, safe=''))
            reply = http.get(base_url + path, timeout=TIMEOUT)
            answers[path] = (reply.status_code, reply.json())
    return answers


def _agent_documents(http, base_url, server_ids):
    """Server -> the document and ETag its agent's signed URL gives."""
    found = {}
    for server_id in server_ids:
        conf = _call(http, 'GET', f'{base_url}/v1/{PROJECT}/servers/'
                                  f'{server_id}/agent-config')
        url = conf['os-collect-config']['request']['metadata_url']
        assert url.startswith(PUBLIC_URL)
        reply = http.get(base_url + url[len(PUBLIC_URL):], timeout=TIMEOUT)
        assert reply.status_code == 200, reply.text
        found[server_id] = (reply.headers['ETag'], reply.json())
    return found


def test_a_project_moves_from_mariadb_to_postgresql(tmp_path):
    keys = f'region:{secrets.token_urlsafe(32)}'
    export_file = tmp_path / 'export.json'
    with contextlib.ExitStack() as stack, requests.Session() as http:
        source, source_conf = stack.enter_context(
            _service(tmp_path, 'source', 'mysql', keys))
        target, target_conf = stack.enter_context(
            _service(tmp_path, 'target', 'postgresql', keys))
        _populate(http, source)

        exported = _manage(source_conf, 'export', '--project', PROJECT,
                           '--file', str(export_file))
        imported = _manage(target_conf, 'import', '--file', str(export_file))

        document = json.loads(export_file.read_text())
        [project] = document['projects']
        counts = ', '.join(f'{len(project[name])} {name}' for name in KINDS
                           if project[name])
        assert exported.stderr == f'Exported project {PROJECT}: {counts}\n'
        assert imported.stdout == f'Imported project {PROJECT}: {counts}\n'
        assert 'rollout_targets' in counts and 'deployment_events' in counts
        ids = _path_ids(http, source)
        assert len(ids['deployment_id']) == 4  # 2 made, 2 by the rollout
        before = _every_get(source, http, ids)
        after = _every_get(target, http, ids)
        assert len(before) > 30
        assert {path for path, (status, _) in before.items()
                if status == 200} >= {
            f'/v1/{PROJECT}/rollouts/{ids["rollout_id"][0]}/targets'}
        for path, answer in before.items():
            assert after[path] == answer, path
        assert _agent_documents(http, target, ids['server_id']) == (
            _agent_documents(http, source, ids['server_id']))

        again = _manage(target_conf, 'import', '--file', str(export_file),
                        check=False)
        assert again.returncode == 1
        assert 'Refused project p-export (nothing of it written): The ' \
               'database already has software_config' in again.stderr
        skipping = _manage(target_conf, 'import', '--skip-existing',
                           '--file', str(export_file))
        assert skipping.stdout == (f'Imported project {PROJECT}: nothing; '
                                   f'kept as they were: {counts}\n')


def test_mistakes_are_one_line_each(tmp_path):
    """On an empty SQLite database: each refused command exits 1 with one
    line on stderr saying what to fix, and writes nothing."""
    config_file = processes.write_config(str(tmp_path / 'swconfig.conf'), {
        'DEFAULT': {'state_path': tmp_path / 'state'}})
    _manage(config_file, 'db', 'sync')
    not_json = tmp_path / 'not.json'
    not_json.write_text('{"format": ')
    newer = tmp_path / 'newer.json'
    newer.write_text(json.dumps({'format': 'swconfig-export', 'version': 2,
                                 'projects': []}))
    cases = {
        ('export', '--project', 'p-typo'):
            'No project p-typo in the database: nothing to export for it '
            '(projects with data: none)',
        ('import', '--file', str(tmp_path / 'missing.json')):
            f'cannot read {tmp_path / "missing.json"}: No such file or '
            f'directory',
        ('import', '--file', str(not_json)):
            f'{not_json} is not JSON: Expecting value: line 1 column 12 '
            f'(char 11)',
        ('import', '--file', str(newer)):
            'Not an export document this release can import: it is '
            'version 2; this release reads version 1',
    }
    for args, said in cases.items():
        done = _manage(config_file, *args, check=False)
        assert done.returncode == 1, (args, done.stderr)
        assert done.stdout == ''
        assert done.stderr == f'swconfig-manage {args[0]}: {said}\n', args
