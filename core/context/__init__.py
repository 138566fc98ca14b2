"""The context window: :mod:`.window` counts tokens (``TokenLedger``), thins old tool results
into fragments and compacts the conversation (``ContextManager``); :mod:`.fragments` keeps
the thinned-out results (``FragmentStore``) for the ``rehydrate`` tool."""
