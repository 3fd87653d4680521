"""Changes: two builds compared, and what a command about a runtime over time decides after its build: the diff
(``diff``, field by field in ``fielddiff``), its two sides (``sides``, ``gitref`` for ``--against``), the effective
runtime of one InferenceService (``effective``) and ``lock``'s verdict (``relock``).

May import: the shared modules, every stage up to ``lifecycle``, ``omerender.result`` and ``omerender.pipeline``.
"""
