"""The installed swconfig version, as pbr computed it."""

import pbr.version

version_info = pbr.version.VersionInfo('swconfig')


def version_string() -> str:
    try:
        return version_info.version_string()
    except Exception:  # running from a tree that was never installed
        return 'unknown'
