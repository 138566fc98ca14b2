"""The context window: :mod:`.window` counts tokens (``TokenLedger``), thins old tool results
into fragments and compacts the conversation (``ContextManager``)."""
