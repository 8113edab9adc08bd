"""Question generation: LLM request planning, reply conversion and the offline generator.

- :func:`qagen.generate.offline.generate_offline` — items with no model (the default), by the rules of
  :mod:`qagen.generate.offline.rules` over the language data of :mod:`qagen.generate.lang`.
- :func:`qagen.generate.requests.plan_requests` and
  :func:`qagen.generate.replies.items_from_results` — the LLM path around the engine.
- :func:`qagen.entities.extract_entities` / ``normalize_entity`` — phone numbers,
  e-mail addresses and URLs, shared with the filter stage.

Importing this package is light (no phonenumbers, no model libraries).
"""

from qagen.generate.context import GenerationContext, SectionPlace, item_id

__all__ = ["GenerationContext", "SectionPlace", "item_id"]
