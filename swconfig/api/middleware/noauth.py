"""Authentication for the embedded default: no Keystone, projects apart.

The caller becomes a member of the project named in the URL
(``/v1/{tenant_id}/...``), with the roles ``reader,member`` unless the
request sends ``X-Roles``. Unlike Heat's noauth, nobody is made admin
implicitly, so projects stay isolated. This is for development only.
"""

from typing import Any

from swconfig.api import router

DEFAULT_ROLES = 'reader,member'


class NoAuthMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        project_id = router.route_of(environ).args.get('tenant_id', '')
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed'
        environ.setdefault('HTTP_X_USER_ID', 'noauth')
        environ['HTTP_X_PROJECT_ID'] = project_id
        environ.setdefault('HTTP_X_ROLES', DEFAULT_ROLES)
        return self.app(environ, start_response)
