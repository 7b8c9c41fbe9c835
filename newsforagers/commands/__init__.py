"""One module per ``newsforagers`` sub-command (see :mod:`newsforagers.cli`); a command with
parts of its own is a package (``bench``)."""
