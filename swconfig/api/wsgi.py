"""The WSGI entry point for uWSGI, gunicorn or mod_wsgi.

    gunicorn 'swconfig.api.wsgi:application'

Config files are found the usual oslo.config way, or named in the
SWCONFIG_CONFIG_FILES environment variable (comma-separated).
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
    return app.setup_app()


application = _init_application()
