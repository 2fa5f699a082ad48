"""What the user configured: `config.toml` and `CHATTERM_*`, the built-in presets, API keys, the profile a run
answers from, and the few things remembered between runs."""
