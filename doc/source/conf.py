"""Sphinx configuration of swconfig's documentation.

Built by ``python3 tools/dev.py docs`` (or ``tox -e docs``) with warnings
as errors. The configuration and policy references are generated from the
code by oslo.config's and oslo.policy's Sphinx extensions, the release
notes by reno's.
"""

import os
import sys

sys.path.insert(0, os.path.abspath('_exts'))

project = 'swconfig'
copyright = 'swconfig developers'
author = 'swconfig developers'

extensions = [
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
    'reno.sphinxext',
    'api_fields',
]

exclude_patterns = ['_build']
master_doc = 'index'
html_theme = 'alabaster'
html_static_path: list[str] = []
html_title = 'swconfig documentation'
pygments_style = 'sphinx'
