"""Every serving check, in the order they run. A new check is a module under ``checks/`` and one line here."""

from __future__ import annotations

from omerender.verify.serving.checks import discovery, memory, pairing, parallelism, probes, served_name, shm, volumes
from omerender.verify.serving.finding import Check

CHECKS: tuple[Check, ...] = (
    volumes.CHECK,
    parallelism.CHECK,
    probes.CHECK,
    discovery.CHECK,
    pairing.CHECK,
    shm.CHECK,
    served_name.CHECK,
    memory.CHECK,
)
