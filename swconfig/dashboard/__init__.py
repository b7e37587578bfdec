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

"""The web dashboard's files: plain ES modules, CSS and one HTML page,
shipped as package data and served by the API at ``/dashboard/``
(``swconfig.api.dashboard``). No build step: what is here is what the
browser runs.

The pages call only the public REST API under ``/v1/{project}``, the
very requests the ``swconfig`` command makes, so the dashboard can do
nothing the CLI cannot and shows what the CLI shows. This package holds
no Python logic and imports nothing of swconfig.
"""

import pathlib

#: The directory of the files served under ``/dashboard/static/``.
STATIC_DIR = pathlib.Path(__file__).parent / 'static'
#: The page every dashboard URL that is not a file answers with.
INDEX = STATIC_DIR / 'index.html'
