"""Editor and test-runner integrations: the language server and the pytest plugin."""
