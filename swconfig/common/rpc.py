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

"""oslo.messaging plumbing: one transport per process, context on the wire.

Only exceptions from ``swconfig.common.exception`` are re-raised across RPC
with their own class; anything else arrives as a RemoteError (HTTP 500).

``CallRunner`` bounds how long a caller waits for a call as a whole:
oslo.messaging's ``timeout`` bounds only the wait for the reply, and some
of its steps (opening the reply queue's connection) retry for as long as
the broker is down.
"""

from collections.abc import Callable
from concurrent import futures
import os
import queue
import socket
import threading
import time
from typing import Any

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common.context import RequestContext

ALLOWED_EXMODS = ['swconfig.common.exception']

_TRANSPORT: messaging.Transport | None = None
_URL: messaging.TransportURL | None = None
#: oslo.messaging drivers that need no server (in-process or none).
_SERVERLESS = frozenset({'fake'})
#: The broker port of a driver when the URL gives none.
_DEFAULT_PORTS = {'rabbit': 5672, 'amqp': 5672, 'kafka': 9092}


def init(conf: cfg.ConfigOpts, default_url: str | None = None) -> None:
    """Create the transport; ``default_url`` applies only when
    ``transport_url`` is not configured (swconfig-all uses ``fake://``)."""
    global _TRANSPORT, _URL
    messaging.set_transport_defaults(control_exchange='swconfig')
    messaging.TransportURL.parse(conf)  # registers transport_url
    # oslo.messaging's own default is 'rabbit://', never empty: "not
    # configured" means the value still comes from that option default.
    location = conf.get_location('transport_url').location
    configured = location is not cfg.Locations.opt_default
    url = conf.transport_url if configured or not default_url else default_url
    _URL = messaging.TransportURL.parse(conf, url)
    _TRANSPORT = messaging.get_rpc_transport(
        conf, url=url, allowed_remote_exmods=ALLOWED_EXMODS)


def bus_problem(timeout: float) -> str | None:
    """Why the message bus is unreachable: None when the transport is
    in-process or one of its brokers accepts a connection within
    ``timeout`` seconds (for the health check: it opens no AMQP session
    and sends nothing)."""
    if _URL is None:
        return 'messaging is not initialised'
    if _URL.transport in _SERVERLESS:
        return None
    port = _DEFAULT_PORTS.get(_URL.transport)
    problems = []
    for host in _URL.hosts or [messaging.TransportHost('localhost')]:
        address = (host.hostname or 'localhost', host.port or port)
        try:
            socket.create_connection(address, timeout=timeout).close()
        except OSError as exc:
            problems.append(f'{address[0]}:{address[1]}: {exc}')
        else:
            return None
    return '; '.join(problems)


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
               timeout: int | None = None,
               retry: int | None = None) -> messaging.RPCClient:
    """An RPC client; ``retry`` bounds the reconnections made to send
    one message (None: oslo.messaging's default, forever)."""
    return messaging.get_rpc_client(
        get_transport(), target, version_cap=version_cap, timeout=timeout,
        retry=retry, serializer=RequestContextSerializer())


def get_server(target: messaging.Target, endpoints: list,
               executor: str = 'threading') -> Any:
    kwargs = {'executor': executor} if executor != 'threading' else {}
    return messaging.get_rpc_server(
        get_transport(), target, endpoints,
        serializer=RequestContextSerializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy, **kwargs)


def is_transport_error(exc: BaseException) -> bool:
    """True for the driver's own connection errors (kombu, py-amqp,
    sockets), which oslo.messaging lets through unwrapped when it opens a
    new connection for a call."""
    if isinstance(exc, OSError):
        return True
    return any(cls.__module__.split('.')[0] in ('kombu', 'amqp')
               for cls in type(exc).__mro__)


class CallRunner:
    """Runs blocking RPC calls on a few helper threads, so that a caller
    waits at most ``deadline`` seconds whatever the message bus does.

    A call still running at its deadline is left to finish (or fail) on
    its helper thread; one not started yet is cancelled. There are at
    most ``size`` helpers per process (daemon threads: one stuck in a
    reconnection loop never holds the process at exit); when all of them
    are stuck, new calls wait in line and fail at their own deadline.
    """

    #: Seconds between the askings of ``run``'s ``interrupt``.
    INTERRUPT_EVERY = 1.0

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads = 0
        self._pending = 0  # calls queued or running

    def run(self, deadline: float, function: Callable[[], Any],
            interrupt: Callable[[], BaseException | None] | None = None
            ) -> Any:
        """``function()``'s result or exception; ServiceUnavailable when
        it has not finished after ``deadline`` seconds.

        ``interrupt`` is asked every ``INTERRUPT_EVERY`` seconds while the
        call runs (a call normally takes milliseconds, so only slow ones
        ask): an exception it returns ends the wait at once, raised to the
        caller. The API uses it to give up on a message bus that has gone
        down, instead of holding the request thread to the deadline.
        """
        future: futures.Future = futures.Future()
        self._submit(function, future)
        end = time.monotonic() + deadline
        while True:
            remaining = end - time.monotonic()
            try:
                return future.result(timeout=max(0.0, min(
                    remaining, self.INTERRUPT_EVERY if interrupt else
                    remaining)))
            except futures.TimeoutError:
                pass
            if time.monotonic() >= end:
                future.cancel()
                raise exception.ServiceUnavailable(
                    reason=f'no engine answered within {deadline:g} s (the '
                           f'message bus or every engine is down or busy); '
                           f'retry later') from None
            stop = interrupt() if interrupt else None
            if stop is not None:
                future.cancel()
                raise stop

    def _submit(self, function: Callable[[], Any],
                future: futures.Future) -> None:
        with self._lock:
            if self._pid != os.getpid():
                # Threads do not survive a fork: start afresh in a child.
                self._pid = os.getpid()
                self._queue = queue.SimpleQueue()
                self._threads = self._pending = 0
            self._pending += 1
            self._queue.put((function, future))
            if self._pending > self._threads and self._threads < self.size:
                self._threads += 1
                threading.Thread(target=self._work, args=(self._queue,),
                                 name='rpc-call', daemon=True).start()

    def _work(self, calls: queue.SimpleQueue) -> None:
        while True:
            function, future = calls.get()
            if not future.set_running_or_notify_cancel():
                self._done(calls)  # its caller gave up before it started
                continue
            try:
                result = function()
            except BaseException as exc:  # handed to the caller
                self._done(calls)
                future.set_exception(exc)
            else:
                # Free before the caller hears back: its next call finds
                # this helper idle instead of starting another.
                self._done(calls)
                future.set_result(result)

    def _done(self, calls: queue.SimpleQueue) -> None:
        with self._lock:
            if calls is self._queue:
                self._pending -= 1
