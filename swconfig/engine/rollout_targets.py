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

"""A rollout's targets: the servers a target (a server group, a list of
servers, a label selector) names when the rollout is created, and which
of them can run its work. What could only fail on a target is refused at
creation, naming the servers, as a server group refuses such members."""

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import api as db_api


def resolve(context: RequestContext, target: dict) -> list[str]:
    """The servers of ``target``, in the order they start."""
    if 'server_group' in target:
        servers = db_api.server_group_resolve(context,
                                              target['server_group'])
        if not servers:
            raise exception.RolloutNoTargets(
                detail=f'server group {target["server_group"]} has no '
                       f'members')
        return servers
    if 'selector' in target:
        servers = sorted(db_api.servers_matching(
            context, target['selector'], project_id=context.project_id))
        if not servers:
            wanted = ', '.join(f'{key}={value}' for key, value
                               in sorted(target['selector'].items()))
            raise exception.RolloutNoTargets(
                detail=f'the selector {wanted} matches no server of the '
                       f'project')
        return servers
    # A list: in the order given, each server once.
    return list(dict.fromkeys(target['servers']))


#: How many servers a refusal names.
NAMED = 5


def named(servers: list[str], one: str, many: str) -> str:
    """'Server a has' / 'Servers a, b and 3 more have'."""
    shown = ', '.join(servers[:NAMED])
    more = len(servers) - NAMED
    if len(servers) == 1:
        return f'Server {shown} {one}'
    return f'Servers {shown}{f" and {more} more" if more > 0 else ""} {many}'


def runnable(context: RequestContext, servers: list[str],
              work: dict) -> tuple[list[str], list[str]]:
    """The targets that can run ``work``, and those left out: a
    rollout that could only fail on some targets is refused at creation,
    as a server group refuses such members, not target by target later.
    Another project's server is 403 (but for an admin); with
    ``deployment_name``, a target without such a deployment is 400
    unless ``skip_missing``."""
    if not context.is_admin:
        owners = db_api.servers_get_many(context, servers)
        foreign = [server for server in servers if server in owners
                   and owners[server]['tenant'] != context.project_id]
        if foreign:
            raise exception.RolloutServersForbidden(
                servers=named(foreign, 'belongs', 'belong'))
    if not work.get('deployment_name'):
        return servers, []
    having = db_api.servers_with_deployment_named(
        context, servers, work['deployment_name'])
    missing = [server for server in servers if server not in having]
    if missing and not work.get('skip_missing'):
        raise exception.RolloutDeploymentMissing(
            servers=named(missing, 'has', 'have'),
            name=work['deployment_name'])
    if len(missing) == len(servers):
        raise exception.RolloutNoTargets(
            detail=f'no target has a deployment named '
                   f'{work["deployment_name"]}')
    return [server for server in servers if server in having], missing
