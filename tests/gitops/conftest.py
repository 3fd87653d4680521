"""Fixtures: the llama-demo tree to change and the reference build every route must produce."""

from gitops_fixtures import reference_build, tree  # noqa: F401 - pytest fixtures
