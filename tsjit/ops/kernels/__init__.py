"""Kernel modules, one theme each; every module here is imported by ops.library."""
