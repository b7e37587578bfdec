"""Rules for /servers: server registration and agent bootstrap."""

from oslo_policy import policy

from swconfig.common import urls
from swconfig.policies import base

_rule = base.project_rule

rules = [
    _rule('servers:index', base.PROJECT_READER,
          'List the servers registered to the project.',
          [{'path': urls.SERVERS, 'method': 'GET'}]),
    _rule('servers:show', base.PROJECT_READER,
          'Show a server registered to the project.',
          [{'path': urls.SERVER, 'method': 'GET'}]),
    _rule('servers:create', base.PROJECT_MEMBER,
          'Register a server to the project.',
          [{'path': urls.SERVERS, 'method': 'POST'}]),
    _rule('servers:delete', base.PROJECT_MEMBER,
          'Unregister a server (it must have no deployments).',
          [{'path': urls.SERVER, 'method': 'DELETE'}]),
    _rule('servers:agent_config', base.PROJECT_MEMBER,
          'Get the agent bootstrap settings of a server (they hold its '
          'signed metadata URL); claims the server for the project.',
          [{'path': urls.SERVER_AGENT_CONFIG, 'method': 'GET'}]),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
