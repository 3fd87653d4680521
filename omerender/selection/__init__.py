"""Selection: the model and runtime an InferenceService names or OME picks for it (named-runtime checks,
auto-selection and its scoring), returned as a ``Lookup`` with its findings.

May import: the shared modules, ``load``, ``admission`` and ``resolve``.
"""
