"""Render: what OME's controller creates for an InferenceService (Deployments, LeaderWorkerSets, Knative
Services, Services, Ingresses, autoscalers ...) from a ``context.Context``.

May import: the shared modules, ``load``, ``admission``, ``resolve`` and ``selection``.
"""
