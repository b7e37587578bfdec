"""The documentation builds with warnings as errors, as
``python3 tools/dev.py docs`` builds it: a broken reference, a page left
out of every toctree, an option or policy the generated references cannot
render, or a release note reno cannot read fails the suite."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_docs_build_without_warnings(tmp_path):
    result = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q',
         '-b', 'html', str(ROOT / 'doc' / 'source'), str(tmp_path / 'html')],
        capture_output=True, text=True, timeout=600, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / 'html' / 'index.html').exists()
    assert (tmp_path / 'html' / 'admin' / 'configuration.html').exists()


def test_release_notes_lint():
    result = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / 'reno'), 'lint'],
        capture_output=True,
        text=True, timeout=300, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
