"""Verify: what Kubernetes or the API server would refuse in the rendered objects (pod rejections, the
Kubernetes schemas, API-server-only checks) and lints over the resolved runtimes.

May import: the shared modules and the stages before it (``load`` to ``render``).
"""
