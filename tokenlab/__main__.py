"""Allow `python -m tokenlab`."""

from tokenlab.entry import main

main()
