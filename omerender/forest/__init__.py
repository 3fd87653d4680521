"""Forest: the inheritance forest of a finished build (runtimes, profiles, InferenceServices), its text and
graph pictures, selections of it and the blast radius of a change.

May import: the shared modules, every stage up to ``changes``, ``omerender.result`` and ``omerender.pipeline``.
"""
