"""Values and vocabularies that more than one stage uses, written once.

Light on purpose: the CLI imports it at start-up (tests/integrations/test_startup.py), so it imports nothing.
"""

from __future__ import annotations

from enum import StrEnum

MIB = 1024 * 1024
DEFAULT_MAX_FILE_BYTES = 10 * MIB  # --max-file-size: one input file, the lock, the metadata overlay
DEFAULT_KUBE_VERSION = "1.37"  # --kube-version: the Kubernetes schema the rendered objects are checked against
MAX_JOBS = 64  # -j/--jobs: processes at most
KUBE_VERSION_FORMS = "1.29, v1.29, 1.29+, v1.31.1+k3s1, 1.30.2-eks-abc or none"
KUBE_VERSION_PATTERN = (  # --kube-version's forms, group 1 the minor release; ECMA and Python regex alike
    r"^\s*(?:[Nn][Oo][Nn][Ee]|[Oo][Ff][Ff]|v?0{0,2}1\.([0-9]{1,3})\+?"  # none, off; 1.29, v1.29, 1.29+ (Argo CD)
    r"(?:\.[0-9]{1,6})?"  # patch
    r"(?:[-+][0-9A-Za-z][0-9A-Za-z.+_-]{0,99})?)\s*$"  # +k3s1, -eks-abc, -gke.100
)
TOOL_API_VERSION = "omerender.io/v1alpha1"  # of what omerender writes: the lock file, EffectiveRuntime, the graph
STDIN = "-"  # the input path that means standard input
YAML_SUFFIXES = (".yaml", ".yml")  # what a folder's files must end with to be read
PROJECT_URL = "https://github.com/omerender/omerender"  # = pyproject.toml's [project.urls] Homepage
DOCS_URL = PROJECT_URL + "/blob/main/docs/"  # docs/ on the forge: --help pages, SARIF's helpUri, the package metadata


class ValidationMode(StrEnum):
    """--validate: what an unknown field in an OME object is."""

    STRICT = "strict"  # an error, as the API server's strict field validation makes it
    WARN = "warn"  # a warning
    IGNORE = "ignore"  # nothing


class SyncMode(StrEnum):
    """How an InferenceService follows its runtime (spec.runtime.autoSync and spec.runtime.revision)."""

    LIVE = "live"  # autoSync true (the default): the live merged spec
    SNAPSHOT = "snapshot"  # autoSync false: the snapshot the lock holds
    REVISION = "revision"  # spec.runtime.revision: that recorded revision
