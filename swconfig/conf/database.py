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

"""The [database] group: oslo.db's options with swconfig's defaults."""

import copy

from oslo_config import cfg
from oslo_db import options as db_options


def register_opts(conf: cfg.ConfigOpts) -> None:
    # The SQLite default inside state_path is filled in by
    # swconfig.common.config.parse_args once state_path is known.
    db_options.set_defaults(conf)
    # oslo.db waits for the database at the first connection, up to
    # max_retries x retry_interval (100 s by default), holding the request
    # that made it: answer 503 at once instead, and connect again on the
    # next request.
    conf.set_default('max_retries', 0, group='database')


def list_opts() -> list:
    """oslo.db's options with the defaults register_opts gives them, so
    the sample config shows what swconfig really uses (copies: oslo.db's
    own option objects stay untouched)."""
    groups = copy.deepcopy(db_options.list_opts())
    for _group, opts in groups:
        for opt in opts:
            if opt.dest == 'max_retries':
                opt.default = 0
    return groups
