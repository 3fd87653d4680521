"""omerender: OME runtime inheritance, resolved and rendered offline."""

__version__ = "0.1.0"
