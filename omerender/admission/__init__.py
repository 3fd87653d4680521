"""Admission: what OME's webhooks and the API server do to an object before it is stored: the CRD
schemas (unknown fields per ``--validate``), defaults, and metadata that is ignored or refused.

May import: the shared modules and ``load``.
"""
