"""Handing work to other coding agents: delegates configured as ``[delegates.NAME]``, each
reached through a route (:mod:`.acp` speaks the Agent Client Protocol as a client), working
under agent-tui's rules through a :class:`~.base.DelegateHost`."""
