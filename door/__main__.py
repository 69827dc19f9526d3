"""``python -m door`` runs the same entry point as the ``canfield-door`` script."""

import sys

from door.commands.main import main

sys.exit(main())
