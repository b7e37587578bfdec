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

"""Release notes as reno reads them: each file is ``<slug>-<16 hex
digits>.yaml`` and no two share the digits (reno keys notes by them, and
the docs build stops at the second one; a copied file name did that)."""

import collections
import pathlib
import re

NOTES = pathlib.Path(__file__).resolve().parents[2] / 'releasenotes' / (
    'notes')
NAME = re.compile(r'^[a-z0-9-]+-([0-9a-f]{16})\.yaml$')


def test_every_note_has_an_id_of_its_own():
    names = sorted(path.name for path in NOTES.glob('*.yaml'))
    assert names, NOTES
    assert [name for name in names if not NAME.match(name)] == []
    ids = collections.Counter(NAME.match(name)[1] for name in names)
    assert [uid for uid, count in ids.items() if count > 1] == []
