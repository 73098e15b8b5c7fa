# Copied verbatim from https://github.com/pypa/packaging at 314effac7413d08926fff93f1570897a55dd07f5; see meta.json and ../NOTICE.
from __future__ import absolute_import, division, print_function


def _parse_local_version(local):
    """
    Takes a string like abc.1.twelve and turns it into ("abc", 1, "twelve").
    """
    if local is not None:
        return tuple(
            part.lower() if not part.isdigit() else int(part)
            for part in local.split(".")
        )
