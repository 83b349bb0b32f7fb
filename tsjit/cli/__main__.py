"""`python -m tsjit.cli`."""
import sys

from .app import main

if __name__ == "__main__":     # importing it (pkgutil walks, docs tools) runs nothing
    sys.exit(main())
