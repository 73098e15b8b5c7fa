# Copied verbatim from https://github.com/python-humanize/humanize at 2f179b6b5c1e2eb88240e3ec42ff9edeb946ea65; see meta.json and ../NOTICE.
import gettext as gettext_module
from threading import local


_TRANSLATIONS = {None: gettext_module.NullTranslations()}


_CURRENT = local()


def get_translation():
    try:
        return _TRANSLATIONS[_CURRENT.locale]
    except (AttributeError, KeyError):
        return _TRANSLATIONS[None]


def gettext(message):
    return get_translation().gettext(message)


_ = gettext


def apnumber(value):
    """For numbers 0-9, returns the number spelled out. Otherwise, returns the
    number. This follows Associated Press style.  This always returns a string
    unless the value was not int-able, unlike the Django filter."""
    try:
        value = int(value)
    except (TypeError, ValueError):
        return value
    if not 0 <= value < 10:
        return str(value)
    return (
        _("zero"),
        _("one"),
        _("two"),
        _("three"),
        _("four"),
        _("five"),
        _("six"),
        _("seven"),
        _("eight"),
        _("nine"),
    )[value]
