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

"""Sphinx configuration of swconfig's documentation.

Built by ``python3 tools/dev.py docs`` (or ``tox -e docs``) with warnings
as errors. The configuration and policy references are generated from the
code by oslo.config's and oslo.policy's Sphinx extensions, the release
notes by reno's.
"""

import os
import sys

sys.path.insert(0, os.path.abspath('_exts'))

project = 'swconfig'
copyright = 'swconfig developers'
author = 'swconfig developers'

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
    'reno.sphinxext',
    'api_fields',
]

exclude_patterns = ['_build']
master_doc = 'index'
html_theme = 'alabaster'
html_static_path: list[str] = []
html_title = 'swconfig documentation'
pygments_style = 'sphinx'
