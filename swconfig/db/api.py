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

"""The database facade: what the API and the engine call, as
``db_api.<entity>_<verb>(context, ...)``.

Each function lives in the module of the entity it reads or writes, and
is listed here once:

* ``configs``: software configs (``software_config_*``).
* ``deployments``: software deployments and their events, versions and
  timeouts, the signal applier's batch writes, what the Swift and Zaqar
  workers wait for, and the target of an agent's signal
  (``software_deployment*``, ``deployment_events_add``,
  ``signal_deployments_lock``, ``agent_signal_target``).
* ``servers``: servers, their metadata documents, change log and push
  marks (``server_*``, ``agent_server_*``).
* ``server_labels``: the labels of servers and the servers a label
  selector matches (``server_labels_*``, ``servers_matching``).
* ``server_groups``: server groups and the resolution of their members
  (``server_group_*``).
* ``rollouts``: rollouts, their targets and events (``rollout*``).
* ``signal_inbox``: the signal inbox (``signal_inbox_*``,
  ``agent_signal_insert``).
* ``request_keys``: the Idempotency-Keys of requests that made
  deployments (``request_key_*``).
* ``purge``: what finished deployments leave behind (``purge_finished``).
* ``project_rows``: a project's rows read out whole and written back with
  their ids, for export and import (``project_ids``, ``project_rows*``).
* ``engine_services``: the engines' heartbeats (``engine_service*``).
* ``session``: the transaction context and the database's health
  (``reader``, ``writer``, ``ping``, ``is_outage``).

Readers and writers use oslo.db's enginefacade with the request context as
the transaction holder. Every query that returns project data is scoped to
the caller's project inside the query itself (admins are not scoped), so an
object of another project is simply "not found". Functions return plain
dicts, never live ORM objects. The ``agent_*`` functions take no context:
they run on the agents' hot-path engine (``agent_path``), never in a
caller's transaction.
"""

from swconfig.db import configs
from swconfig.db import deployments
from swconfig.db import engine_services
from swconfig.db import project_rows
from swconfig.db import purge
from swconfig.db import request_keys
from swconfig.db import rollouts
from swconfig.db import server_groups
from swconfig.db import server_labels
from swconfig.db import servers
from swconfig.db import session
from swconfig.db import signal_inbox

software_config_count = configs.software_config_count
software_config_create = configs.software_config_create
software_configs_create_many = configs.software_configs_create_many
software_config_delete = configs.software_config_delete
software_config_get = configs.software_config_get
software_config_get_all = configs.software_config_get_all
software_configs_get_many = configs.software_configs_get_many
software_config_names = configs.software_config_names

agent_signal_target = deployments.agent_signal_target
deployment_events_add = deployments.deployment_events_add
signal_deployments_lock = deployments.signal_deployments_lock
software_deployment_count = deployments.software_deployment_count
software_deployment_create = deployments.software_deployment_create
software_deployment_delete = deployments.software_deployment_delete
software_deployment_event_get_all = (
    deployments.software_deployment_event_get_all)
software_deployment_get = deployments.software_deployment_get
software_deployment_get_all = deployments.software_deployment_get_all
software_deployment_get_for_update = (
    deployments.software_deployment_get_for_update)
software_deployment_next_deadline = (
    deployments.software_deployment_next_deadline)
software_deployment_running = deployments.software_deployment_running
software_deployment_time_out = deployments.software_deployment_time_out
software_deployment_timed_out = deployments.software_deployment_timed_out
software_deployment_update = deployments.software_deployment_update
software_deployment_versions = deployments.software_deployment_versions
software_deployments_apply = deployments.software_deployments_apply
software_deployments_create_many = (
    deployments.software_deployments_create_many)
software_deployments_delete_many = (
    deployments.software_deployments_delete_many)
software_deployments_get_many = deployments.software_deployments_get_many
software_deployments_waiting = deployments.software_deployments_waiting
servers_with_deployment_named = deployments.servers_with_deployment_named

agent_server_changes = servers.agent_server_changes
agent_server_changes_purge = servers.agent_server_changes_purge
agent_server_document = servers.agent_server_document
agent_server_documents = servers.agent_server_documents
new_server_row = servers.new_server_row
server_claim = servers.server_claim
server_claim_many = servers.server_claim_many
server_claimable = servers.server_claimable
server_delete = servers.server_delete
server_deployment_configs = servers.server_deployment_configs
server_deployment_configs_many = servers.server_deployment_configs_many
server_document_get = servers.server_document_get
server_document_store = servers.server_document_store
server_documents_store_many = servers.server_documents_store_many
server_get = servers.server_get
server_get_all = servers.server_get_all
server_heat_settings_set = servers.server_heat_settings_set
server_owner = servers.server_owner
server_poll_times_store = servers.server_poll_times_store
server_push_done = servers.server_push_done
server_push_pending = servers.server_push_pending
servers_get_many = servers.servers_get_many

server_labels_get = server_labels.server_labels_get
server_labels_replace = server_labels.server_labels_replace
servers_matching = server_labels.servers_matching

server_group_create = server_groups.server_group_create
server_group_delete = server_groups.server_group_delete
server_group_get = server_groups.server_group_get
server_group_get_all = server_groups.server_group_get_all
server_group_resolve = server_groups.server_group_resolve
server_group_update = server_groups.server_group_update

rollout_create = rollouts.rollout_create
rollout_event_add = rollouts.rollout_event_add
rollout_events_get = rollouts.rollout_events_get
rollout_get = rollouts.rollout_get
rollout_get_all = rollouts.rollout_get_all
rollout_get_for_update = rollouts.rollout_get_for_update
rollout_target_attach = rollouts.rollout_target_attach
rollout_targets_cancel = rollouts.rollout_targets_cancel
rollout_targets_get = rollouts.rollout_targets_get
rollout_targets_set = rollouts.rollout_targets_set
rollout_targets_start = rollouts.rollout_targets_start
rollout_update = rollouts.rollout_update
rollouts_running = rollouts.rollouts_running

agent_signal_insert = signal_inbox.agent_signal_insert
signal_inbox_add = signal_inbox.signal_inbox_add
signal_inbox_add_once = signal_inbox.signal_inbox_add_once
signal_inbox_claim = signal_inbox.signal_inbox_claim
signal_inbox_finish = signal_inbox.signal_inbox_finish
signal_inbox_first_pending = signal_inbox.signal_inbox_first_pending
signal_inbox_pending = signal_inbox.signal_inbox_pending
signal_inbox_pending_upto = signal_inbox.signal_inbox_pending_upto

request_key_add = request_keys.request_key_add
request_key_get = request_keys.request_key_get
request_key_purge = request_keys.request_key_purge

purge_finished = purge.purge_finished

project_ids = project_rows.project_ids
project_rows_get = project_rows.project_rows_get
project_rows_insert = project_rows.project_rows_insert

engine_service_beat = engine_services.engine_service_beat
engine_service_prune = engine_services.engine_service_prune
engine_service_remove = engine_services.engine_service_remove
engine_services_live = engine_services.engine_services_live
heartbeat_window = engine_services.heartbeat_window

is_outage = session.is_outage
ping = session.ping
reader = session.reader
writer = session.writer
