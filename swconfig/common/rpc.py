"""oslo.messaging plumbing: one transport per process, context on the wire.

Only exceptions from ``swconfig.common.exception`` are re-raised across RPC
with their own class; anything else arrives as a RemoteError (HTTP 500).
"""

from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from swconfig.common import context as swconfig_context
from swconfig.common.context import RequestContext

ALLOWED_EXMODS = ['swconfig.common.exception']

_TRANSPORT: messaging.Transport | None = None


def init(conf: cfg.ConfigOpts, default_url: str | None = None) -> None:
    """Create the transport; ``default_url`` applies only when
    ``transport_url`` is not configured (swconfig-all uses ``fake://``)."""
    global _TRANSPORT
    messaging.set_transport_defaults(control_exchange='swconfig')
    messaging.TransportURL.parse(conf)  # registers transport_url
    # oslo.messaging's own default is 'rabbit://', never empty: "not
    # configured" means the value still comes from that option default.
    location = conf.get_location('transport_url').location
    configured = location is not cfg.Locations.opt_default
    url = conf.transport_url if configured or not default_url else default_url
    _TRANSPORT = messaging.get_rpc_transport(
        conf, url=url, allowed_remote_exmods=ALLOWED_EXMODS)


def cleanup() -> None:
    global _TRANSPORT
    if _TRANSPORT is not None:
        _TRANSPORT.cleanup()
    _TRANSPORT = None


def get_transport() -> messaging.Transport:
    if _TRANSPORT is None:
        raise RuntimeError('swconfig.common.rpc.init() was not called')
    return _TRANSPORT


class RequestContextSerializer(messaging.Serializer):
    """JSON payloads; the context crosses as its to_dict()."""

    def __init__(self) -> None:
        self._base = messaging.JsonPayloadSerializer()

    def serialize_entity(self, ctxt: RequestContext, entity: Any) -> Any:
        return self._base.serialize_entity(ctxt, entity)

    def deserialize_entity(self, ctxt: RequestContext, entity: Any) -> Any:
        return self._base.deserialize_entity(ctxt, entity)

    def serialize_context(self, ctxt: RequestContext) -> dict:
        return ctxt.to_dict()

    def deserialize_context(self, ctxt: dict) -> Any:
        return swconfig_context.RequestContext.from_dict(ctxt)


def get_client(target: messaging.Target, version_cap: str | None = None,
               timeout: int | None = None) -> messaging.RPCClient:
    return messaging.get_rpc_client(
        get_transport(), target, version_cap=version_cap, timeout=timeout,
        serializer=RequestContextSerializer())


def get_server(target: messaging.Target, endpoints: list,
               executor: str = 'threading') -> Any:
    kwargs = {'executor': executor} if executor != 'threading' else {}
    return messaging.get_rpc_server(
        get_transport(), target, endpoints,
        serializer=RequestContextSerializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy, **kwargs)
