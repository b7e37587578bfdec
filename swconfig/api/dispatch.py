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

"""The dispatcher: the WSGI application serving the route table
(``swconfig.api.routes``), behind only the agent app's front, which
answers an agent's repeat poll (``swconfig.api.agent.repeat_polls``).

Everything under ``/agent/`` goes to the agent app as it arrives: it is
mounted there, and matches its URLs against the same table
(``RouteTable.match``). Every other request is matched once; the match
is kept in the WSGI environ (``route_of``) and the request goes to the
application the route names. A URL that matches nothing (or is not valid
UTF-8, or holds a NUL character) goes to the tenant application with its
error: a caller without a token learns nothing, not even which URLs
exist, so the error is raised after authentication (``RaiseUnmatched``).
"""

from collections.abc import Callable
from collections.abc import Mapping
import dataclasses
import typing
from typing import Any
import urllib.parse

from swconfig.common import exception
from swconfig.common import lookup_cache

#: The applications a route may name (``swconfig.api.routes`` says what
#: each one serves).
AGENT = 'agent'
AGENT_AUTHENTICATED = 'agent-authenticated'
TENANT = 'tenant'
PUBLIC = 'public'
HEALTH = 'health'
DASHBOARD = 'dashboard'
#: The applications whose routes are in the OpenAPI document.
DOCUMENTED = frozenset((AGENT, AGENT_AUTHENTICATED, TENANT, PUBLIC, HEALTH))

#: Where the match is kept in the WSGI environ for the apps behind.
MATCH_KEY = 'swconfig.route'
#: What the agent app is mounted at.
AGENT_PREFIX = '/agent/'
#: Methods that change nothing (a write makes its worker's next poll read
#: the change log: ``AgentApp.project_request_done``).
READ_METHODS = frozenset(('GET', 'HEAD', 'OPTIONS'))


@dataclasses.dataclass(frozen=True)
class Route:
    """One method of one URL template: a row of the route table."""

    template: str
    method: str
    handler: Callable
    #: The policy rule checked before the handler runs (``TENANT`` and
    #: ``AGENT_AUTHENTICATED`` routes: ``swconfig.api.access.check``).
    rule: str | None = None
    app: str = TENANT
    #: The template is a prefix: every URL under it is the route's.
    subtree: bool = False

    @property
    def segments(self) -> tuple[str, ...]:
        path = self.template.rstrip('/')
        return tuple(path[1:].split('/')) if path else ()


class Match(typing.NamedTuple):
    """A request's route. One is kept for every URL requested again
    recently (``RouteTable.match``) and shared by the requests of that
    URL: its ``args`` are read, never changed."""

    route: Route | None
    args: dict[str, str]
    #: Why nothing matched (the 400/404/405 to answer), for a miss.
    error: exception.SwconfigException | None = None

    @property
    def handler(self) -> Callable | None:
        return self.route.handler if self.route is not None else None

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
    """The routes, indexed for matching."""

    def __init__(self, routes: tuple[Route, ...],
                 matches_kept: int = MATCHES_KEPT) -> None:
        self.routes = routes
        # Method -> path -> its match: the same URLs come again and again
        # (a tenant reads a server's metadata, a client polls a
        # deployment), and a kept match costs one dict look-up.
        self._matches: dict[str, lookup_cache.RepeatLookupCache] = {}
        self._matches_kept = matches_kept
        # Templates by (first segment, number of segments), in table
        # order, each with its routes by method: a few at most.
        self._candidates: dict[tuple[str, int], list[
            tuple[_Pattern, dict[str, Route]]]] = {}
        # Subtrees by their first segment.
        self._subtrees: dict[str, Route] = {}
        by_template: dict[str, dict[str, Route]] = {}
        for route in routes:
            if route.subtree:
                self._subtrees[route.segments[0]] = route
                continue
            methods = by_template.get(route.template)
            if methods is None:
                methods = by_template[route.template] = {}
                segments = route.segments
                key = (segments[0] if segments else '', len(segments))
                self._candidates.setdefault(key, []).append(
                    (_Pattern.of(segments), methods))
            methods[route.method] = route
        self.agent_segments = frozenset(
            route.segments[0] for route in routes
            if route.app == AGENT)

    def match(self, method: str, raw_path: str) -> Match:
        """The route for ``method`` on the WSGI ``PATH_INFO`` (bytes as
        latin-1); raises the 404/405 to answer otherwise. The match of a
        URL requested again is kept for its next requests; a miss is
        not."""
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
        for pattern, methods in self._candidates.get(key, ()):
            args = pattern.bind(segments)
            if args is None:
                continue
            route = methods.get(method)
            if route is None and method == 'HEAD':
                route = methods.get('GET')
            if route is not None:
                return Match(route, args)
            allowed.extend(m for m in methods if m not in allowed)
        if allowed:
            raise exception.MethodNotAllowed(allowed=', '.join(allowed))
        subtree = self._subtrees.get(segments[0]) if segments else None
        if subtree is not None:
            return Match(subtree, {})
        raise self._not_found(path, segments)

    def _routed(self, segments: list[str]) -> bool:
        """Whether ``segments`` is a URL of the API (not the agents')."""
        key = (segments[0] if segments else '', len(segments))
        return any(
            pattern.bind(segments) is not None
            and any(route.app not in (AGENT,
                                      HEALTH)
                    for route in methods.values())
            for pattern, methods in self._candidates.get(key, ()))

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


def check_url(environ: dict) -> None:
    """400 for a path or query string that is not UTF-8 text (PEP 3333
    hands both over as bytes in latin-1 strings, the query still quoted)
    or a query string that holds a NUL character (``RouteTable`` refuses
    one in the path): PostgreSQL can neither store nor compare such
    strings, and no valid id or value has one."""
    for part, key in (('path', 'PATH_INFO'), ('query string',
                                              'QUERY_STRING')):
        raw = environ.get(key, '')
        quoted = key == 'QUERY_STRING' and '%' in raw
        if raw.isascii() and not quoted and (key == 'PATH_INFO'
                                             or '\x00' not in raw):
            continue
        try:
            data = raw.encode('latin-1')
        except UnicodeEncodeError:
            data = raw.encode()  # a server that decoded the text already
        if quoted:
            data = urllib.parse.unquote_to_bytes(data)
        if b'\x00' in data:
            raise exception.InvalidParameterValue(
                reason='NUL characters are not allowed in URLs.')
        try:
            data.decode('utf-8')
        except UnicodeDecodeError:
            raise exception.InvalidParameterValue(
                reason=f'The URL {part} is not valid UTF-8.')


class RaiseUnmatched:
    """In front of pecan, after authentication: a request that matched no
    route (or whose URL was refused) is answered its error here, raised
    to the error middleware, so pecan gets matched requests only."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        error = environ[MATCH_KEY].error
        if error is not None:
            raise error
        return self.app(environ, start_response)


def route_of(environ: dict) -> Match:
    """The request's match, for the middleware and apps behind the
    dispatcher."""
    return environ[MATCH_KEY]


class Dispatcher:
    """The agent app at ``/agent/``; everything else matched once and
    handed to the application its route names (``apps``, by
    ``Route.app``). ``after_write`` runs after every
    request that may have changed something."""

    def __init__(self, table: RouteTable, agent_app: Any,
                 apps: Mapping[str, Any],
                 after_write: Callable[[], None]) -> None:
        self.table = table
        self.agent_app = agent_app
        self.apps = apps
        self.tenant_app = apps[TENANT]
        self.after_write = after_write

    def __call__(self, environ: dict, start_response: Any) -> Any:
        path = environ.get('PATH_INFO', '')
        if path.startswith(AGENT_PREFIX):
            return self.agent_app(environ, start_response)
        method = environ['REQUEST_METHOD']
        try:
            check_url(environ)
            match = self.table.match(method, path)
        except exception.SwconfigException as exc:
            match = Match(None, {}, error=exc)
            app = self.tenant_app
        else:
            app = self.apps[match.route.app]
        environ[MATCH_KEY] = match
        if method in READ_METHODS:
            return app(environ, start_response)
        try:
            return app(environ, start_response)
        finally:
            self.after_write()
