"""``python -m jaxtypes``: the command line (see ``jaxtypes.cli``)."""

import sys

from jaxtypes.cli import main

if __name__ == "__main__":
    sys.exit(main())
