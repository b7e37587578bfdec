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

"""The OS::Swconfig::* types against Heat's own: the same properties,
attributes, defaults and update rules (but signal_transport's default),
and the environment file that swaps one for the other.

Run by ``test_resources.py`` in a Python of their own: Heat registers
options in the global configuration under the same names as swconfig's
(``max_software_configs_per_tenant``...), so the two cannot be imported
into one process, as they never are in production.
"""

import pathlib

from heat.engine.resources.openstack.heat import software_component
from heat.engine.resources.openstack.heat import software_config
from heat.engine.resources.openstack.heat import software_deployment
from heat.engine.resources.openstack.heat import structured_config
import pytest
import yaml

from swconfig.client import rest
from swconfig.heat import client_plugin
from swconfig.heat.resources import deployment_group
from swconfig.heat.resources import software_config as sw_config
from swconfig.heat.resources import software_deployment as sw_deployment

ENVIRONMENT = (pathlib.Path(__file__).parents[3] / 'etc' / 'heat'
               / 'swconfig-environment.yaml')

HEAT_TYPES = {
    'SoftwareConfig': software_config.SoftwareConfig,
    'StructuredConfig': structured_config.StructuredConfig,
    'SoftwareComponent': software_component.SoftwareComponent,
    'SoftwareDeployment': software_deployment.SoftwareDeployment,
    'StructuredDeployment': structured_config.StructuredDeployment,
    'SoftwareDeploymentGroup': software_deployment.SoftwareDeploymentGroup,
    'StructuredDeploymentGroup': structured_config.StructuredDeploymentGroup,
}


def _ours() -> dict[str, type]:
    types = {}
    for module in (sw_config, sw_deployment, deployment_group):
        types.update(module.resource_mapping())
    return types


def _schema(schema) -> dict:
    """A property's or attribute's schema as plain data."""
    return {key: (_schema(value) if hasattr(value, 'keys') else value)
            for key, value in dict(schema).items()}


def test_every_heat_software_config_type_has_ours():
    assert sorted(_ours()) == sorted(f'OS::Swconfig::{name}'
                                     for name in HEAT_TYPES)


@pytest.mark.parametrize('name', sorted(HEAT_TYPES))
def test_properties_are_heats_but_the_signal_transport_default(name):
    ours = _ours()[f'OS::Swconfig::{name}'].properties_schema
    heats = HEAT_TYPES[name].properties_schema
    assert sorted(ours) == sorted(heats)
    for key in heats:
        if key == 'signal_transport':
            continue
        assert _schema(ours[key]) == _schema(heats[key]), key
    # Same update rule: these change in place, the others replace.
    assert ({key for key in ours if ours[key].update_allowed}
            == {key for key in heats if heats[key].update_allowed})


@pytest.mark.parametrize('name', sorted(HEAT_TYPES))
def test_attributes_are_heats(name):
    ours = _ours()[f'OS::Swconfig::{name}'].attributes_schema
    heats = HEAT_TYPES[name].attributes_schema
    assert ({key: _schema(value) for key, value in ours.items()}
            == {key: _schema(value) for key, value in heats.items()})


@pytest.mark.parametrize('value, sent', [
    (None, 'default'), ('', 'default'), ('CFN_SIGNAL', 'default'),
    ('HEAT_SIGNAL', 'HEAT_SIGNAL'), ('NO_SIGNAL', 'NO_SIGNAL'),
    ('TEMP_URL_SIGNAL', 'TEMP_URL_SIGNAL')])
def test_signal_transport_defaults_to_the_operators(value, sent):
    schema = sw_deployment.SoftwareDeployment.properties_schema
    assert schema['signal_transport'].default is None
    assert sw_deployment.signal_transport(value) == sent


def test_a_failure_quotes_status_code_and_the_end_of_stderr():
    reason = sw_deployment.failure_reason({
        'status_reason': 'deploy_status_code : Deployment exited with '
                         'non-zero status code: 3',
        'output_values': {'deploy_status_code': 3, 'deploy_stdout': 'out',
                          'deploy_stderr': 'x' * 900 + 'disk full\n'}})
    assert reason.startswith('Deployment to server failed: deploy_status_'
                             'code : Deployment exited with non-zero')
    assert '(deploy_status_code 3)' in reason
    assert reason.endswith('disk full')
    assert len(reason) < 700


def test_a_failure_without_outputs_says_why():
    assert sw_deployment.failure_reason(
        {'status_reason': 'Deployment cancelled.', 'output_values': None}
    ) == 'Deployment to server failed: Deployment cancelled.'


def test_a_deployment_without_a_source_config_is_not_run_again():
    sw_deployment.check_derivable({'id': 'd-1', 'source_config_id': 'c'})
    with pytest.raises(Exception) as refused:
        sw_deployment.check_derivable({'id': 'd-1',
                                       'source_config_id': None})
    assert 'Deployment d-1 has no source config in swconfig' in str(
        refused.value)


def test_the_environment_file_maps_every_heat_type_to_ours():
    registry = yaml.safe_load(ENVIRONMENT.read_text())['resource_registry']
    ours = _ours()
    for name in HEAT_TYPES:
        assert registry[f'OS::Heat::{name}'] == f'OS::Swconfig::{name}'
    assert set(registry.values()) <= set(ours)
    # Heat's hidden names of the groups go to the groups.
    assert registry['OS::Heat::SoftwareDeployments'] == (
        'OS::Swconfig::SoftwareDeploymentGroup')


def test_group_members_are_swconfig_deployments():
    assert (deployment_group.SoftwareDeploymentGroup.MEMBER_TYPE
            in _ours())
    assert (deployment_group.StructuredDeploymentGroup.MEMBER_TYPE
            == 'OS::Swconfig::StructuredDeployment')


@pytest.mark.parametrize('template, url', [
    ('http://sw.example.com:8004/v1/%(tenant_id)s',
     'http://sw.example.com:8004/v1/p1'),
    ('http://sw.example.com/v1/%(project_id)s', 'http://sw.example.com/v1/p1'),
])
def test_heat_conf_endpoint_overrides_the_catalog(template, url):
    conf = client_plugin.cfg.ConfigOpts()
    client_plugin.options.register_opts(conf)
    conf([], project='heat')
    assert client_plugin.endpoint_override('p1', conf) is None
    conf.set_override('endpoint', template, group='swconfig')
    assert client_plugin.endpoint_override('p1', conf) == url


@pytest.mark.parametrize('status, not_found, conflict', [
    (404, True, False), (409, False, True), (400, False, False)])
def test_client_plugin_reads_swconfigs_refusals(status, not_found,
                                               conflict):
    plugin = client_plugin.SwconfigClientPlugin.__new__(
        client_plugin.SwconfigClientPlugin)
    error = rest.SwconfigError('refused', status, 'Whatever')
    assert plugin.is_not_found(error) is not_found
    assert plugin.is_conflict(error) is conflict
    assert plugin.is_client_exception(error)
    assert not plugin.is_not_found(ValueError('x'))
