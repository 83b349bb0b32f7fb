"""`python -m tsjit.cli`."""
import sys

from .main import main

sys.exit(main())
