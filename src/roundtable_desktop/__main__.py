"""`python -m roundtable_desktop`: the same as the `roundtable` command."""

import sys

from roundtable_desktop.cli.main import main

sys.exit(main())
