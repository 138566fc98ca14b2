"""The tools the agent can call, on a two-phase build/execute framework."""
