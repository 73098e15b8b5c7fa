# Copied verbatim from https://github.com/mahmoud/boltons at 675afd8a9213a67f2dc114aeee5573d8a2ca1221; see meta.json and ../NOTICE.
import string


def a10n(string):
    """That thing where "internationalization" becomes "i18n", what's it
    called? Abbreviation? Oh wait, no: ``a10n``. (It's actually a form
    of `numeronym`_.)

    >>> a10n('abbreviation')
    'a10n'
    >>> a10n('internationalization')
    'i18n'
    >>> a10n('')
    ''

    .. _numeronym: http://en.wikipedia.org/wiki/Numeronym
    """
    if len(string) < 3:
        return string
    return '{}{}{}'.format(string[0], len(string[1:-1]), string[-1])
