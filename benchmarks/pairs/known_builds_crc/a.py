import zlib

RELEASES = ("alpha", "beta", "gamma")
KNOWN_BUILDS = frozenset(zlib.crc32(name.encode()) & 0xFFFFF for name in RELEASES)


def is_known_build(build_id: int) -> bool:
    return build_id in KNOWN_BUILDS
