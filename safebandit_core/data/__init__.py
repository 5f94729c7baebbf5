"""What every data family shares: the replay of a fitted dose model, its fit, the embedders and the data memo.

A data family (the battery experiment, a user's log) prepares its data once (read, embed, fit) and then
runs like any other family. The parts they have in common sit here, so neither family imports the other:

- :mod:`.replay`: the fitted environment (:class:`~.replay.FittedEnv`) and the one replay family over it;
- :mod:`.ridge`: the one fit (ridge fits of R/g(α) and C/g(α));
- :mod:`.embed`: JSON windows and their embedders (feature hashing, sentence-transformers);
- :mod:`.cache`: the one memo of prepared data (:data:`~.cache.MEMO`), keyed by content.
"""
