# Copied verbatim from https://github.com/Python-Markdown/markdown at 14c2fa92302084e4850e5323ed56721e43fbbdb9; see meta.json and ../NOTICE.
import re
import unicodedata


def slugify(value, separator, encoding='ascii'):
    """ Slugify a string, to make it URL friendly. """
    value = unicodedata.normalize('NFKD', value).encode(encoding, 'ignore')
    value = re.sub(r'[^\w\s-]', '', value.decode(encoding)).strip().lower()
    return re.sub(r'[{}\s]+'.format(separator), separator, value)


def slugify_unicode(value, separator):
    """ Slugify a string, to make it URL friendly while preserving Unicode characters. """
    return slugify(value, separator, 'utf-8')
