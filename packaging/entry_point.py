"""The frozen executable's script: `roundtable [args]` in the bundle is `roundtable [args]`.

Every argument goes to `roundtable_desktop.cli.main.main()`, so the bundle opens the window with
no arguments and runs `run`, `export`, `sessions`, `serve-mcp` and `--self-test` like the
installed command. Must stay this small: everything else belongs to the package.
"""

import sys

from roundtable_desktop.cli.main import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
