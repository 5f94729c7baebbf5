"""Each model family's page spec (:class:`safebandit_ui.model_page.Spec`): what its page shows beyond its controls.

A family's app entry names its spec (``spec`` of :class:`safebandit_ui.registry.Entry`);
:func:`safebandit_ui.model_page.render` draws it.
"""
