"""Resolve: index the OME objects and merge every runtime's inheritance chain (``ome.io/inherit-from``),
with where each merged value came from and each runtime's status.

May import: the shared modules, ``load`` and ``admission``.
"""
