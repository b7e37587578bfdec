"""Policy in code: one module per resource, collected by list_rules."""

import itertools

from oslo_policy import policy

from swconfig.policies import base
from swconfig.policies import servers
from swconfig.policies import software_configs
from swconfig.policies import software_deployments


def list_rules() -> list[policy.RuleDefault]:
    return list(itertools.chain(
        base.list_rules(),
        software_configs.list_rules(),
        software_deployments.list_rules(),
        servers.list_rules(),
    ))
