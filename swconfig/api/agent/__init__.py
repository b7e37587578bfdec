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

"""What the agents on the servers call, outside Keystone: the signed
metadata and signal URLs (``application``), the workers' in-memory copy of
the documents they poll (``metadata_cache``) and the background hand-over
of their signals to an engine (``signal_notifier``).

Kept apart from the tenant API because it is the service's hot path: the
dispatcher hands every request under ``/agent/`` straight to the agent
app (``application.AgentApp``, behind ``repeat_polls.RepeatPolls``), with
no middleware, webob or pecan in between. It also serves the view of a
server's deployments that os-collect-config's ``heat`` collector polls
with a token (``tenant_view``), behind authentication.
"""
