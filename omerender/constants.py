"""Values and vocabularies that more than one stage uses, written once.

Light on purpose: the CLI imports it at start-up (tests/integrations/test_startup.py), so it imports nothing.
"""

from __future__ import annotations

from enum import StrEnum

MIB = 1024 * 1024
DEFAULT_MAX_FILE_BYTES = 10 * MIB  # --max-file-size: one input file, the lock, the metadata overlay
DEFAULT_KUBE_VERSION = "1.37"  # --kube-version: the Kubernetes schema the rendered objects are checked against
STDIN = "-"  # the input path that means standard input
YAML_SUFFIXES = (".yaml", ".yml")  # what a folder's files must end with to be read


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
