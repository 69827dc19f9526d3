"""``python -m door`` runs the same entry point as the ``canfield-door`` script."""

import sys

from door.cli import main

sys.exit(main())
