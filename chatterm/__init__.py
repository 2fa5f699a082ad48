"""chatterm: a terminal chat app for large language models."""

__version__ = "0.1.0"
