"""The views of the site's pages: each draws one kind of page content. ``routes.py`` gives
every page of the table (``content/pages.py``) the view of its kind."""
