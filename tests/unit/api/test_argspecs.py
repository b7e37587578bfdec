"""Memoized controller signatures: pecan's router gets what pecan itself
would compute, and inspects each function once."""

from pecan import core
from pecan import rest
from pecan import routing
from pecan import util

from swconfig.api import argspecs
from swconfig.api.controllers.v1 import software_deployments


class _Controller:
    def get_one(self, deployment_id, details=False):
        pass

    @staticmethod
    def helper(value):
        pass


def test_same_specs_as_pecan():
    controller = _Controller()
    for method in (controller.get_one, _Controller.get_one,
                   controller.helper,
                   software_deployments.SoftwareDeploymentsController.post):
        assert argspecs.getargspec(method) == argspecs._inspect(method)


def test_each_function_is_inspected_once(monkeypatch):
    calls = []

    original = argspecs._inspect

    def counting(method):
        calls.append(method)
        return original(method)

    monkeypatch.setattr(argspecs, '_inspect', counting)
    monkeypatch.setattr(argspecs, '_specs', {})
    controller, other = _Controller(), _Controller()
    first = argspecs.getargspec(controller.get_one)
    assert argspecs.getargspec(other.get_one) == first
    assert argspecs.getargspec(_Controller.get_one) == first
    assert len(calls) == 1


def test_install_reaches_the_router():
    argspecs.install()
    for module in (util, core, rest, routing):
        assert module.getargspec is argspecs.getargspec
