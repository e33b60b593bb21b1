"""python -m trickref: the same as the trickref command."""

from trickref.ui.cli import main

raise SystemExit(main())
