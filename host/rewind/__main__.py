"""`python -m rewind` is the `rewind` command (the host launcher uses this form)."""

import sys

from .cli import main

sys.exit(main())
