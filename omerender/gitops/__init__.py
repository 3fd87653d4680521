"""GitOps: the routes in from Argo CD (config management plugin) and KRM functions (kpt, kustomize),
each turned into a build and its output.

May import: every stage up to ``factor``; not ``cli``.
"""
