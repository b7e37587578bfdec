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
