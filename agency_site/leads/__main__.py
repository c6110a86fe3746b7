"""``python -m agency_site.leads list|retry|export|purge|find|erase``: see ``cli.py``."""

import sys

from agency_site.leads.cli import main

sys.exit(main())
