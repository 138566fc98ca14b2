"""How an agent is put together, the same for every front end (the workbench, ``-p``, ACP,
the autonomous coach): :mod:`.assembly` opens one (:func:`~.assembly.open_agent`),
:mod:`.outside_tools` lends it the project's discovered tools and MCP servers, and
:mod:`.prompt_resolution` turns what the person typed into what the model gets.
"""
