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

"""Serving the web dashboard (``swconfig.dashboard``) at ``/dashboard/``.

The dashboard is a single page: every URL of it that names a page (a
deep link such as ``/dashboard/deployments/{id}``) answers with the same
``index.html``, and the scripts draw the page the URL names. Its files
are answered from memory, read once per process, with an ``ETag`` so a
browser revalidates them cheaply. Nothing here needs a token: the files
are public, and every datum the pages show comes from the ``/v1`` API
with the user's own credentials.

Every answer carries a Content-Security-Policy that allows scripts,
styles and requests to this origin only (plus the Keystone URL of the
application credential sign-in, when set): the pages have no inline
script, so an injected one does not run.
"""

import functools
import hashlib
import json
import mimetypes
import re
from typing import Any
from typing import NamedTuple
import urllib.parse

from webob import etag as webob_etag

from swconfig import dashboard
from swconfig import version
from swconfig.common import exception
from swconfig.common import urls
from swconfig.conf import CONF


class Page(NamedTuple):
    """A page of the dashboard. This table is the one list of them: the
    API answers ``index.html`` at exactly these URLs, and the scripts
    read it from ``settings.json`` to know which function draws a URL and
    what the navigation bar links to."""

    #: The path segments after ``/dashboard/``, joined by ``/``; ``*`` is
    #: one non-empty segment (an id).
    path: str
    #: ``module.function``: the function of ``static/<module>.js`` that
    #: draws the page, exported and imported by ``app.js``. None for the
    #: sign-in, which ``app.js`` draws before any page needing a session.
    view: str | None
    #: The page's label in the navigation bar, if it has one.
    nav: str | None = None


#: In the order the scripts try them: ``new`` before an id.
PAGES = (
    Page('', 'configs.list'),
    Page('signin', None),
    Page('configs', 'configs.list', 'Configs'),
    Page('configs/new', 'forms.newConfig'),
    Page('configs/*', 'configs.detail'),
    Page('deployments', 'deployments.list', 'Deployments'),
    Page('deployments/new', 'forms.newDeployment'),
    Page('deployments/*', 'deployments.detail'),
    Page('servers', 'servers.list', 'Servers'),
    Page('servers/*', 'servers.detail'),
    Page('rollouts', 'rollouts.list', 'Rollouts'),
    Page('rollouts/*', 'rollouts.detail'),
)
_PAGE_SEGMENTS = tuple(tuple(page.path.split('/')) if page.path else ()
                       for page in PAGES)

STATIC = 'static'
SETTINGS = 'settings.json'
#: What a file of the static directory may be called: no dot files, no
#: sub-directories.
_FILE_NAME = re.compile(r'^[a-z0-9][a-z0-9_-]*\.(?:js|css|svg|html)$')
_TYPES = {'.js': 'text/javascript', '.css': 'text/css',
          '.svg': 'image/svg+xml', '.html': 'text/html'}
#: The placeholder of index.html replaced by the dashboard's own URL, so
#: relative links work behind a proxy that adds a path prefix.
_BASE = '__DASHBOARD_BASE__'


class _File:
    __slots__ = ('body', 'content_type', 'etag')

    def __init__(self, body: bytes, content_type: str) -> None:
        self.body = body
        self.content_type = content_type
        self.etag = '"%s"' % hashlib.sha256(body).hexdigest()[:32]


@functools.cache
def _static_files() -> dict[str, _File]:
    """Every file of the static directory by name, read once (a name
    asked for that is not one is not remembered)."""
    found = {}
    for path in dashboard.STATIC_DIR.iterdir():
        if path.is_file() and _FILE_NAME.match(path.name):
            content_type = (_TYPES.get(path.suffix)
                            or mimetypes.guess_type(path.name)[0])
            found[path.name] = _File(path.read_bytes(),
                                     f'{content_type}; charset=utf-8')
    return found


@functools.lru_cache(maxsize=8)
def _index(base: str) -> _File:
    """index.html with its base URL (the dashboard's path, as the client
    reached it)."""
    text = dashboard.INDEX.read_text(encoding='utf-8')
    quoted = urllib.parse.quote(base, safe='/')
    return _File(text.replace(_BASE, quoted).encode('utf-8'),
                 'text/html; charset=utf-8')


def content_security_policy(keystone_url: str | None) -> str:
    """Scripts, styles and requests from this origin only; the Keystone
    sign-in URL's origin may be connected to as well."""
    connect = "'self'"
    if keystone_url:
        parts = urllib.parse.urlsplit(keystone_url)
        connect += f' {parts.scheme}://{parts.netloc}'
    return ("default-src 'none'; script-src 'self'; style-src 'self'; "
            f"img-src 'self' data:; connect-src {connect}; "
            "base-uri 'self'; form-action 'self'; frame-ancestors 'none'")


def is_dashboard_path(path: str) -> bool:
    """Whether the WSGI ``PATH_INFO`` is the dashboard's."""
    return path == urls.DASHBOARD or path.startswith(urls.DASHBOARD + '/')


def _is_page(segments: list[str]) -> bool:
    if not all(segments):
        return False
    return any(len(page) == len(segments) and all(
        expected in ('*', segment)
        for expected, segment in zip(page, segments, strict=True))
        for page in _PAGE_SEGMENTS)


class DashboardApp:
    """The WSGI app of ``/dashboard``: pages, files and settings."""

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if not CONF.api.dashboard:
            raise exception.RouteNotFound(
                'The dashboard is off ([api] dashboard = false).')
        method = environ['REQUEST_METHOD']
        if method not in ('GET', 'HEAD'):
            raise exception.MethodNotAllowed(allowed='GET, HEAD')
        path = environ.get('PATH_INFO', '')
        # Where a proxy mounted the API; never "//host", which a page
        # would read as another origin.
        prefix = environ.get('SCRIPT_NAME', '').strip('/')
        prefix = f'/{prefix}' if prefix else ''
        if path == urls.DASHBOARD:
            query = environ.get('QUERY_STRING')
            location = f'{prefix}{urls.DASHBOARD}/' + (
                f'?{query}' if query else '')
            start_response('301 Moved Permanently',
                           [('Location', location),
                            ('Content-Length', '0'), *self._headers()])
            return [b'']
        segments = path[len(urls.DASHBOARD) + 1:].split('/')
        if segments[-1] == '':
            segments.pop()  # one trailing slash is the same page
        if segments == [SETTINGS]:
            return self._settings(environ, start_response)
        if len(segments) == 2 and segments[0] == STATIC:
            found = _static_files().get(segments[1])
            if found is None:
                raise exception.RouteNotFound(
                    f'The dashboard has no file {segments[1][:100]!r}.')
            return self._answer(found, environ, start_response)
        if _is_page(segments):
            return self._answer(_index(f'{prefix}{urls.DASHBOARD}/'),
                                environ, start_response)
        raise exception.RouteNotFound(
            f'The dashboard has no page {path[:100]}.')

    @staticmethod
    def _headers() -> list[tuple[str, str]]:
        return [('Content-Security-Policy',
                 content_security_policy(CONF.api.dashboard_keystone_url)),
                ('X-Content-Type-Options', 'nosniff'),
                ('Referrer-Policy', 'no-referrer'),
                ('X-Frame-Options', 'DENY')]

    def _answer(self, found: _File, environ: dict,
                start_response: Any) -> Any:
        # no-cache: the browser keeps the file but asks each time, and a
        # matching ETag answers 304 without a body (the file names carry
        # no version, so an upgrade is seen at once).
        headers = [('ETag', found.etag), ('Cache-Control', 'no-cache'),
                   *self._headers()]
        header = environ.get('HTTP_IF_NONE_MATCH')
        if header and found.etag[1:-1] in webob_etag.ETagMatcher.parse(
                header, strong=False):
            start_response('304 Not Modified', headers)
            return [b'']
        headers += [('Content-Type', found.content_type),
                    ('Content-Length', str(len(found.body)))]
        start_response('200 OK', headers)
        return [b''] if environ['REQUEST_METHOD'] == 'HEAD' else [
            found.body]

    def _settings(self, environ: dict, start_response: Any) -> Any:
        """What the sign-in page needs to know before it has a token, and
        the pages."""
        body = json.dumps({
            'auth_strategy': CONF.auth_strategy,
            'keystone_url': CONF.api.dashboard_keystone_url,
            'pages': [page._asdict() for page in PAGES],
            'version': version.version_string(),
        }).encode('utf-8')
        start_response('200 OK', [
            ('Content-Type', 'application/json'),
            ('Content-Length', str(len(body))),
            ('Cache-Control', 'no-store'), *self._headers()])
        return [b''] if environ['REQUEST_METHOD'] == 'HEAD' else [body]
