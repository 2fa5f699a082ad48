"""What the user configured: the settings (`config.toml`, `CHATTERM_*` and the built-in presets, read as
pydantic-settings sources), API keys, the profile a run answers from, and the few things remembered between runs."""
