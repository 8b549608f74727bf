"""``python -m graphnb``: the same command line as ``graphnb``."""

from graphnb.cli import main

raise SystemExit(main())
