"""Helpers the tests share, imported as `support.<module>` (tests/ is on sys.path, as
pytest's rootdir): real peers (host_process, mcp_session, cli_runner, model_server), test
data (answer_fixtures, faq_pages, private_pages, plain_records, vector_data), model
fixtures (onnx_fixtures) and what a test does when a real part is absent (requirement).
None of them is a test: pytest collects only test_*.py."""
