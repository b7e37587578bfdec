"""``GET|HEAD /healthcheck``: oslo.middleware's health check, answered
without a token, with swconfig's own checks of what the API needs.

``[healthcheck] backends`` names the checks (stevedore plugins in the
``oslo.middleware.healthcheck`` namespace): by default the database and
the message bus. A load balancer takes a worker whose checks fail out of
rotation (503); ``[healthcheck] detailed`` adds the reasons to the JSON
and HTML answers.
"""

from typing import Any

from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase

from swconfig import transports
from swconfig.common import rpc
from swconfig.db import api as db_api

#: Seconds the message bus check waits for a broker to accept.
BUS_TIMEOUT = 2.0


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
