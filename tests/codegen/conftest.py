"""Fixtures for the codegen tests: run code under one executor, then restore the policy."""
import pytest

from tests.helpers.executors import executor


@pytest.fixture
def use_executor():
    return executor
