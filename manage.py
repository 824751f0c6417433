#!/usr/bin/env python
import os
import sys


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "replay" and (args[1] == "-" or not args[1].startswith("-")):
        # A replay needs no Django: a pure engine and a file (core/replay.py says why).
        from core.replay import main as replay

        sys.exit(replay(args[1]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
