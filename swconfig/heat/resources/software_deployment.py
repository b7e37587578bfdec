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

"""``OS::Swconfig::SoftwareDeployment`` and ``StructuredDeployment``:
a config applied to one server by swconfig.

Heat's types derive the config, make signal credentials and watch the
deployment inside Heat. These only ask swconfig: the deployment is created
with a ``signal_transport`` (swconfig's engine derives the config, issues
the signal URL and keeps the timeout), each stack action the template
lets run on the server is one swconfig action on that same deployment,
and completion is read with ``?wait=N`` long polls. The properties,
attributes and defaults are those of Heat's ``OS::Heat::`` types but one:
``signal_transport`` defaults to swconfig's operator default.
"""

import logging

from heat.common import exception
from heat.engine import attributes
from heat.engine import properties
from heat.engine import resource
from heat.engine.resources.openstack.heat import software_deployment
from heat.engine.resources.openstack.heat import structured_config
from oslo_config import cfg

from swconfig.client import rest
from swconfig.heat import client_plugin

LOG = logging.getLogger(__name__)

HEAT_DEPLOYMENT = software_deployment.SoftwareDeployment

COMPLETE = 'COMPLETE'
FAILED = 'FAILED'

#: What swconfig's API calls the operator's default transport; a template
#: that names none, or Heat's CFN_SIGNAL (which needs heat-api-cfn), gets it.
OPERATOR_DEFAULT = 'default'
CFN_SIGNAL = 'CFN_SIGNAL'

#: How much of deploy_stderr a failed deployment's reason quotes.
STDERR_TAIL = 500

SIGNAL_TRANSPORT_SCHEMA = properties.Schema(
    properties.Schema.STRING,
    'How the server reports the outputs of a run: the name of a signal '
    'transport swconfig offers (HEAT_SIGNAL: swconfig\'s signed signal '
    'URL; TEMP_URL_SIGNAL: a Swift TempURL; ZAQAR_SIGNAL: a Zaqar queue; '
    'NO_SIGNAL: complete without waiting). Unset, or CFN_SIGNAL: the '
    'default the swconfig operator chose. swconfig refuses a name it does '
    'not offer, listing those it does.')


def signal_transport(value: str | None) -> str:
    """The ``signal_transport`` of swconfig's request for the property's
    value (a group hands an unset one to its members as "")."""
    return OPERATOR_DEFAULT if value in (None, '', CFN_SIGNAL) else value


def check_derivable(current: dict) -> None:
    """Refuse to run a new action on a deployment swconfig cannot derive
    again: one imported from Heat without the config it deploys (Heat
    encrypted the resource's properties, or its API made it). Sending the
    config as it is would give the agent a config without input values."""
    if current.get('source_config_id') is None:
        raise exception.Error(
            f'Deployment {current["id"]} has no source config in swconfig '
            f'(imported from Heat without it), so swconfig cannot derive '
            f'its config again: replace the resource (change its name) to '
            f'deploy the config anew.')


def failure_reason(deployment: dict) -> str:
    """Why the resource failed: swconfig's reason, the exit status and the
    end of what the config wrote on stderr."""
    outputs = deployment.get('output_values') or {}
    reason = (f'Deployment to server failed: '
              f'{deployment.get("status_reason") or "no reason given"}')
    code = outputs.get('deploy_status_code')
    if code is not None:
        reason += f' (deploy_status_code {code})'
    stderr = str(outputs.get('deploy_stderr') or '').strip()
    if stderr:
        tail = stderr[-STDERR_TAIL:]
        reason += f'; deploy_stderr ends: {tail}'
    return reason


class SoftwareDeployment(resource.Resource):
    """A software config deployed to one server by swconfig.

    ``server`` is any server id swconfig accepts (a Nova server's, or the
    id an agent was set up with). The stack actions in ``actions``
    (CREATE and UPDATE by default; for a component, those its entries
    list) run the config on the server; the resource completes when the
    agent signals, and fails with the agent's reason, exit status and the
    end of its stderr. Attributes: ``deploy_stdout``, ``deploy_stderr``,
    ``deploy_status_code`` and every output the config declares.
    """

    default_client_name = client_plugin.CLIENT_NAME

    PROPERTIES = (CONFIG, SERVER, INPUT_VALUES, DEPLOY_ACTIONS, NAME,
                  SIGNAL_TRANSPORT) = HEAT_DEPLOYMENT.PROPERTIES
    ATTRIBUTES = (STDOUT, STDERR, STATUS_CODE) = HEAT_DEPLOYMENT.ATTRIBUTES

    properties_schema = dict(HEAT_DEPLOYMENT.properties_schema,
                             signal_transport=SIGNAL_TRANSPORT_SCHEMA)
    attributes_schema = dict(HEAT_DEPLOYMENT.attributes_schema)

    # -- what swconfig is asked -------------------------------------------

    def _source_config(self) -> dict | None:
        config_id = self.properties[self.CONFIG]
        return self.client().config_show(config_id) if config_id else None

    def _runs(self, action: str, source: dict | None) -> bool:
        """Whether a stack action runs the config on the server (Heat's
        rule): for a component, when an entry lists the action; otherwise
        when ``actions`` does. Without a config nothing runs."""
        if source is None:
            return False
        if source.get('group') == 'component':
            entries = (source.get('config') or {}).get('configs') or ()
            return any(action in (entry.get('actions') or ())
                       for entry in entries)
        return action in self.properties[self.DEPLOY_ACTIONS]

    def _extra_fields(self) -> dict:
        """Fields a subclass adds to the deployment's creation."""
        return {}

    def _create(self, action: str, source: dict) -> dict:
        body = {'config_id': source['id'],
                'server_id': self.properties[self.SERVER],
                'input_values': self.properties[self.INPUT_VALUES] or {},
                'action': action,
                'signal_transport': signal_transport(
                    self.properties[self.SIGNAL_TRANSPORT]),
                'name': self.properties[self.NAME],
                **self._extra_fields()}
        # Should Heat's engine stop between the answer and recording the
        # id, the retried creation gets the same deployment back.
        key = f'heat-{self.stack.id}-{self.id}-{self.name}'[:255]
        deployment = self.client().deployment_create(body,
                                                     idempotency_key=key)
        self.resource_id_set(deployment['id'])
        return deployment

    def _run(self, action: str, source: dict) -> dict | None:
        """Run ``action`` on the existing deployment with the current
        config and input values: one new action in swconfig, whether they
        changed (PUT) or not (the action again)."""
        current = self.client().deployment_show(self.resource_id)
        check_derivable(current)
        inputs = self.properties[self.INPUT_VALUES] or {}
        if (current.get('source_config_id') != source['id']
                or current.get('input_values') != inputs
                or current.get('action') != action):
            return self.client().deployment_update(
                self.resource_id, {'config_id': source['id'],
                                   'input_values': inputs,
                                   'action': action})
        return self.client().deployment_action(self.resource_id, action)

    def _start(self, action: str, source: dict | None = None
               ) -> str | None:
        """Start ``action`` if it runs on the server; the deployment to
        wait for, or None when nothing runs."""
        if source is None:
            source = self._source_config()
        if not self._runs(action, source):
            LOG.info('%s: %s does not run the config on the server',
                     self.name, action)
            return None
        if self.resource_id is None:
            deployment = self._create(action, source)
        else:
            deployment = self._run(action, source)
        return deployment['id'] if deployment else None

    def _check_complete(self, deployment_id: str | None) -> bool:
        """Whether the action finished: a long poll that swconfig answers
        as soon as the deployment changes."""
        if deployment_id is None:
            return True
        deployment = self.client().deployment_show(
            deployment_id, wait=cfg.CONF.swconfig.wait_seconds)
        if deployment['status'] == COMPLETE:
            return True
        if deployment['status'] == FAILED:
            reason = failure_reason(deployment)
            LOG.info('%s: %s', self.name, reason)
            raise exception.Error(reason)
        return False

    # -- Heat's lifecycle -------------------------------------------------

    def handle_create(self) -> str | None:
        return self._start(self.CREATE)

    def check_create_complete(self, deployment_id: str | None) -> bool:
        return self._check_complete(deployment_id)

    def handle_update(self, json_snippet, tmpl_diff, prop_diff
                      ) -> str | None:
        self.properties = json_snippet.properties(self.properties_schema,
                                                  self.context)
        source = self._source_config()
        if self.resource_id is not None and source is not None:
            self._replace_on_input_change(source)
        return self._start(self.UPDATE, source)

    def check_update_complete(self, deployment_id: str | None) -> bool:
        return self._check_complete(deployment_id)

    def _replace_on_input_change(self, source: dict) -> None:
        """Heat's rule: an input declared ``replace_on_change`` whose value
        changes replaces the resource (a new deployment) instead of
        updating it."""
        current = self.client().deployment_show(self.resource_id)
        with self.client_plugin().ignore_not_found:
            derived = self.client().config_show(current['config_id'])
            given = {item['name']: item.get('value')
                     for item in derived.get('inputs') or ()}
            values = self.properties[self.INPUT_VALUES] or {}
            for item in source.get('inputs') or ():
                name = item['name']
                if not item.get('replace_on_change') or name not in given:
                    continue
                if values.get(name, item.get('default')) != given[name]:
                    LOG.info('%s: input %s changed and is declared '
                             'replace_on_change: replacing', self.name, name)
                    raise resource.UpdateReplace(self.name)

    def handle_suspend(self) -> str | None:
        return self._start(self.SUSPEND)

    def check_suspend_complete(self, deployment_id: str | None) -> bool:
        return self._check_complete(deployment_id)

    def handle_resume(self) -> str | None:
        return self._start(self.RESUME)

    def check_resume_complete(self, deployment_id: str | None) -> bool:
        return self._check_complete(deployment_id)

    def handle_delete(self) -> tuple[str, bool] | None:
        """Run the DELETE action when the template says so, then remove
        the deployment (its derived config goes with it).

        A component's DELETE entry is run by swconfig's own delete, which
        removes the deployment once the entry finishes; any other config
        with DELETE in ``actions`` runs as a DELETE action first and the
        resource removes the deployment when it completes. Returns the
        deployment to watch and whether it still has to be removed.
        """
        if self.resource_id is None:
            return None
        with self.client_plugin().ignore_not_found:
            source = self._source_config()
            if not self._runs(self.DELETE, source):
                self.client().deployment_delete(self.resource_id)
                return None
            if source.get('group') == 'component':
                running = self.client().deployment_delete(self.resource_id)
                return (self.resource_id, False) if running else None
            self._run(self.DELETE, source)
            return self.resource_id, True
        return None

    def check_delete_complete(self, token: tuple[str, bool] | None
                              ) -> bool:
        if token is None:
            return True
        deployment_id, remove_after = token
        try:
            if not self._check_complete(deployment_id):
                return False
        except rest.SwconfigError as error:
            if error.status == 404:
                return True
            raise
        except exception.Error:
            if remove_after:
                raise
            # swconfig removes a component's deployment when its DELETE
            # entry ends, failed or not.
            return False
        if remove_after:
            with self.client_plugin().ignore_not_found:
                self.client().deployment_delete(deployment_id)
            return True
        return False

    def _cancel(self) -> None:
        """A cancelled stack action fails the action running on the
        server (swconfig's cancel: the agent's later signal is refused)."""
        if self.resource_id is None:
            return
        try:
            self.client().deployment_cancel(self.resource_id)
        except rest.SwconfigError as error:
            if error.status not in (404, 409):
                raise

    def handle_create_cancel(self, cookie) -> None:
        self._cancel()

    def handle_update_cancel(self, cookie) -> None:
        self._cancel()

    def handle_delete_cancel(self, cookie) -> None:
        self._cancel()

    def handle_suspend_cancel(self, cookie) -> None:
        self._cancel()

    def handle_resume_cancel(self, cookie) -> None:
        self._cancel()

    def handle_adopt(self, resource_data: dict | None = None) -> None:
        """Take back a deployment an abandoned stack left in swconfig: it
        must still be there, and nothing runs on the server."""
        super().handle_adopt(resource_data)
        self.client().deployment_show(self.resource_id)

    # -- attributes -------------------------------------------------------

    def _show_resource(self) -> dict | None:
        if self.resource_id is None:
            return None
        return self.client().deployment_show(self.resource_id)

    def get_attribute(self, key: str, *path):
        """An output the agent reported (``deploy_stdout`` and the
        like, or a declared output), None while there is none; any other
        name is not an attribute of this resource."""
        if key == self.SHOW:
            return attributes.select_from_attribute(
                self._show_resource(), path)
        if self.resource_id is not None:
            deployment = self.client().deployment_show(self.resource_id)
            outputs = deployment.get('output_values') or {}
            if key in outputs:
                return attributes.select_from_attribute(outputs[key], path)
        if key not in self.ATTRIBUTES and key not in self._declared_outputs():
            raise exception.InvalidTemplateAttribute(resource=self.name,
                                                     key=key)
        return None

    def _declared_outputs(self) -> set[str]:
        source = self._source_config()
        return {item['name'] for item in (source or {}).get('outputs') or ()}

    def validate(self) -> None:
        """Heat's check: a server of this stack that takes deployments
        must get its user data as SOFTWARE_CONFIG."""
        super().validate()
        server = self.properties[self.SERVER]
        res = self.stack.resource_by_refid(server) if server else None
        if res is None:
            return
        user_data_format = res.properties.get('user_data_format')
        if user_data_format and user_data_format != 'SOFTWARE_CONFIG':
            raise exception.StackValidationFailed(
                message=f'Resource {server} takes software deployments: '
                        f'its user_data_format must be SOFTWARE_CONFIG, '
                        f'not {user_data_format}.')


class StructuredDeployment(SoftwareDeployment):
    """A deployment of a structured config: swconfig replaces each
    ``{get_input: NAME}`` (or ``{<input_key>: NAME}``) in the config with
    that input's value when it derives the config for the server."""

    HEAT_STRUCTURED = structured_config.StructuredDeployment

    PROPERTIES = HEAT_STRUCTURED.PROPERTIES
    INPUT_KEY = HEAT_STRUCTURED.INPUT_KEY
    INPUT_VALUES_VALIDATE = HEAT_STRUCTURED.INPUT_VALUES_VALIDATE

    properties_schema = dict(HEAT_STRUCTURED.properties_schema,
                             signal_transport=SIGNAL_TRANSPORT_SCHEMA)
    attributes_schema = dict(HEAT_STRUCTURED.attributes_schema)

    def _extra_fields(self) -> dict:
        return {'input_key': self.properties[self.INPUT_KEY],
                'input_values_validate':
                    self.properties[self.INPUT_VALUES_VALIDATE]}


def resource_mapping() -> dict[str, type]:
    return {
        'OS::Swconfig::SoftwareDeployment': SoftwareDeployment,
        'OS::Swconfig::StructuredDeployment': StructuredDeployment,
    }
