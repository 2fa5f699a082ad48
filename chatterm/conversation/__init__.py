"""A conversation as data: the messages sent, each answer folded from its events, and its Markdown export."""
