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

"""Policy in code: one module per resource, collected by list_rules."""

import itertools

from oslo_policy import policy

from swconfig.policies import base
from swconfig.policies import rollouts
from swconfig.policies import server_groups
from swconfig.policies import servers
from swconfig.policies import software_configs
from swconfig.policies import software_deployments


def list_rules() -> list[policy.RuleDefault]:
    return list(itertools.chain(
        base.list_rules(),
        software_configs.list_rules(),
        software_deployments.list_rules(),
        servers.list_rules(),
        server_groups.list_rules(),
        rollouts.list_rules(),
    ))
