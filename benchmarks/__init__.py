"""swconfig's benchmarks: agent polling, signal bursts and deployment
creation against the production-like setup and the embedded default.

Run ``python3 -m benchmarks.run --help`` inside the project's venv; see
``benchmarks/README.rst``.
"""
