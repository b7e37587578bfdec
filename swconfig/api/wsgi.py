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

"""The WSGI entry point for uWSGI, gunicorn or mod_wsgi.

    gunicorn 'swconfig.api.wsgi:application'

Config files are found the usual oslo.config way, or named in the
SWCONFIG_CONFIG_FILES environment variable (comma-separated). The
worker's background work starts as it loads the application (under a
uWSGI master that loads it before forking: in each worker, after its
fork).
"""

import os
import sys

from swconfig.common import process


def _init_application():
    files = os.environ.get('SWCONFIG_CONFIG_FILES')
    process.init_process(
        [sys.argv[0]],
        default_config_files=files.split(',') if files else None)
    from swconfig.api import app
    from swconfig.api import background
    # The outermost app's bound __call__: the server calls it directly, not
    # through the instance-call slot (a twentieth of an agent poll).
    served = app.setup_app().__call__
    background.start_in_each_worker()
    return served


application = _init_application()
