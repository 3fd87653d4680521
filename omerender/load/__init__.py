"""Load: find the input files, read them within the run's budget and turn every YAML document into a
located object (``Obj``); also the controller's ConfigMap, the model-metadata overlay and in-memory documents.

May import: the shared modules only (``omerender.diagnostics``, ``codes``, ``constants``, ``paths`` ...).
"""
