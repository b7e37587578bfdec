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

"""The mixin both Zaqar transports share: the options and the health of
swconfig's Zaqar (``[zaqar]``), declared once for the signal and the
metadata plugin."""

from oslo_config import cfg

from swconfig.transports.zaqar import client
from swconfig.transports.zaqar import options


class ZaqarOptionsAndHealth:
    """Mixed into both plugins ahead of their ``base`` class: their
    ``list_opts``, ``missing_configuration`` and ``service_problem``."""

    @classmethod
    def list_opts(cls) -> list[tuple[cfg.OptGroup, list[cfg.Opt]]]:
        return options.list_opts()

    def missing_configuration(self) -> str | None:
        return client.missing_configuration()

    def service_problem(self) -> str | None:
        return client.service_problem()
