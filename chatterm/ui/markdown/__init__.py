"""The incremental text views an answer and its reasoning stream into."""
