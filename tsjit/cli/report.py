"""`tsjit report`."""
HELP = "todo"
EXAMPLE = "tsjit report x"


def add_arguments(p):
    pass


def run(args):
    return 0
