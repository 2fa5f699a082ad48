"""A chat session without a UI: the conversation, the client of the chosen profile, and the session file."""
