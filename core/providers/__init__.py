"""Model providers: the Provider protocol and its litellm implementation."""
