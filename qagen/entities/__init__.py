"""Entities in text: phone numbers, e-mail addresses and URLs, found and normalised.

Factoid questions are built on these, and the filter stage back-checks factoids with
them, so the same text always gives the same entities.

- Phone numbers are matched and normalised to E.164 with ``phonenumbers``; dates, times,
  version numbers, page ranges, postcodes, decimals, runs of table numbers and bare digit
  runs (order or serial numbers) are not phone numbers.
- E-mail addresses must pass ``email-validator`` (syntax only, nothing is looked up) and
  their domain must be registrable under a known public suffix.
- Web addresses (``http``, ``https``, ``ftp`` or ``www.``) are judged with the public suffix
  list (``publicsuffixlist``, bundled, no network): a host needs a registrable domain under a
  known suffix ("bugs.debian.org", not "bugs.debian" or "a.se"); an IP address is accepted
  only after a scheme. An address without scheme or ``www.`` ("ctan.org/pkg/url") must also
  be lower-case ASCII under a common suffix (:data:`_BARE_TLDS`) and is refused when it looks
  like a file name ("splitindex.pl", "psfonts.map") or a code token ("xpart ndb3.se",
  "table.frame.border.style"). An address broken across a line break is joined when the
  continuation clearly belongs to it ("http://www.ams." + "org/tex/", ".../questions/" +
  "96680#284787"), and trailing punctuation is dropped.

Nothing is taken from lines that are code or markup (:func:`qagen.ingest.kinds.is_code_line`):
an address inside ``\\url{...}`` in a sentence counts, a line of code does not.

:func:`entity_distractors` picks wrong options for a multiple-choice question about an
entity: whole values of the same kind, never fragments of the right one.
"""

from qagen.entities.addresses import registrable_domain
from qagen.entities.base import ENTITY_KINDS, Entity
from qagen.entities.distractors import entity_distractors, entity_key, usable_distractor
from qagen.entities.find import extract_entities, incidental, normalize_entity
from qagen.entities.phones import infer_phone_region, resolve_phone_region

__all__ = [
    "ENTITY_KINDS",
    "Entity",
    "entity_distractors",
    "entity_key",
    "extract_entities",
    "incidental",
    "infer_phone_region",
    "normalize_entity",
    "registrable_domain",
    "resolve_phone_region",
    "usable_distractor",
]
