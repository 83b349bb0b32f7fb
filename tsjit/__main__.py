"""`python -m tsjit`: the command line."""
import sys

from .cli import main

if __name__ == "__main__":     # importing it (pkgutil walks, docs tools) runs nothing
    sys.exit(main())
