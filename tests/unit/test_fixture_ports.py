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

"""The ports the tests' services listen on (tests/fixtures/processes.py):
never twice at once, never one an outgoing connection can take."""

import json
import socket
import subprocess
import sys

from tests.fixtures import processes


def test_ports_are_below_the_ephemeral_range_and_handed_out_once():
    ephemeral = processes._ephemeral_ports()
    ports = [processes.free_port() for _ in range(5)]
    assert len(set(ports)) == 5
    assert all(port < ephemeral.start for port in ports), ports


def test_other_processes_get_other_ports():
    # As the xdist workers do: each its own interpreter.
    script = ('import json; from tests.fixtures import processes; '
              'print(json.dumps([processes.free_port() for _ in range(20)]))')
    runs = [subprocess.Popen([sys.executable, '-c', script],
                             stdout=subprocess.PIPE, text=True)
            for _ in range(3)]
    handed = [port for run in runs
              for port in json.loads(run.communicate(timeout=60)[0])]
    assert len(handed) == 60 and len(set(handed)) == 60


def test_a_port_in_use_is_passed_over():
    following = processes.free_port() + 1
    with socket.socket() as holder:
        holder.bind((processes.HOST, following))
        assert processes.free_port() != following
