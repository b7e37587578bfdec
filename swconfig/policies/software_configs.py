"""Rules for /software_configs, with Heat's names and defaults."""

from oslo_policy import policy

from swconfig.policies import base

PATH = '/v1/{tenant_id}/software_configs'
_rule = base.project_rule

rules = [
    policy.DocumentedRuleDefault(
        name='software_configs:global_index',
        check_str='rule:deny_everybody',
        description='List the software configs of every project.',
        operations=[{'path': PATH + '?global_tenant=true', 'method': 'GET'}],
        scope_types=['project']),
    _rule('software_configs:index', base.PROJECT_READER,
          'List software configs.', [{'path': PATH, 'method': 'GET'}]),
    _rule('software_configs:create', base.PROJECT_MEMBER,
          'Create a software config.', [{'path': PATH, 'method': 'POST'}]),
    _rule('software_configs:show', base.PROJECT_READER,
          'Show a software config.',
          [{'path': PATH + '/{config_id}', 'method': 'GET'}]),
    _rule('software_configs:delete', base.PROJECT_MEMBER,
          'Delete a software config.',
          [{'path': PATH + '/{config_id}', 'method': 'DELETE'}]),
    _rule('software_configs:validate', base.PROJECT_READER,
          'Validate a template holding software configs (what '
          '"openstack software config create" sends first).',
          [{'path': '/v1/{tenant_id}/validate', 'method': 'POST'}]),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
