"""The labels, a module per page that owns them (so a page's labels are edited in one place)."""
