"""The deployment versions long polls watch. Part of the DB facade
(``swconfig.db.api``)."""

import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader

_DEPLOYMENT = models.SoftwareDeployment.__table__


@reader
def software_deployment_versions(context: RequestContext,
                                 deployment_ids: list[str]
                                 ) -> dict[str, int]:
    """The ``version`` of each deployment that still exists: one
    primary-key query for every long poll of an API worker."""
    return dict(context.session.connection().execute(
        sa.select(_DEPLOYMENT.c.id, _DEPLOYMENT.c.version)
        .where(_DEPLOYMENT.c.id.in_(deployment_ids))).all())
