"""swconfig: a standalone, Heat-compatible software configuration service."""

from oslo_service import backend as _backend

# oslo.service picks its concurrency backend when its service module is
# first imported. swconfig runs on native threads unless a process chose
# otherwise first (swconfig.common.process reads [DEFAULT] service_backend).
_backend.register_backend_default_hook(lambda: _backend.BackendType.THREADING)
