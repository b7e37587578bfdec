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

"""``GET|HEAD /healthcheck``: oslo.middleware's health check, answered
without a token, with swconfig's own checks of what the API needs.

``[healthcheck] backends`` names the checks (stevedore plugins in the
``oslo.middleware.healthcheck`` namespace): by default the database, the
message bus and the transports' services; ``swconfig_engines`` (whether
an engine runs) may be added. A load balancer takes a worker whose checks
fail out of rotation (503); ``[healthcheck] detailed`` adds the reasons
to the JSON and HTML answers.
"""

from typing import Any

from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase

from swconfig import transports
from swconfig.api.openapi import spec
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import rpc
from swconfig.conf import CONF
from swconfig.db import api as db_api

#: Seconds the message bus check waits for a broker to accept.
BUS_TIMEOUT = 2.0

#: oslo.middleware's health check answer (not the standard error body),
#: in the type the Accept header asks for: plain text unless it asks for
#: JSON or HTML.
_ANSWER = {
    'text/plain': {'schema': {
        'type': 'string', 'description': 'The reasons, one per line (OK '
                                         'when healthy).'}},
    spec.JSON: {'schema': {
        'type': 'object', 'required': ['reasons', 'detailed'],
        'properties': {
            'reasons': {'type': 'array', 'description': 'What each check '
                        'found (more with [healthcheck] detailed).'},
            'detailed': {'type': 'boolean'}}}},
    'text/html': {'schema': {'type': 'string'}},
}


@spec.operation(
    'getHealthcheck', 'Whether this API worker can serve: the database '
    'answers and the message bus accepts connections (for load balancers; '
    'no token).', tag='health', method='GET', no_token=True,
    responses={'200': {'description': 'Healthy; the reasons as text, JSON '
                                      'or HTML (Accept).',
                       'content': _ANSWER},
               '503': {'description': 'A check failed; the same body.',
                       'content': _ANSWER}})
@spec.operation('headHealthcheck', 'The same check, without a body.',
                tag='health', method='HEAD', no_token=True,
                responses={'204': {'description': 'Healthy.'},
                           '503': {'description': 'A check failed.'}})
def served_by_the_health_app() -> None:
    """The health route's methods: the dispatcher hands the request to
    the health check app (``health_app``), which never calls this."""
    raise exception.RouteNotFound()


class DatabaseCheck(pluginbase.HealthcheckBaseExtension):
    """The database answers a query."""

    def healthcheck(self, server_port: int) -> pluginbase.HealthcheckResult:
        try:
            db_api.ping()
        except Exception as exc:
            return pluginbase.HealthcheckResult(
                available=False, reason='database unavailable',
                details=f'{type(exc).__name__}: {exc}')
        return pluginbase.HealthcheckResult(available=True,
                                            reason='database OK')


class MessageBusCheck(pluginbase.HealthcheckBaseExtension):
    """A broker of the message bus accepts connections (writes need the
    engines, which the API reaches over it)."""

    def healthcheck(self, server_port: int) -> pluginbase.HealthcheckResult:
        problem = rpc.bus_problem(BUS_TIMEOUT)
        if problem:
            return pluginbase.HealthcheckResult(
                available=False, reason='message bus unavailable',
                details=problem)
        return pluginbase.HealthcheckResult(available=True,
                                            reason='message bus OK')


class EnginesCheck(pluginbase.HealthcheckBaseExtension):
    """An engine on this API's topic recorded a heartbeat lately.

    Not among the default ``[healthcheck] backends``: without engines an
    API worker still serves reads and the agents' polls and signals, so
    a load balancer should keep it. Add ``swconfig_engines`` for a
    monitoring check that alerts when no engine runs.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.context = swconfig_context.get_admin_context()

    def healthcheck(self, server_port: int) -> pluginbase.HealthcheckResult:
        topic = CONF.engine.topic
        try:
            live = db_api.engine_services_live(self.context, topic)
        except Exception as exc:
            return pluginbase.HealthcheckResult(
                available=False, reason='engines unknown',
                details=f'{type(exc).__name__}: {exc}')
        if not live:
            return pluginbase.HealthcheckResult(
                available=False, reason='no engine running',
                details=f'no engine on topic {topic} recorded a heartbeat '
                        f'in the last {db_api.heartbeat_window():g} s')
        return pluginbase.HealthcheckResult(
            available=True, reason='engines OK',
            details=f'{live} engine(s) running on topic {topic}')


class TransportsCheck(pluginbase.HealthcheckBaseExtension):
    """Swift and Zaqar answer, when a configured transport uses them
    (agents signal or poll through them)."""

    def healthcheck(self, server_port: int) -> pluginbase.HealthcheckResult:
        problems = transports.service_problems()
        if problems:
            return pluginbase.HealthcheckResult(
                available=False, reason='transport service unavailable',
                details='; '.join(f'{name}: {problem}' for name, problem
                                  in sorted(problems.items())))
        return pluginbase.HealthcheckResult(available=True,
                                            reason='transports OK')


def health_app(conf: Any, not_found: Any) -> Any:
    """The health check in front of ``not_found``, which answers a
    request the check ignores (a source outside ``[healthcheck]
    allowed_source_ranges``)."""
    return healthcheck.Healthcheck(not_found, conf)
