"""Fixtures for the codegen tests: run code under one executor, then restore the policy."""
import contextlib

import pytest

import tsjit


@contextlib.contextmanager
def executor(mode: str, threshold: int | None = None):
    """Run the body with `mode` forced (functions start over), then restore."""
    old_mode, old_threshold = tsjit.jit.get_executor()
    tsjit.jit.set_executor(mode, threshold)
    try:
        yield
    finally:
        tsjit.jit.set_executor(old_mode, old_threshold)


@pytest.fixture
def use_executor():
    return executor
