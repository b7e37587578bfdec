"""The ``swconfig`` command: a cliff application over the REST API.

It only calls the API (``client.py``); every rule about configs,
deployments, triggers and cancellation lives in the service, so this
command, the dashboard and heatclient all behave the same.
"""
