"""One module per ``newsforagers`` sub-command (see :mod:`newsforagers.cli`)."""
