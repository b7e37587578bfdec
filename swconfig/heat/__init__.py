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

"""The Heat resource plug-in: ``OS::Swconfig::*`` resource types that a
real Heat engine loads to run software-config templates through swconfig.

Heat imports it, never swconfig's own processes. Like the ``swconfig``
command it is a client of the REST API only: the derivation of configs,
the signal transports and the timeouts stay in swconfig's engine, so a
template, the CLI and the dashboard get the same behaviour. The resource
modules are in ``resources/`` (the directory heat.conf ``plugin_dirs``
names, printed by ``swconfig-manage heat-plugin-path``); the client
plug-in is the ``heat.clients`` entry point ``swconfig``.
"""
