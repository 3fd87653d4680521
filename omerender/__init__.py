"""omerender: OME runtime inheritance, resolved and rendered offline."""

import os

__version__ = "0.1.0"

if os.name != "posix":  # fcntl, O_NONBLOCK, dir_fd: said once, here, rather than as an AttributeError mid-run
    raise ImportError(
        "omerender runs on POSIX systems only (Linux, macOS): it needs fcntl, non-blocking pipes and dir_fd, "
        "which Windows does not have; run it in WSL or a Linux container"
    )
