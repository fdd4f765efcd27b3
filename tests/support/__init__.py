"""What the tests share besides fixtures (those are in tests/conftest.py): paths, builders of test
inputs, Hypothesis strategies, the SDK test server and the helpers of the guard-rail tests."""
