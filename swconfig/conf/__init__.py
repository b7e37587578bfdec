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

"""swconfig's configuration options, one module per option group."""

from oslo_config import cfg

from swconfig.conf import agent
from swconfig.conf import api
from swconfig.conf import coordination
from swconfig.conf import database
from swconfig.conf import default
from swconfig.conf import engine
from swconfig.conf import middleware
from swconfig.conf import upgrade_levels

CONF = cfg.CONF

default.register_opts(CONF)
agent.register_opts(CONF)
api.register_opts(CONF)
coordination.register_opts(CONF)
database.register_opts(CONF)
engine.register_opts(CONF)
middleware.register_opts(CONF)
upgrade_levels.register_opts(CONF)
