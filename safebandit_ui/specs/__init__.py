"""Each model family's page spec (:class:`safebandit_ui.model_page.Spec`): what its page shows beyond its controls.

A family's registry entry names its spec (``Family.page_spec``); :func:`safebandit_ui.model_page.render` draws it.
"""
