"""Helpers of the web tests: a real uvicorn server in a thread, the W3C SPARQL 1.1 protocol test
runner, and the Chromium browser driven by Playwright."""
