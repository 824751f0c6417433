"""``python -m bench``: the whole benchmark run (see ``bench.run``)."""

import sys

from bench.run import main

sys.exit(main())
