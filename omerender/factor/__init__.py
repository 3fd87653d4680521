"""Factor: the inverse of inheritance: find what sibling runtimes share, move it into profiles, rewrite
the runtimes as children, and prove that every rendered object stays the same.

May import: every stage up to ``output``, ``omerender.result`` and ``omerender.pipeline``.
"""
