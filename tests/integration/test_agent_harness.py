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

"""Self-test of tests/fixtures/agents.py against a tiny stand-in server.

The stand-in plays swconfig's part: it serves a Heat-shaped metadata
document (doc/source/reference/metadata.rst) to os-collect-config's request
collector and records the signals heat-config-notify sends back.
"""

import email.utils
import http.server
import json
import multiprocessing
import shutil
import threading
import time
import uuid

import pytest

from tests.fixtures import agents

HOST = '127.0.0.1'


class StandInServer:
    """Metadata at ``/metadata``; signals accepted at ``/signal/<id>``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.deployments: list[dict] = []
        self.modified = time.time()
        self.requests: list[tuple[str, str]] = []
        self.signals: list[dict] = []
        self.httpd = http.server.ThreadingHTTPServer((HOST, 0),
                                                     self._handler())
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base = f'http://{HOST}:{self.port}'
        self.metadata_url = self.base + '/metadata'
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)

    def start(self) -> 'StandInServer':
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)

    def signal_url(self, name: str) -> str:
        return f'{self.base}/signal/{name}'

    def publish(self, *deployments: dict) -> None:
        """Replace the served deployments; Last-Modified moves forward."""
        with self.lock:
            self.deployments = list(deployments)
            self.modified = max(time.time(), self.modified + 1)

    def document(self) -> dict:
        with self.lock:
            return {
                'deployments': self.deployments,
                'os-collect-config': {
                    'collectors': ['request'],
                    'request': {'metadata_url': self.metadata_url},
                },
            }

    def _handler(self) -> type:
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format, *args):
                pass

            def _send(self, status, body=b'', headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                if self.command != 'HEAD':
                    self.wfile.write(body)

            def _record(self):
                with server.lock:
                    server.requests.append((self.command, self.path))

            def _metadata(self):
                self._record()
                if self.path != '/metadata':
                    return self._send(404)
                body = json.dumps(server.document()).encode()
                modified = email.utils.formatdate(server.modified,
                                                  usegmt=True)
                return self._send(200, body, [
                    ('Content-Type', 'application/json'),
                    ('Last-Modified', modified)])

            do_GET = do_HEAD = _metadata

            def _signal(self):
                self._record()
                length = int(self.headers.get('Content-Length') or 0)
                raw = self.rfile.read(length)
                if not self.path.startswith('/signal/'):
                    return self._send(404)
                with server.lock:
                    server.signals.append({
                        'method': self.command,
                        'path': self.path,
                        'content_type': self.headers.get('Content-Type'),
                        'body': json.loads(raw) if raw else None,
                    })
                return self._send(201 if self.command == 'PUT' else 200)

            do_PUT = do_POST = _signal

        return Handler


@pytest.fixture
def server():
    stand_in = StandInServer().start()
    yield stand_in
    stand_in.stop()


@pytest.fixture
def agent(tmp_path):
    return agents.Agent(tmp_path / 'server-0')


def script_deployment(server, config, verb='PUT', inputs=None):
    """A derived script config as Heat puts it in server metadata."""
    config_id = str(uuid.uuid4())
    values = dict(inputs or {})
    values.update({
        'deploy_server_id': 'server-0',
        'deploy_action': 'CREATE',
        'deploy_stack_id': 'stack/' + str(uuid.uuid4()),
        'deploy_resource_name': 'deployment',
        'deploy_signal_transport': 'TEMP_URL_SIGNAL',
        'deploy_signal_id': server.signal_url(config_id),
    })
    if verb is not None:
        values['deploy_signal_verb'] = verb
    return {
        'id': config_id,
        'name': f'deployment-{config_id[:8]}',
        'group': 'script',
        'creation_time': '2026-01-01T00:00:00Z',
        'config': config,
        'inputs': [{'name': name, 'type': 'String', 'value': value,
                    'description': name, 'default': None}
                   for name, value in values.items()],
        'outputs': [{'name': 'result', 'type': 'String',
                     'error_output': False, 'description': None}],
        'options': {},
    }


GREETING_SCRIPT = '''#!/bin/sh
echo "hello $greeting"
echo "to stderr" >&2
printf '%s' "result-$greeting" > "$heat_outputs_path.result"
'''

FAILING_SCRIPT = '''#!/bin/sh
echo "about to fail"
exit 3
'''


def test_run_once_runs_the_script_and_signals_once(server, agent):
    item = script_deployment(server, GREETING_SCRIPT,
                             inputs={'greeting': 'world'})
    server.publish(item)

    run = agent.run_once(server.metadata_url)
    print(run)

    assert run.returncode == 0, run
    assert server.requests[:2] == [('HEAD', '/metadata'),
                                   ('GET', '/metadata')], run
    assert len(server.signals) == 1, run
    signal = server.signals[0]
    assert signal['method'] == 'PUT'
    assert signal['path'] == f'/signal/{item["id"]}'
    assert signal['content_type'] == 'application/json'
    assert signal['body'] == {
        'result': 'result-world',
        'deploy_stdout': 'hello world\n',
        'deploy_stderr': 'to stderr\n',
        'deploy_status_code': 0,
    }
    assert agent.deployed_ids() == {item['id']}
    assert agent.notify_data(item['id']) == signal['body']
    assert (agent.script_outputs / f'{item["id"]}.result').read_text() == (
        'result-world')
    # The chain's own logs are all in the result.
    assert 'apply: 1 deployment(s)' in run.output
    assert f'Completed {agent.hooks_dir / "script"}' in run.output

    # Same document again: os-collect-config sees no change, no signal.
    again = agent.run_once(server.metadata_url)
    assert again.returncode == 0, again
    assert len(server.signals) == 1, again

    # Forced through to heat-config: the deployed marker stops a re-run.
    forced = agent.run_once(server.metadata_url, force=True)
    assert forced.returncode == 0, forced
    assert f'Skipping config {item["id"]}, already deployed' in (
        forced.output)
    assert len(server.signals) == 1, forced


def test_new_config_runs_and_old_one_is_skipped(server, agent):
    first = script_deployment(server, GREETING_SCRIPT,
                              inputs={'greeting': 'one'})
    server.publish(first)
    agent.run_once(server.metadata_url).check()
    second = script_deployment(server, GREETING_SCRIPT,
                               inputs={'greeting': 'two'})
    server.publish(first, second)

    run = agent.run_once(server.metadata_url).check()

    assert [s['path'] for s in server.signals] == [
        f'/signal/{first["id"]}', f'/signal/{second["id"]}'], run
    assert server.signals[1]['body']['result'] == 'result-two'
    assert f'Skipping config {first["id"]}, already deployed' in run.output


def test_failing_script_signals_its_status_code(server, agent):
    item = script_deployment(server, FAILING_SCRIPT)
    server.publish(item)

    run = agent.run_once(server.metadata_url)

    assert run.returncode == 0, run
    assert len(server.signals) == 1, run
    assert server.signals[0]['body'] == {
        'deploy_stdout': 'about to fail\n',
        'deploy_stderr': '',
        'deploy_status_code': 3,
    }


def test_signal_without_verb_is_a_post(server, agent):
    item = script_deployment(server, GREETING_SCRIPT, verb=None,
                             inputs={'greeting': 'cfn'})
    server.publish(item)

    run = agent.run_once(server.metadata_url).check()

    assert len(server.signals) == 1, run
    assert server.signals[0]['method'] == 'POST'
    assert server.signals[0]['content_type'] == 'application/json'
    assert server.signals[0]['body']['result'] == 'result-cfn'
    assert server.signals[0]['body']['deploy_status_code'] == 0


def test_run_heat_config_skips_os_collect_config(server, agent):
    item = script_deployment(server, GREETING_SCRIPT,
                             inputs={'greeting': 42})

    run = agent.run_heat_config([item]).check()

    assert server.requests == [('PUT', f'/signal/{item["id"]}')], run
    # 55-heat-config turns String inputs into strings.
    assert server.signals[0]['body']['deploy_stdout'] == 'hello 42\n'
    assert server.signals[0]['body']['result'] == 'result-42'

    again = agent.run_heat_config([item]).check()
    assert len(server.signals) == 1, again
    assert 'already deployed' in again.output


def test_agents_are_independent(server, tmp_path):
    item = script_deployment(server, GREETING_SCRIPT,
                             inputs={'greeting': 'both'})
    server.publish(item)

    for name in ('server-a', 'server-b'):
        agents.Agent(tmp_path / name).run_once(server.metadata_url).check()

    assert len(server.signals) == 2


def _fetch_in_child(cache_dir, queue):
    try:
        queue.put(str(agents.fetch_heat_agents(cache_dir=cache_dir).root))
    except Exception as exc:  # reported to the parent
        queue.put(repr(exc))


def test_concurrent_fetches_extract_once(tmp_path):
    """Several processes on an empty cache: one extraction, same tree."""
    sdist = agents.heat_agents().root.parent / (
        f'heat_agents-{agents.HEAT_AGENTS_VERSION}.tar.gz')
    cache = tmp_path / 'cache'
    cache.mkdir()
    # A cached tarball: this exercises the lock and the atomic rename
    # without a second download.
    shutil.copy(sdist, cache / sdist.name)
    context = multiprocessing.get_context('spawn')
    queue = context.Queue()
    children = [context.Process(target=_fetch_in_child,
                                args=(str(cache), queue))
                for _ in range(4)]
    for child in children:
        child.start()
    results = [queue.get(timeout=120) for _ in children]
    for child in children:
        child.join(30)

    expected = str(cache / f'heat_agents-{agents.HEAT_AGENTS_VERSION}')
    assert results == [expected] * 4
    assert all(child.exitcode == 0 for child in children)
    # No scratch directories left behind, only the tarball and the tree.
    leftovers = {p.name for p in cache.iterdir()
                 if not p.name.startswith('.heat-agents-')}
    assert leftovers == {sdist.name, expected.rsplit('/', 1)[1]}
    agents.HeatAgents(agents.HEAT_AGENTS_VERSION,
                      cache / f'heat_agents-{agents.HEAT_AGENTS_VERSION}'
                      ).check()
