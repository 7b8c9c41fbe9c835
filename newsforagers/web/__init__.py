"""The dashboard (``newsforagers web``): search over the documents a colony found, its latest
discoveries, and its foragers, births, deaths and efficiency, while it crawls.

A Flask application (the ``[web]`` extra), built by :func:`create_app`; it only reads the
colony store, the document index and the run directory, and imports no Scrapy. See
``docs/dashboard.md``.
"""

from newsforagers.web.app import create_app

__all__ = ["create_app"]
