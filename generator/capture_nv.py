"""Old path of ``generator.capture.nvidia`` for demo/ SPECs and demo/capture_all.sh only; delete once they use the new path."""

import sys

from generator.capture.nvidia import import_source

__all__ = ["import_source"]

if __name__ == "__main__":
    from generator.capture.__main__ import main

    sys.exit(main())
