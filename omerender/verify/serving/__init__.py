"""Serving-aware checks: what the rendered engine arguments, GPUs, probes, volumes and selectors will do once OME
creates the workloads (docs/serving-checks.md).

- ``launch``: what a container starts, read from its rendered ``command`` and ``args`` as the engine's parser will
  (``engines``: the programs known, their options and routes, from the engines' sources);
- ``view``: one InferenceService's rendered pods, each with its launch, and where each value was set;
- ``checks/``: one module per check, each a ``finding.Check`` listed in ``registry``;
- ``silencing``: ignore-check annotations, ``.omerender.yaml`` exemptions and severities, ``serving-checks``;
- ``checking.check``: the entry point ``pipeline.render_isvc`` calls beside ``verify.rejections``.

A check that needs the model's facts (heads, parameter count) reads ``ServingView.model``; one that needs where a
pod runs reads ``Pod.accelerator`` and the pod's node selector and affinity.
"""
