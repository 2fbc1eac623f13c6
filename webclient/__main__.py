"""``python -m webclient``: see :mod:`webclient.run`."""

from webclient.run import main

main()
