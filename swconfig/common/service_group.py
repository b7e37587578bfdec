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

"""Several oslo.service services run as one (swconfig-all's API+engine)."""

from oslo_service import service


class ServiceGroup(service.ServiceBase):
    """Starts its services in order and stops them in reverse, so the
    engine is listening before the API takes requests."""

    def __init__(self, services: list[service.ServiceBase]) -> None:
        self.services = services

    def start(self) -> None:
        for svc in self.services:
            svc.start()

    def stop(self) -> None:
        for svc in reversed(self.services):
            svc.stop()

    def wait(self) -> None:
        for svc in self.services:
            svc.wait()

    def reset(self) -> None:
        for svc in self.services:
            svc.reset()
