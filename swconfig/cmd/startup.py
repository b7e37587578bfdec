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

"""How a console script fails at start-up: one line, no traceback.

Left to fail where it is first used, a configuration error prints a
40-120-line traceback, or kills a worker process that the launcher then
restarts every few seconds for ever. So the console scripts check what
they can before launching, and ``run`` turns what fails into
``<script>: error: <message>`` on stderr and a non-zero exit status.
"""

from collections.abc import Callable
import os
import sys

from oslo_config import cfg
from oslo_log import log

from swconfig.common import exception
from swconfig.conf import CONF

LOG = log.getLogger(__name__)

#: Exit status of a configuration the service cannot run with.
EXIT_CONFIG = 2
#: Exit status of any other failure to start (e.g. a port in use).
EXIT_STARTUP = 1


def _logs_elsewhere() -> bool:
    """Whether logging goes somewhere else than the terminal: the error
    is then logged as well as printed."""
    try:
        return bool(CONF.log_file or CONF.log_dir or CONF.use_syslog or
                    CONF.use_journal or CONF.log_config_append)
    except cfg.Error:
        return False  # the options were not even parsed


def fail(message: str, status: int) -> None:
    if _logs_elsewhere():
        LOG.error('%s', message)
    prog = os.path.basename(sys.argv[0])
    print(f'{prog}: error: {message}', file=sys.stderr)
    sys.exit(status)


def run(main: Callable[[], None]) -> None:
    """Run a console script's ``main``, failing on one line."""
    try:
        main()
    except cfg.ConfigFilesNotFoundError as exc:
        fail('cannot read configuration file(s): '
             + ', '.join(exc.config_files), EXIT_CONFIG)
    except cfg.Error as exc:
        fail(str(exc), EXIT_CONFIG)
    except exception.ConfigurationError as exc:
        fail(exc.message, EXIT_CONFIG)
    except exception.StartupError as exc:
        fail(exc.message, EXIT_STARTUP)
