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

"""The checked-in sample files are what the generators write today.

``etc/swconfig/swconfig.conf.sample`` and ``etc/swconfig/policy.yaml.sample``
are generated from the options and policies in code (see
doc/source/admin/configuration.rst). A change to an option or a policy
without regenerating them fails here; ``python3 tools/dev.py genconfig``
and ``python3 tools/dev.py genpolicy`` bring them up to date.
"""

import configparser
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ETC = ROOT / 'etc' / 'swconfig'
BIN = pathlib.Path(sys.executable).parent

# (generator, its config file, the tools/dev.py command that refreshes it)
GENERATORS = {
    'swconfig.conf.sample': ('oslo-config-generator',
                             'swconfig-config-generator.conf', 'genconfig'),
    'policy.yaml.sample': ('oslopolicy-sample-generator',
                           'swconfig-policy-generator.conf', 'genpolicy'),
}


def _generate(sample: str, out_dir: pathlib.Path) -> str:
    program, generator_conf, _ = GENERATORS[sample]
    output = out_dir / sample
    subprocess.run([str(BIN / program), '--config-file',
                    str(ETC / generator_conf), '--output-file', str(output)],
                   cwd=ROOT, check=True, capture_output=True, text=True)
    return output.read_text()


@pytest.mark.parametrize('sample', sorted(GENERATORS))
def test_checked_in_sample_is_current(sample, tmp_path):
    generated = _generate(sample, tmp_path)
    checked_in = (ETC / sample).read_text()
    command = GENERATORS[sample][2]
    assert generated == checked_in, (
        f'etc/swconfig/{sample} is stale: run '
        f'"python3 tools/dev.py {command}" and commit the result')


@pytest.mark.parametrize('sample', sorted(GENERATORS))
def test_generator_writes_where_the_sample_is_checked_in(sample):
    """Running the generator without --output-file (tox -e genconfig,
    tools/dev.py genconfig) rewrites the checked-in file, not another."""
    parser = configparser.ConfigParser(strict=False)
    parser.read(ETC / GENERATORS[sample][1])
    assert parser['DEFAULT']['output_file'] == f'etc/swconfig/{sample}'


def test_sample_config_lists_every_option_once():
    current_group = None
    seen = set()
    for line in (ETC / 'swconfig.conf.sample').read_text().splitlines():
        if line.startswith('['):
            current_group = line
        elif line.startswith('#') and ' = ' in line and ' ' not in (
                line.split(' = ')[0]):
            key = (current_group, line.split(' = ')[0])
            assert key not in seen, f'{key} listed twice'
            seen.add(key)
    assert ('[database]', '#connection') in seen


def test_sample_config_has_no_machine_specific_default():
    text = (ETC / 'swconfig.conf.sample').read_text()
    home = str(pathlib.Path.home())
    assert f'= {home}' not in text and f'={home}' not in text
    assert '#state_path = <home directory>/.local/share/swconfig' in text
    assert '#host = <hostname>' in text
