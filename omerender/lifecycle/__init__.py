"""Lifecycle: what each InferenceService renders from over time: the lock file, pins and drift
(``settle``), the effective runtime, and the diff of two builds (with ``omerender.result``, on this floor).

May import: the shared modules, the stages before it (``load`` to ``verify``) and ``omerender.result``.
"""
