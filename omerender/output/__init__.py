"""Output: a finished build turned into what is printed or written: the objects to emit, file paths,
formats and reports, and the writers that never leave the folder asked for.

May import: the shared modules, every stage up to ``forest``, ``omerender.result`` and ``omerender.pipeline``.
"""
