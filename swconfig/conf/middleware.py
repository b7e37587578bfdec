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

"""The WSGI middleware's groups: [cors], [oslo_middleware] (proxy
headers) and [healthcheck], oslo.middleware's options with swconfig's
defaults."""

from oslo_config import cfg
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware.healthcheck import opts as healthcheck_opts

#: What the /healthcheck answer checks (swconfig's plugins, see
#: swconfig.api.healthcheck); operators may add oslo.middleware's own.
HEALTHCHECK_BACKENDS = ['swconfig_database', 'swconfig_message_bus',
                        'swconfig_transports']

# What a browser client may send and read: Keystone's token headers, the
# request id, and Retry-After of a 503.
cors.set_defaults(
    allow_headers=['X-Auth-Token', 'X-Identity-Status', 'X-Roles',
                   'X-Service-Catalog', 'X-User-Id', 'X-Tenant-Id',
                   'X-OpenStack-Request-ID', 'Content-Type',
                   'Idempotency-Key'],
    expose_headers=['X-Auth-Token', 'X-Subject-Token', 'X-Service-Token',
                    'X-OpenStack-Request-ID', 'Retry-After', 'ETag'],
    allow_methods=['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD'])
cfg.set_defaults(healthcheck_opts.HEALTHCHECK_OPTS,
                 backends=HEALTHCHECK_BACKENDS)


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(cors.CORS_OPTS, group='cors')
    conf.register_opts(http_proxy_to_wsgi.OPTS, group='oslo_middleware')
    conf.register_opts(healthcheck_opts.HEALTHCHECK_OPTS, group='healthcheck')


def list_opts() -> list:
    return [('cors', cors.CORS_OPTS),
            ('oslo_middleware', http_proxy_to_wsgi.OPTS),
            ('healthcheck', healthcheck_opts.HEALTHCHECK_OPTS)]
