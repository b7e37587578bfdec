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

"""Agent documents whose os-collect-config block is stored sealed.

A server moved between Heat and swconfig may be handed Heat's block,
which holds a stack user's password (``swconfig-manage heat-cutover``).
Its stored document then carries the block as ``{"swconfig-sealed":
"<sealed text>"}``, the very text ``common.sealing`` made when the block
was set, so equal documents stay byte-equal (and keep their ETag); the
block is opened only in memory, where the document leaves swconfig: an
API worker's metadata cache, an engine's push.

This module is light on purpose: ``is_sealed`` runs for every document
an API worker loads; cryptography is imported only to open one.
"""

import json

KEY = 'swconfig-sealed'
_MARK = f'"{KEY}":'


def reference(sealed: str) -> dict:
    """What a stored document holds in place of the block ``sealed``."""
    return {KEY: sealed}


def is_sealed(text: str) -> bool:
    return _MARK in text


def opened(text: str) -> str:
    """The document as its agent must read it: the sealed block opened
    (the text itself when nothing in it is sealed)."""
    if not is_sealed(text):
        return text
    from swconfig.common import sealing
    document = json.loads(text)
    block = document.get('os-collect-config')
    if isinstance(block, dict) and set(block) == {KEY}:
        document['os-collect-config'] = sealing.unseal(block[KEY])
    return json.dumps(document, separators=(',', ':'), sort_keys=True)
