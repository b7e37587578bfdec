"""Rules for /software_deployments, with Heat's names and defaults."""

from oslo_policy import policy

from swconfig.common import urls
from swconfig.policies import base

_rule = base.project_rule

rules = [
    _rule('software_deployments:index', base.PROJECT_READER,
          'List software deployments.',
          [{'path': urls.DEPLOYMENTS, 'method': 'GET'}]),
    _rule('software_deployments:create', base.PROJECT_MEMBER,
          'Create a software deployment.',
          [{'path': urls.DEPLOYMENTS, 'method': 'POST'}]),
    _rule('software_deployments:show', base.PROJECT_READER,
          'Show a software deployment (optionally waiting for a change), '
          'or one of its outputs.',
          [{'path': urls.DEPLOYMENT, 'method': 'GET'},
           {'path': urls.DEPLOYMENT_OUTPUT, 'method': 'GET'}]),
    _rule('software_deployments:update', base.PROJECT_MEMBER,
          'Update a software deployment.',
          [{'path': urls.DEPLOYMENT, 'method': 'PUT'}]),
    _rule('software_deployments:delete', base.PROJECT_MEMBER,
          'Delete a software deployment.',
          [{'path': urls.DEPLOYMENT, 'method': 'DELETE'}]),
    _rule('software_deployments:signal', base.PROJECT_MEMBER,
          'Signal the current action of a software deployment.',
          [{'path': urls.DEPLOYMENT_SIGNAL, 'method': 'POST'}]),
    _rule('software_deployments:action', base.PROJECT_MEMBER,
          'Run a lifecycle or custom action of a server-side software '
          'deployment.',
          [{'path': urls.DEPLOYMENT_ACTIONS, 'method': 'POST'}]),
    _rule('software_deployments:trigger', base.PROJECT_MEMBER,
          'Trigger one action of a software deployment as a new '
          'deployment on the same server.',
          [{'path': urls.DEPLOYMENT_TRIGGER, 'method': 'POST'}]),
    _rule('software_deployments:cancel', base.PROJECT_MEMBER,
          'Cancel the action in progress of a software deployment.',
          [{'path': urls.DEPLOYMENT_CANCEL, 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name='software_deployments:metadata',
        check_str=('(' + base.PROJECT_READER + ') or '
                   '(role:heat_stack_user and project_id:%(project_id)s)'),
        description='Show the deployments metadata of a server.',
        operations=[{'path': urls.SERVER_METADATA,
                     'method': 'GET'}],
        scope_types=['project']),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
