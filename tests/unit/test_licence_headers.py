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

"""Every source file in git opens with the licence header, in its own
comment syntax, so a file copied out of the tree still says under which
terms. Only files git tracks count: a scratch file is nobody's release.
The alembic template carries the header too, so every migration
generated from it does."""

import os
import pathlib
import re
import subprocess

from alembic import command as alembic_command
from alembic import config as alembic_config

from swconfig.db import migration

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: The header's text, without comment markers (the year may be any).
LICENCE = [
    'Copyright 2026 swconfig developers',
    '',
    '   Licensed under the Apache License, Version 2.0 (the "License");'
    ' you may',
    '   not use this file except in compliance with the License.'
    ' You may obtain',
    '   a copy of the License at',
    '',
    '        http://www.apache.org/licenses/LICENSE-2.0',
    '',
    '   Unless required by applicable law or agreed to in writing, software',
    '   distributed under the License is distributed on an "AS IS" BASIS,'
    ' WITHOUT',
    '   WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.'
    ' See the',
    '   License for the specific language governing permissions and'
    ' limitations',
    '   under the License.',
]
#: Per suffix: the line that opens the comment, the prefix of each line
#: and the line that closes it.
SYNTAX = {
    '.py': (None, '#', None),
    '.mako': (None, '#', None),
    '.lua': (None, '--', None),
    '.js': (None, '//', None),
    '.css': ('/*', ' *', ' */'),
    '.html': ('<!--', ' ', '-->'),
}
#: A first line that may stand before the header.
PREAMBLE = re.compile(r'#!|<!doctype ', re.I)


def _header(suffix: str) -> re.Pattern:
    opening, prefix, closing = SYNTAX[suffix]
    lines = [opening] if opening else []
    lines += [f'{prefix} {line}'.rstrip() for line in LICENCE]
    if closing:
        lines.append(closing)
    pattern = re.escape('\n'.join(lines) + '\n')
    return re.compile(pattern.replace('2026', r'\d{4}(?:-\d{4})?'))


def has_header(name: str, text: str) -> bool:
    """Whether ``text`` (the file ``name``) opens with the header, after
    at most a ``#!`` or ``<!doctype`` line."""
    if PREAMBLE.match(text):
        text = text.split('\n', 1)[1] if '\n' in text else ''
    return bool(_header(pathlib.PurePath(name).suffix).match(text))


def _tracked_sources() -> list[str]:
    listed = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    return [name for name in listed.split('\0')
            if pathlib.PurePath(name).suffix in SYNTAX]


def test_every_tracked_source_file_has_the_header():
    names = _tracked_sources()
    assert {pathlib.PurePath(n).suffix for n in names} == set(SYNTAX)
    missing = [name for name in names
               if not has_header(name, (ROOT / name).read_text('utf-8'))]
    assert missing == [], (
        f'no licence header at the top of {missing}: copy it from a file '
        f'of the same type')


def test_the_check_tells_syntaxes_apart():
    python = (ROOT / 'setup.py').read_text('utf-8')
    assert has_header('setup.py', python)
    assert not has_header('setup.js', python)
    assert not has_header('late.py', 'import os\n' + python)
    assert has_header('tool.py', '#!/usr/bin/env python3\n' + python)
    javascript = python.replace('#', '//')
    assert has_header('a.js', javascript)
    assert not has_header('a.js', javascript.replace('Apache', 'Other'))


def test_a_generated_migration_has_the_header(tmp_path):
    """``alembic revision`` writes a new script from the template."""
    config = alembic_config.Config()
    config.set_main_option('script_location', migration.MIGRATIONS_DIR)
    config.set_main_option('version_locations', ' '.join(
        (os.path.join(migration.MIGRATIONS_DIR, 'versions'), str(tmp_path))))
    alembic_command.revision(config, 'a change', rev_id='0123456789ab',
                             version_path=str(tmp_path))
    (script,) = tmp_path.glob('*.py')
    text = script.read_text('utf-8')
    assert has_header(script.name, text), text
    assert "revision = '0123456789ab'" in text
