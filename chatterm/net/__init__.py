"""Talking to providers: the endpoint a profile resolves to, the streaming client, the HTTP transport under it,
the recorder that tees every exchange into a cassette, and model lists. The only package that touches httpcore.

Importing this package imports nothing heavy: `endpoint` is needed to choose a profile, before the HTTP stack."""
