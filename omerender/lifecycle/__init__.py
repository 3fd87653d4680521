"""Lifecycle: what each InferenceService renders from over time: the lock file, pins and drift (``settle``).

May import: the shared modules and the stages before it (``load`` to ``verify``).
"""
