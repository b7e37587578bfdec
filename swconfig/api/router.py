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

"""The route table: every URL the API answers, with its methods and
handlers, in one place (the templates are spelled in
``swconfig.common.urls``). The OpenAPI document is generated from it
(``openapi_document``), from what each handler declares.

``Router`` is the outermost WSGI app. It matches a request once and hands
the match on by the route's access:

* ``AGENT``: the agents' signed URLs, served by ``swconfig.api.agent``
  without Keystone or any other middleware (the hot path);
* ``PUBLIC``: the version and OpenAPI documents, without a token;
* ``HEALTH``: the health check, without a token (``swconfig.api.
  healthcheck``);
* ``PROJECT``: everything under ``/v1/{tenant_id}``, through
  authentication and the rate limiter to ``ProjectDispatch``.

``/dashboard`` and everything under it is not in the table: its pages
and files (``swconfig.api.dashboard``) go to the dashboard app, without
a token (the pages call the ``/v1`` URLs with the user's).

``ProjectDispatch`` runs the route's ``cached`` handler for the method,
when it has one (the tenant metadata view, answered from the agents'
metadata cache), and pecan otherwise or when that handler declines. pecan
calls the matched handler with the URL's arguments (see ``RoutedPecan``)
instead of walking controller objects.

An unknown URL answers 404, a method a URL does not serve 405 with
``Allow``: at once under ``/agent/``, elsewhere after authentication (as
with the middleware in front of the routes in Heat).
"""

from collections.abc import Callable
import dataclasses
import functools
import json
import typing
from typing import Any
import urllib.parse

import pecan

from swconfig.api import dashboard
from swconfig.api import healthcheck
from swconfig.api.agent import endpoints as agent
from swconfig.api.agent import metadata_cache
from swconfig.api.controllers.v1 import deployment_actions
from swconfig.api.controllers.v1 import rollouts
from swconfig.api.controllers.v1 import server_groups
from swconfig.api.controllers.v1 import servers
from swconfig.api.controllers.v1 import software_configs as configs
from swconfig.api.controllers.v1 import software_deployments as deployments
from swconfig.api.controllers.v1 import validate
from swconfig.api.controllers.v1 import versions
from swconfig.api.middleware import fault
from swconfig.api.openapi import document as openapi
from swconfig.api.openapi import spec
from swconfig.common import exception
from swconfig.common import lookup_cache
from swconfig.common import urls

AGENT = 'agent'
PUBLIC = 'public'
PROJECT = 'project'
HEALTH = 'health'
#: Where the match is kept in the WSGI environ for the apps behind.
MATCH_KEY = 'swconfig.route'
#: Methods that change nothing (a write makes its worker's next poll read
#: the change log: ``AgentApp.project_request_done``).
READ_METHODS = frozenset(('GET', 'HEAD', 'OPTIONS'))


@dataclasses.dataclass(frozen=True)
class Route:
    """One URL template: its handlers by method, and how requests reach
    them (``access``)."""

    template: str
    methods: dict[str, Callable]
    access: str = PROJECT
    #: Methods of a ``PROJECT`` route with a handler that answers from the
    #: agents' metadata cache before pecan (``ProjectDispatch``): it
    #: returns the answer, or None to leave the request to ``methods``'.
    cached: dict[str, Callable] = dataclasses.field(default_factory=dict)

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(_segments(self.template))


@pecan.expose(content_type='application/json')
@spec.operation('getOpenAPIDocument', 'This document.', tag='versions',
                responses={'200': {'description': 'The OpenAPI document.',
                                   'content': {spec.JSON: {'schema': {
                                       'type': 'object'}}}}})
def openapi_json() -> bytes:
    """``GET /v1/openapi.json``: public documentation, no project and no
    policy. Here, with the table it is generated from, rather than with
    the controllers the table imports."""
    return openapi_document_json()


ROUTES: tuple[Route, ...] = (
    Route(urls.ROOT, {'GET': versions.root}, PUBLIC),
    Route(urls.V1, {'GET': versions.v1}, PUBLIC),
    Route(urls.OPENAPI, {'GET': openapi_json}, PUBLIC),
    Route(urls.HEALTHCHECK,
          {'GET': healthcheck.served_by_the_health_app,
           'HEAD': healthcheck.served_by_the_health_app}, HEALTH),
    Route(urls.CONFIGS, {'GET': configs.index, 'POST': configs.create}),
    Route(urls.CONFIG, {'GET': configs.show, 'DELETE': configs.delete}),
    Route(urls.DEPLOYMENTS, {'GET': deployments.index,
                             'POST': deployments.create}),
    # Before DEPLOYMENT_SIGNAL: /metadata/signal is a server named signal.
    Route(urls.SERVER_METADATA, {'GET': deployments.server_metadata},
          cached={'GET': deployments.server_metadata_from_cache}),
    Route(urls.DEPLOYMENT, {'GET': deployments.show,
                            'PUT': deployments.update,
                            'DELETE': deployments.delete}),
    Route(urls.DEPLOYMENT_SIGNAL, {'POST': deployments.signal}),
    Route(urls.DEPLOYMENT_EVENTS, {'GET': deployments.events}),
    Route(urls.DEPLOYMENT_ACTIONS, {'POST': deployment_actions.run_action}),
    Route(urls.DEPLOYMENT_TRIGGER, {'POST': deployment_actions.trigger}),
    Route(urls.DEPLOYMENT_CANCEL, {'POST': deployment_actions.cancel}),
    Route(urls.DEPLOYMENT_OUTPUT, {'GET': deployment_actions.output}),
    Route(urls.VALIDATE, {'POST': validate.validate_template}),
    Route(urls.SERVERS, {'GET': servers.index, 'POST': servers.register}),
    Route(urls.SERVER, {'GET': servers.show, 'PUT': servers.update,
                        'DELETE': servers.unregister}),
    Route(urls.SERVER_AGENT_CONFIG, {'GET': servers.agent_config}),
    Route(urls.SERVER_GROUPS, {'GET': server_groups.index,
                               'POST': server_groups.create}),
    Route(urls.SERVER_GROUP, {'GET': server_groups.show,
                              'PUT': server_groups.update,
                              'DELETE': server_groups.delete}),
    Route(urls.ROLLOUTS, {'GET': rollouts.index, 'POST': rollouts.create}),
    Route(urls.ROLLOUT, {'GET': rollouts.show}),
    Route(urls.ROLLOUT_TARGETS, {'GET': rollouts.targets}),
    Route(urls.ROLLOUT_EVENTS, {'GET': rollouts.events}),
    Route(urls.ROLLOUT_CANCEL, {'POST': rollouts.cancel}),
    Route(urls.AGENT_METADATA, {'GET': agent.AgentApp.metadata,
                                'HEAD': agent.AgentApp.metadata}, AGENT),
    Route(urls.AGENT_SIGNAL, {'PUT': agent.AgentApp.signal,
                              'POST': agent.AgentApp.signal}, AGENT),
)


@functools.cache
def openapi_document() -> dict:
    """The OpenAPI document of ``ROUTES``, built once per process. Do not
    mutate it: it shares its request schemas with the validators."""
    return openapi.build(ROUTES)


@functools.cache
def openapi_document_json() -> bytes:
    """The document serialised once, as served: it never changes at run
    time."""
    return json.dumps(openapi_document(), sort_keys=True).encode('utf-8')


class Match(typing.NamedTuple):
    """A request's route. One is kept for every URL requested again
    recently (``RouteTable.match``) and shared by the requests of that
    URL: its ``args`` are read, never changed."""

    route: Route | None
    handler: Callable | None
    args: dict[str, str]
    #: Why nothing matched (the 400/404/405 to answer), for a miss.
    error: exception.SwconfigException | None = None

    @property
    def handler_args(self) -> list[str]:
        """The URL's arguments a handler takes, in template order (the
        project is the context's business, not the handler's)."""
        return [value for name, value in self.args.items()
                if name != 'tenant_id']


def _segments(path: str) -> list[str]:
    """``/v1/p/x/`` -> ``['v1', 'p', 'x']``: one trailing slash is the
    same URL; ``/`` has no segments."""
    if path.endswith('/'):
        path = path[:-1]
    return path[1:].split('/') if path else []


class _Pattern(typing.NamedTuple):
    """A template's segments: the literal ones by position, and the
    placeholders' names by position."""

    literals: tuple[tuple[int, str], ...]
    params: tuple[tuple[int, str], ...]

    @classmethod
    def of(cls, segments: tuple[str, ...]) -> '_Pattern':
        return cls(
            tuple((i, s) for i, s in enumerate(segments) if s[0] != '{'),
            tuple((i, s[1:-1]) for i, s in enumerate(segments)
                  if s[0] == '{'))

    def bind(self, segments: list[str]) -> dict[str, str] | None:
        """The placeholders' values if ``segments`` (as many as the
        template has) fit, else None; a placeholder takes one non-empty
        segment."""
        for index, literal in self.literals:
            if segments[index] != literal:
                return None
        args = {}
        for index, name in self.params:
            value = segments[index]
            if not value:
                return None
            args[name] = value
        return args


#: URLs whose match ``RouteTable`` keeps, per method, each from its
#: second request (``lookup_cache.RepeatLookupCache``); all are forgotten when
#: it is reached, and kept again as requested.
MATCHES_KEPT = 4096


class RouteTable:
    def __init__(self, routes: tuple[Route, ...] = ROUTES,
                 matches_kept: int = MATCHES_KEPT) -> None:
        self.routes = routes
        # Method -> path -> its match: the same URLs come again and again
        # (a tenant reads a server's metadata, a client polls a
        # deployment), and a kept match costs one dict look-up.
        self._matches: dict[str, lookup_cache.RepeatLookupCache] = {}
        self._matches_kept = matches_kept
        # Candidates by (first segment, number of segments), in table
        # order: a few at most.
        self._candidates: dict[tuple[str, int],
                               list[tuple[Route, _Pattern]]] = {}
        for route in routes:
            segments = route.segments
            key = (segments[0] if segments else '', len(segments))
            self._candidates.setdefault(key, []).append(
                (route, _Pattern.of(segments)))
        self.agent_segments = frozenset(
            route.segments[0] for route in routes if route.access == AGENT)

    def match(self, method: str, raw_path: str) -> Match:
        """The route for ``method`` on the WSGI ``PATH_INFO`` (bytes as
        latin-1); raises the 400/404/405 to answer otherwise. The match
        of a URL requested again is kept for its next requests; a miss
        is not."""
        kept = self._matches.get(method)
        found = kept.get(raw_path) if kept is not None else None
        if found is None:
            found = self._match(method, raw_path)
            if kept is None:  # only methods some route serves get here
                kept = self._matches.setdefault(
                    method, lookup_cache.RepeatLookupCache(self._matches_kept))
            kept.keep(raw_path, found)
        return found

    def _match(self, method: str, raw_path: str) -> Match:
        path = raw_path
        if not path.isascii():
            try:
                path = raw_path.encode('latin-1').decode('utf-8')
            except (UnicodeEncodeError, UnicodeDecodeError):
                raise exception.RouteNotFound('The URL is not valid UTF-8.')
        if '\x00' in path:
            raise exception.InvalidParameterValue(
                reason='NUL characters are not allowed in URLs.')
        segments = _segments(path)
        key = (segments[0] if segments else '', len(segments))
        allowed: list[str] = []
        for route, pattern in self._candidates.get(key, ()):
            args = pattern.bind(segments)
            if args is None:
                continue
            handler = route.methods.get(method)
            if handler is None and method == 'HEAD':
                handler = route.methods.get('GET')
            if handler is not None:
                return Match(route, handler, args)
            allowed.extend(m for m in route.methods if m not in allowed)
        if allowed:
            raise exception.MethodNotAllowed(allowed=', '.join(allowed))
        raise self._not_found(path, segments)

    def _routed(self, segments: list[str]) -> bool:
        """Whether ``segments`` is a URL of the API (not the agents')."""
        key = (segments[0] if segments else '', len(segments))
        return any(route.access in (PUBLIC, PROJECT)
                   and pattern.bind(segments) is not None
                   for route, pattern in self._candidates.get(key, ()))

    def _not_found(self, path: str,
                   segments: list[str]) -> exception.RouteNotFound:
        """404 naming the form of the API's URLs and, for one that lacks
        ``/v1`` or the project (``/software_configs``,
        ``/v1/software_configs``, ``/demo/servers``), the URL it
        probably meant; a bare 404 for an agent URL."""
        if segments and segments[0] in self.agent_segments:
            return exception.RouteNotFound()
        shown = path if len(path) <= 100 else path[:100] + '...'
        if segments[:1] == ['v1']:
            guesses = [['v1', '<project>', *segments[1:]]]
        else:
            guesses = [['v1', *segments], ['v1', '<project>', *segments]]
        for guess in guesses:
            if self._routed(guess):
                return exception.RouteNotFound(
                    f'No URL {shown}; did you mean /{"/".join(guess)}? The '
                    f"API's URLs start with /v1/, a project's with "
                    f'/v1/<project>/.')
        return exception.RouteNotFound(
            f"No URL {shown}. The API's URLs start with /v1/, a project's "
            f'with /v1/<project>/ (such as /v1/<project>/software_configs); '
            f'GET /v1/openapi.json lists them all.')


#: The agents' poll URL around its server id: checked before the table.
_POLL_PREFIX, _, _POLL_SUFFIX = urls.AGENT_METADATA.partition('{server_id}')
_POLL_METHODS = frozenset(('GET', 'HEAD'))
_POLL_START = len(_POLL_PREFIX)
_POLL_END = -len(_POLL_SUFFIX)


def poll_server_id(method: str, path: str) -> str | None:
    """The server id of an agent's poll (``GET|HEAD`` of
    ``urls.AGENT_METADATA`` in its plain form: ASCII, no trailing slash),
    or None to leave the request to the route table, which matches it the
    same way. A poll of a URL polled before does not get here
    (``swconfig.api.agent.repeat_polls``); the first one of each is
    recognised with a few string tests before anything else."""
    if (method in _POLL_METHODS and path.startswith(_POLL_PREFIX)
            and path.endswith(_POLL_SUFFIX) and path.isascii()):
        server_id = path[_POLL_START:_POLL_END]
        if server_id and '/' not in server_id and '\x00' not in server_id:
            return server_id
    return None


class Router:
    """The outermost WSGI app: match once, then hand on by access."""

    def __init__(self, table: RouteTable, agent_app: agent.AgentApp,
                 public_app: Any, project_app: Any,
                 health_app: Any = None, dashboard_app: Any = None) -> None:
        self.table = table
        self.agent_app = agent_app
        self.public_app = public_app
        self.project_app = project_app
        self.health_app = health_app
        self.dashboard_app = dashboard_app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        path = environ.get('PATH_INFO', '')
        # A prefix test first: most requests here are neither, and each
        # matcher is a call (they test the prefix again, for their other
        # callers).
        if path.startswith(_POLL_PREFIX):
            server_id = poll_server_id(environ['REQUEST_METHOD'], path)
            if server_id is not None:
                return self.agent_app.poll(server_id, environ,
                                           start_response)
        elif (self.dashboard_app is not None
                and path.startswith(urls.DASHBOARD)
                and dashboard.is_dashboard_path(path)):
            return self.dashboard_app(environ, start_response)
        try:
            match = self.table.match(environ['REQUEST_METHOD'], path)
        except exception.SwconfigException as exc:
            if path[1:].split('/', 1)[0] in self.table.agent_segments:
                # Agents get the error at once: they have no token.
                return fault.render(exc, environ, start_response)
            # Anywhere else, a caller without a token learns nothing, not
            # even which URLs exist: authentication first, then the error.
            match = Match(None, None, {}, error=exc)
        else:
            if match.route.access == AGENT:
                return self.agent_app.serve(match.handler, match.args,
                                            environ, start_response)
        environ[MATCH_KEY] = match
        access = match.route.access if match.route is not None else None
        if access == PUBLIC:
            return self.public_app(environ, start_response)
        if access == HEALTH and self.health_app is not None:
            return self.health_app(environ, start_response)
        if environ['REQUEST_METHOD'] in READ_METHODS:
            # A read changes nothing: the next poll need not look.
            return self.project_app(environ, start_response)
        try:
            return self.project_app(environ, start_response)
        finally:
            self.agent_app.project_request_done()


class ProjectDispatch:
    """The end of the ``PROJECT`` chain, after authentication and the rate
    limiter: the route's ``cached`` handler for the method, if it has one
    and answers, else ``pecan_app``. Errors are raised to the chain's
    error middleware, as pecan's are."""

    def __init__(self, pecan_app: Any,
                 cache: metadata_cache.MetadataCache) -> None:
        self.pecan_app = pecan_app
        self.cache = cache

    def __call__(self, environ: dict, start_response: Any) -> Any:
        match = environ[MATCH_KEY]  # route_of(environ), without its call
        if match.route is not None and match.route.cached:
            handler = match.route.cached.get(environ['REQUEST_METHOD'])
            if handler is not None:
                answer = handler(self.cache, environ, **match.args)
                if answer is not None:
                    status, headers, content = answer
                    start_response(status, headers)
                    return [content]
        return self.pecan_app(environ, start_response)


def route_of(environ: dict) -> Match:
    """The request's match, for the middleware and apps behind Router."""
    return environ[MATCH_KEY]


def check_url_is_utf8(environ: dict) -> None:
    """400 for a path or query string that is not UTF-8 text (PEP 3333
    hands both over as bytes in latin-1 strings, the query still quoted).
    """
    for part, key in (('path', 'PATH_INFO'), ('query string',
                                              'QUERY_STRING')):
        raw = environ.get(key, '')
        if raw.isascii() and (key == 'PATH_INFO' or '%' not in raw):
            continue
        try:
            data = raw.encode('latin-1')
        except UnicodeEncodeError:
            continue  # a server that decoded the text already
        if key == 'QUERY_STRING':
            data = urllib.parse.unquote_to_bytes(data)
        try:
            data.decode('utf-8')
        except UnicodeDecodeError:
            raise exception.InvalidParameterValue(
                reason=f'The URL {part} is not valid UTF-8.')


class RoutedPecan(pecan.Pecan):
    """pecan, with the route table instead of its object-dispatch walk:
    the matched handler is called with the URL's arguments."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(object(), **kwargs)

    def __call__(self, environ: dict, start_response: Any) -> Any:
        # pecan decodes the URL before any hook runs, and answers text
        # that is not UTF-8 with a bare 400 and a logged traceback.
        check_url_is_utf8(environ)
        return super().__call__(environ, start_response)

    def route(self, req: Any, node: Any, path: str) -> tuple:
        match = route_of(req.environ)
        if match.error is not None:
            raise match.error
        return match.handler, match.handler_args
